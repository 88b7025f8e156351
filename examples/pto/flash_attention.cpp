// Single-head flash attention with online softmax as a PTO kernel (spec 21 §2; docs/pto-kernels.md),
// on the a5 target (its Acc -> Vec and Vec -> Mat moves): fp16 Q, K, V (S x D) in GM, fp32 softmax.
// For each block of 64 query rows, over blocks of 64 keys:
//   S = Q K^T (TMATMUL, K loaded through a DN view as K^T), S *= 1/sqrt(D),
//   m' = max(m, rowmax S), P = exp(S - m'), a = exp(m - m'), l = a l + rowsum P,
//   O = a O + fp16(P) V (TMATMUL), m = m';  finally O /= l.
// Checks against a float64 softmax(Q K^T / sqrt(D)) V and prints a report.
#include <cmath>
#include <cstdio>
#include <vector>
#include <pto/pto-inst.hpp>

using namespace pto;

constexpr int S = 512, D = 64, Br = 64, Bc = 64;
using QBlk = GlobalTensor<half, Shape<1, 1, 1, Br, D>, Stride<1, 1, 1, D, 1>>;
using KtBlk = GlobalTensor<half, Shape<1, 1, 1, D, Bc>, Stride<1, 1, 1, 1, D>, Layout::DN>;
using VBlk = GlobalTensor<half, Shape<1, 1, 1, Bc, D>, Stride<1, 1, 1, D, 1>>;
using OBlk = GlobalTensor<float, Shape<1, 1, 1, Br, D>, Stride<1, 1, 1, D, 1>>;

template <int R, int C>
using MatNZ = Tile<TileType::Mat, half, R, C, BLayout::ColMajor, R, C, SLayout::RowMajor, 512>;
template <int R, int C>
using MatZN = Tile<TileType::Mat, half, R, C, BLayout::RowMajor, R, C, SLayout::ColMajor, 512>;
template <class T, int R, int C>
using Vec = Tile<TileType::Vec, T, R, C>;
// One fp32 value per row: the (Br, 1) column the row reductions write and the row-expand ops read,
// and the same bytes as a (1, Br) row for the element-wise ops (TRESHAPE between the two).
using Col = Tile<TileType::Vec, float, Br, 1, BLayout::ColMajor>;
using Row = Tile<TileType::Vec, float, 1, Br>;

void attention(const half* q, const half* k, const half* v, float* o) {
  const float scale = 1.0f / std::sqrt(float(D));
  MatNZ<Br, D> qMat;
  TileLeft<half, Br, D> qLeft;
  MatZN<D, Bc> kMat;
  TileRight<half, D, Bc> kRight;
  TileAcc<float, Br, Bc> sAcc;
  Vec<float, Br, Bc> s, tmp;
  Vec<half, Br, Bc> p16;
  MatNZ<Br, Bc> pMat;
  TileLeft<half, Br, Bc> pLeft;
  MatNZ<Bc, D> vMat;
  TileRight<half, Bc, D> vRight;
  TileAcc<float, Br, D> pvAcc;
  Vec<float, Br, D> pv, out;
  Col mBlkC, mNewC, alphaC, lBlkC, lC;
  Row m, mNew, mBlk, alpha, l, lBlk;
  for (int i = 0; i < S; i += Br) {
    QBlk qg(const_cast<half*>(q) + i * D);
    TLOAD(qMat, qg);
    TMOV(qLeft, qMat);
    TEXPANDS(m, -INFINITY);
    TEXPANDS(l, 0.0f);
    TEXPANDS(out, 0.0f);
    for (int j = 0; j < S; j += Bc) {
      KtBlk kg(const_cast<half*>(k) + j * D);
      VBlk vg(const_cast<half*>(v) + j * D);
      TLOAD(kMat, kg);
      TMOV(kRight, kMat);
      TMATMUL(sAcc, qLeft, kRight);
      TMOV(s, sAcc);
      TMULS(s, s, scale);
      TROWMAX(mBlkC, s, tmp);
      TRESHAPE(mBlk, mBlkC);
      TMAX(mNew, m, mBlk);
      TRESHAPE(mNewC, mNew);
      TROWEXPANDSUB(s, s, mNewC);
      TEXP(s, s);
      TSUB(alpha, m, mNew);
      TEXP(alpha, alpha);
      TRESHAPE(alphaC, alpha);
      TROWSUM(lBlkC, s, tmp);
      TRESHAPE(lBlk, lBlkC);
      TMUL(l, l, alpha);
      TADD(l, l, lBlk);
      TCVT(p16, s, RoundMode::CAST_RINT);
      TMOV(pMat, p16);
      TMOV(pLeft, pMat);
      TLOAD(vMat, vg);
      TMOV(vRight, vMat);
      TMATMUL(pvAcc, pLeft, vRight);
      TMOV(pv, pvAcc);
      TROWEXPANDMUL(out, out, alphaC);
      TADD(out, out, pv);
      TMOV(m, mNew);
    }
    TRESHAPE(lC, l);
    TROWEXPANDDIV(out, out, lC);
    OBlk og(o + i * D);
    TSTORE(og, out);
  }
}

int main() {
  set_target("a5");
  std::vector<half> q(S * D), k(S * D), v(S * D);
  for (int i = 0; i < S * D; ++i) {
    q[i] = half(std::sin(0.37f * float(i)) * 0.5f);
    k[i] = half(std::cos(0.11f * float(i) + 1.0f) * 0.5f);
    v[i] = half(std::sin(0.05f * float(i) + 2.0f));
  }
  std::vector<float> o(S * D);
  attention(q.data(), k.data(), v.data(), o.data());
  double worst = 0;
  std::vector<double> sc(S);
  for (int i = 0; i < S; ++i) {
    double mx = -1e300, sum = 0;
    for (int j = 0; j < S; ++j) {
      double dot = 0;
      for (int d = 0; d < D; ++d) dot += double(float(q[i * D + d])) * double(float(k[j * D + d]));
      sc[j] = dot / std::sqrt(double(D));
      mx = std::fmax(mx, sc[j]);
    }
    for (int j = 0; j < S; ++j) sum += sc[j] = std::exp(sc[j] - mx);
    for (int d = 0; d < D; ++d) {
      double want = 0;
      for (int j = 0; j < S; ++j) want += sc[j] / sum * double(float(v[j * D + d]));
      worst = std::fmax(worst, std::fabs(double(o[i * D + d]) - want));
    }
  }
  const bool ok = worst < 2e-3;  // P is rounded to fp16 before P V, as on the hardware
  std::printf("pto flash attention (a5, S=%d D=%d fp16 in, fp32 softmax, %dx%d blocks): o[0][0..1] "
              "= %.6g %.6g; largest |error| vs float64 %.2e: %s\n",
              S, D, Br, Bc, double(o[0]), double(o[1]), worst, ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
