// Disassembler: raw form per word, optional folding of CUBE, TMA, ACCCVT and TEPL blocks back into
// template form (spec 30 §5, spec 31 §3). Field values come from the encoding table's decoder; no bit positions here.
#include <algorithm>
#include <cstdio>
#include <optional>
#include <vector>

#include "linx/text.hpp"
#include "tilesim/linx.hpp"

namespace tilesim::linx {
namespace text {
using enc::F;
using enc::Op;

bool is_commit(Op op) {
  return op != Op::b_datr && op != Op::b_dim && op != Op::b_iot2 && op != Op::b_iot1 && op != Op::b_iot0 &&
         op != Op::b_iod && op != Op::b_ior && op != Op::b_arg && op != Op::b_arg_lit;
}

namespace {
std::string src(const enc::Word& w, F code, F reuse) {
  return enc::tile_text(w[code]) + (w[reuse] ? ".reuse" : "");
}
std::string dest(const enc::Word& w) {
  return std::string("->") + enc::dst_name(w[F::dst]) + "<" + enc::size_text(w[F::size]) + ">";
}
}  // namespace

std::string raw_line(const enc::Word& w) {
  const enc::Row& r = enc::row(w.op);
  std::string s = r.mnemonic;
  switch (w.op) {
    case Op::bstart_cube: {
      const unsigned fn = w[F::fn];
      const char* dt = type_code(w[F::dt]).name;
      // Fn 0, 2, 8 print as the opcode table's alias headers (spec 30 §5).
      if (fn == 0) return std::string("BSTART.TMATMUL ") + dt;
      if (fn == 2) return std::string("BSTART.TMATMUL.ACC ") + dt;
      if (fn == 8) return std::string("BSTART.ACCCVT ") + dt;
      return s + " " + enc::cube_fn_name(fn) + ", " + dt;
    }
    case Op::bstart_mpar: case Op::bstart_mseq: case Op::bstart_vpar:
    case Op::bstart_vseq: case Op::bstart_fixp:
      return s + " " + std::to_string(w[F::imm]);
    case Op::bstart_tma:  // the alias headers of lx_32.opc (spec 31 §3)
      return std::string("BSTART.") + enc::tma_fn_name(w[F::fn]) + " " + type_code(w[F::dt]).name;
    case Op::bstart_tepl:
      return s + " " + enc::tepl_name(w[F::topc]) + ", " + type_code(w[F::dt]).name;
    case Op::b_datr: {
      // DataType by name (a number when unnamed, nothing when 31 = none), then the non-zero
      // fields as key=N: every word round-trips (spec 31 §1).
      std::string ops;
      const auto add = [&](const std::string& x) { ops += (ops.empty() ? " " : ", ") + x; };
      if (w[F::datatype] != 31) add(type_code(w[F::datatype]).name);
      const std::pair<F, const char*> extra[] = {
          {F::sat, "sat"}, {F::rmode, "rmode"}, {F::cmode, "cmode"}, {F::pad, "pad"}, {F::layout, "layout"}};
      for (const auto& [f, n] : extra)
        if (w[f]) add(std::string(n) + "=" + std::to_string(w[f]));
      return s + ops;
    }
    case Op::b_ior: {
      // Sources up to the last non-zero one (`zero` = absent), then ->rd when set (spec 31 §1).
      const F srcs[3] = {F::rs0, F::rs1, F::rs2};
      int last = -1;
      for (int i = 0; i < 3; ++i)
        if (w[srcs[i]]) last = i;
      std::string ops;
      const auto add = [&](const std::string& x) { ops += (ops.empty() ? " " : ", ") + x; };
      for (int i = 0; i <= last; ++i) add(enc::reg_name(w[srcs[i]]));
      if (w[F::rd]) add(std::string("->") + enc::reg_name(w[F::rd]));
      return s + ops;
    }
    case Op::b_arg:
      return s + " " + std::to_string(w[F::format]);
    case Op::b_arg_lit:
      for (const enc::Row& r : enc::rows())
        if (r.op == Op::b_arg_lit && w[F::layout] == r.lits[0].value && w[F::datatype] == r.lits[1].value &&
            w[F::canon] == r.lits[3].value)
          return s + " " + r.spelling;
      return s;
    case Op::b_dim:
      return s + " " + enc::reg_name(w[F::reg]) + ", " + std::to_string(w[F::uimm]) + ", ->LB" +
             std::to_string(w[F::lb]);
    case Op::b_iot2: case Op::b_iot1: case Op::b_iot0: {
      std::string ops;
      const auto add = [&](const std::string& x) { ops += (ops.empty() ? " " : ", ") + x; };
      if (w.op != Op::b_iot0) add(src(w, F::s0, F::s0r));
      if (w.op == Op::b_iot2) add(src(w, F::s1, F::s1r));
      if (w[F::last]) add("last");
      if (w[F::dst] != enc::kDstNone) add(dest(w));
      return s + ops;
    }
    case Op::b_iod:
      return s + " " + std::to_string(w[F::d0]) + ", " + std::to_string(w[F::d1]) + ", " +
             std::to_string(w[F::d2]) + ", ->" + std::to_string(w[F::dd]);
    case Op::bstop:
      return s;
  }
  return s;
}

namespace {
std::string dim_text(const enc::Word& w) {
  const unsigned reg = w[F::reg], imm = w[F::uimm];
  if (reg == 0) return std::to_string(imm);
  if (imm == 0) return enc::reg_name(reg);
  return std::string(enc::reg_name(reg)) + "+" + std::to_string(imm);
}

// TMA, ACCCVT and TEPL blocks: exactly the expansion of asm.cpp's block template
// (docs/linx.md#template-form), else nullopt.
std::optional<std::string> fold_tile_block(std::span<const enc::Word> b) {
  enum { tload, tstore, tmov, acccvt, tepl } k;
  std::string mn;
  if (b[0].op == Op::bstart_tma) {
    k = b[0][F::fn] == 0 ? tload : b[0][F::fn] == 1 ? tstore : tmov;
    mn = enc::tma_fn_name(b[0][F::fn]);
  } else if (b[0].op == Op::bstart_tepl) {
    k = tepl;
    mn = enc::tepl_name(b[0][F::topc]);
  } else if (b[0].op == Op::bstart_cube && b[0][F::fn] == 8) {
    k = acccvt;
    mn = "ACCCVT";
  } else {
    return std::nullopt;
  }
  size_t i = 1;
  std::string items;
  const char* dt = type_code(b[0][F::dt]).name;
  std::string types = dt ? dt : "";
  std::string opts;
  if (i < b.size() && b[i].op == Op::b_datr) {
    const enc::Word& d = b[i++];
    const unsigned dty = d[F::datatype], lay = d[F::layout];
    if (dty != 31) {
      const bool tcvt = k == tepl && mn == "TCVT";  // the templates that name a DstType
      if ((k != acccvt && !tcvt) || !type_code(dty).name) return std::nullopt;
      types += std::string(", ") + type_code(dty).name;
    }
    if (lay) {
      if (k == tepl || !enc::layout_name(lay)) return std::nullopt;
      mn += std::string(".") + enc::layout_name(lay);
    }
    if (d[F::pad]) opts += std::string(", ") + (enc::pad_name(d[F::pad]) ? enc::pad_name(d[F::pad]) : "pad=" + std::to_string(d[F::pad]));
    if (d[F::cmode]) opts += ", cmode" + std::to_string(d[F::cmode]);
    if (d[F::rmode]) opts += ", rmode" + std::to_string(d[F::rmode]);
    if (d[F::sat]) opts += ", sat";
    if (dty == 31 && opts.empty() && !lay) return std::nullopt;  // the template would not emit it
  }
  int last_lb = -1;
  for (; i < b.size() && b[i].op == Op::b_dim; ++i) {
    const int lb = static_cast<int>(b[i][F::lb]);
    if (lb <= last_lb || (last_lb < 0 && lb != 0) || b[i][F::uimm] > 0xFFFF) return std::nullopt;
    if (k == acccvt && lb == 2) return std::nullopt;
    last_lb = lb;
    items += "LB" + std::to_string(lb) + ":" + dim_text(b[i]) + ", ";
  }
  if (last_lb < 0 || (k == acccvt && last_lb < 1)) return std::nullopt;
  std::string regs;
  // One or two B.IOR (the second continues the list): every register of a B.IOR that another
  // follows, up to the last non-zero one (at least one) of the final B.IOR.
  for (int n = 0; i < b.size() && b[i].op == Op::b_ior; ++n) {
    const enc::Word& r = b[i++];
    if (n == 2 || r[F::rd] || k == tmov) return std::nullopt;
    const bool more = i < b.size() && b[i].op == Op::b_ior;
    const F rf[3] = {F::rs0, F::rs1, F::rs2};
    int last = more ? 2 : 0;
    for (int j = 0; j < 3; ++j)
      if (r[rf[j]]) last = std::max(last, j);
    for (int j = 0; j <= last; ++j) regs += (regs.empty() ? "" : ", ") + std::string(enc::reg_name(r[rf[j]]));
  }
  if (!regs.empty() && (k == tload || k == tstore)) regs = "[" + regs + "]";
  if (i + 1 != b.size()) return std::nullopt;
  const enc::Word& io = b[i];
  if ((io.op != Op::b_iot0 && io.op != Op::b_iot1 && io.op != Op::b_iot2) || !io[F::last]) return std::nullopt;
  const size_t nsrc = io.op == Op::b_iot2 ? 2 : io.op == Op::b_iot1 ? 1 : 0;
  const bool has_dst = io[F::dst] != enc::kDstNone;
  switch (k) {
    case tload: case acccvt: if (nsrc != 0 || !has_dst) return std::nullopt; break;
    case tstore: if (nsrc != 1 || has_dst) return std::nullopt; break;
    case tmov: if (nsrc != 1 || !has_dst) return std::nullopt; break;
    case tepl: if (!has_dst) return std::nullopt; break;
  }
  std::string ops;
  const auto add = [&](const std::string& x) { ops += (ops.empty() ? "" : ", ") + x; };
  if (nsrc >= 1) add(src(io, F::s0, F::s0r));
  if (nsrc == 2) add(src(io, F::s1, F::s1r));
  if (!regs.empty()) add(regs);
  if (has_dst) add(dest(io));
  return mn + " <" + items + types + opts + ">, " + ops;
}
}  // namespace

std::optional<std::string> fold_block(std::span<const enc::Word> b) {
  if (b.empty()) return std::nullopt;
  if (b[0].op != Op::bstart_cube || b[0][F::fn] == 8) return fold_tile_block(b);
  const unsigned fn = b[0][F::fn];
  if (fn > 2) return std::nullopt;
  size_t i = 1;
  const unsigned ta = b[0][F::dt];
  std::string types = type_code(ta).name;
  if (i < b.size() && b[i].op == Op::b_datr) {
    const enc::Word& d = b[i];
    if (d[F::sat] || d[F::rmode] || d[F::cmode] || d[F::pad] || d[F::layout] || d[F::datatype] == ta)
      return std::nullopt;
    types += std::string(", ") + type_code(d[F::datatype]).name;
    ++i;
  }
  static const char* const lbs[3] = {"LB0", "LB1", "LB2"};
  std::string dims;
  for (unsigned x = 0; x < 3; ++x, ++i) {
    if (i >= b.size() || b[i].op != Op::b_dim || b[i][F::lb] != x) return std::nullopt;
    if (b[i][F::uimm] > 0xFFFF) return std::nullopt;  // the template's 16-bit lane bound
    dims += std::string(lbs[x]) + ":" + dim_text(b[i]) + ", ";
  }
  std::string ops;
  if (i >= b.size() || b[i].op != Op::b_iot2) return std::nullopt;
  const enc::Word& io = b[i++];
  ops = src(io, F::s0, F::s0r) + ", " + src(io, F::s1, F::s1r);
  const enc::Word* tail = &io;
  if (fn == 1) {
    if (io[F::last] || io[F::dst] != enc::kDstNone) return std::nullopt;
    if (i >= b.size() || b[i].op != Op::b_iot1) return std::nullopt;
    tail = &b[i++];
    ops += ", " + src(*tail, F::s0, F::s0r);
  } else if (fn == 2) {
    ops += ", ACC";
  }
  if (!(*tail)[F::last] || (*tail)[F::dst] != enc::kDstAcc) return std::nullopt;
  if (i != b.size()) return std::nullopt;
  return std::string(enc::cube_fn_name(fn)) + " <" + dims + types + ">, " + ops + ", " + dest(*tail);
}

std::string block_text(std::span<const enc::Word> b) {
  if (auto f = fold_block(b)) return *f;
  std::string s;
  for (const auto& w : b) s += (s.empty() ? "" : "; ") + raw_line(w);
  return s;
}

}  // namespace text

namespace {

// Valid words in blocks (a block runs from a commit word to the next), each block folded when
// asked; an invalid word (decoded[i] empty) is a line of its own and ends the block before it.
Disassembly render(std::span<const uint32_t> words, const std::vector<std::optional<enc::Word>>& decoded,
                   const std::vector<std::string>& why, bool fold) {
  Disassembly d;
  size_t i = 0;
  while (i < decoded.size()) {
    if (!decoded[i]) {
      char hexw[16];
      std::snprintf(hexw, sizeof hexw, "0x%08X", words[i]);
      d.text += std::string(".word ") + hexw + "  # invalid: " + why[i] + "\n";
      ++d.invalid;
      ++i;
      continue;
    }
    size_t j = i + 1;
    if (text::is_commit(decoded[i]->op))
      while (j < decoded.size() && decoded[j] && !text::is_commit(decoded[j]->op)) ++j;
    if (fold) {
      std::vector<enc::Word> block;
      for (size_t k = i; k < j; ++k) block.push_back(*decoded[k]);
      if (auto f = text::fold_block(block)) {
        d.text += *f + "\n";
        i = j;
        continue;
      }
    }
    for (; i < j; ++i) d.text += text::raw_line(*decoded[i]) + "\n";
  }
  return d;
}

}  // namespace

std::string disassemble(std::span<const uint32_t> words, bool fold) {
  std::vector<std::optional<enc::Word>> ws;
  ws.reserve(words.size());
  for (size_t i = 0; i < words.size(); ++i) ws.push_back(enc::decode_at(words[i], i));
  return render(words, ws, std::vector<std::string>(words.size()), fold).text;
}

Disassembly disassemble_all(std::span<const uint32_t> words, bool fold) {
  std::vector<std::optional<enc::Word>> ws;
  std::vector<std::string> why(words.size());
  ws.reserve(words.size());
  for (size_t i = 0; i < words.size(); ++i) ws.push_back(enc::decode(words[i], &why[i]));
  return render(words, ws, why, fold);
}

}  // namespace tilesim::linx
