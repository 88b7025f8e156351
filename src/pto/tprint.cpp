// TPRINT (docs/pto.md#tprint), in pto-isa's two formats: the device's (include/pto/npu/a2a3/
// TPrint.hpp, which a5 shares) on a2a3 and a5, and the CPU simulator's (include/pto/cpu/TPrint.hpp)
// on the cpu target. Values print through a float (%8.4f, %8.2f, %10.6f) or as integers (%8d / %8u,
// %10d / %10u), as PrintFormat says; rows and columns are logical, whatever the tile's layout.
#include <fmt/format.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "core/debug_print.hpp"
#include "pto/tile_layout.hpp"
#include "tilesim/error.hpp"
#include "tilesim/formats.hpp"
#include "tilesim/pto/print.hpp"

namespace tilesim::pto {

namespace {

constexpr const char* kDoc = "docs/pto.md#tprint";
using ::pto::PrintFormat;

int width_of(PrintFormat f) {
  return f == PrintFormat::Width10_Precision6 ? 10 : 8;
}
int precision_of(PrintFormat f) {
  return f == PrintFormat::Width8_Precision4 ? 4 : f == PrintFormat::Width8_Precision2 ? 2 : 6;
}

// The device's dtype names (GetDTypeName); empty for the dtypes it cannot print.
const char* device_dtype_name(Elem e) {
  switch (e) {
    case Elem::u32:
      return "uint32";
    case Elem::s32:
      return "int32";
    case Elem::u16:
      return "uint16";
    case Elem::s16:
      return "int16";
    case Elem::u8:
      return "uint8";
    case Elem::s8:
      return "int8";
    case Elem::f32:
      return "float32";
    case Elem::f16:
      return "float16";
    default:
      return "";
  }
}

const char* tile_type_name(uint8_t loc) {
  static const char* const k[] = {"Vec",  "Mat",     "Left",      "Right",      "Acc",
                                  "Bias", "Scaling", "ScaleLeft", "ScaleRight", "Ctrl"};
  return loc < 10 ? k[loc] : "Unknown";
}

// GetLayoutName(BLayout, SLayout).
const char* layout_name(const TileDesc& t) {
  if (t.slayout == kSLayoutNoneBox) return t.row_major ? "ND" : "DN";
  if (t.slayout == kSLayoutRowMajor) return t.row_major ? "Zz" : "Nz";
  return t.row_major ? "Zn" : "Nn";
}

uint64_t load(const uint8_t* p, Elem e) {
  uint64_t c = 0;
  std::memcpy(&c, p, elem_size(e));
  return c;
}

double as_double(uint64_t code, Elem e) {
  switch (e) {
    case Elem::f16:
      return formats::f16_to_f32(uint16_t(code));
    case Elem::bf16:
      return formats::bf16_to_f32(uint16_t(code));
    case Elem::f32:
      return formats::bits_to_f32(uint32_t(code));
    default:
      return 0;
  }
}
int64_t as_signed(uint64_t code, Elem e) {
  const unsigned bits = unsigned(elem_size(e)) * 8;
  if (bits < 64 && (code >> (bits - 1)) & 1) code |= ~uint64_t{0} << bits;
  return int64_t(code);
}
bool is_signed_int(Elem e) {
  return e == Elem::s8 || e == Elem::s16 || e == Elem::s32 || e == Elem::s64;
}

// The device's PrintValue: float through float, integers through int / unsigned int.
void device_value(std::string& out, uint64_t code, Elem e, PrintFormat f) {
  char b[64];
  const int w = width_of(f);
  if (elem_is_float(e))
    std::snprintf(b, sizeof b, "%*.*f", w, precision_of(f), double(float(as_double(code, e))));
  else if (is_signed_int(e))
    std::snprintf(b, sizeof b, "%*d", w, int(as_signed(code, e)));
  else
    std::snprintf(b, sizeof b, "%*u", w, unsigned(code));
  out += b;
}

// The CPU simulator's PrintValue: floats fixed with the format's width and precision, integers
// (int8 and uint8 as numbers) with its width.
void cpu_value(std::string& out, uint64_t code, Elem e, PrintFormat f) {
  char b[400];
  const int w = width_of(f);
  if (elem_is_float(e))
    std::snprintf(b, sizeof b, "%*.*f", w, precision_of(f), as_double(code, e));
  else if (is_signed_int(e))
    std::snprintf(b, sizeof b, "%*lld", w, static_cast<long long>(as_signed(code, e)));
  else
    std::snprintf(b, sizeof b, "%*llu", w, static_cast<unsigned long long>(code));
  out += b;
}

bool device_target(const Target& t) {
  return t.kind != TargetKind::cpu;
}

void require_device_dtype(Elem e, const Target& t, const char* what) {
  if (!*device_dtype_name(e))
    raise(ErrorCode::Unsupported, "TPRINT",
          fmt::format("{} of dtype {} does not print on target {} (float, half, int8/16/32 and "
                      "uint8/16/32 do; "
                      "the cpu target prints every dtype)",
                      what, elem_name(e), t.name),
          kDoc);
}

std::string dashes(const TileDesc& t, PrintFormat f) {
  std::string s;
  for (int j = 0; j < t.cols; ++j) {
    if (j > 0) s += ' ';
    s.append(size_t(width_of(f)), '-');
    if (j == t.valid_col - 1 && t.valid_col > 0 && t.valid_col < t.cols) s += '|';
  }
  return s + '\n';
}

// The device's tile print: header, shape, all Rows x Cols with the valid region marked.
std::string device_tile(const TileDesc& t, PrintFormat f) {
  std::string out = fmt::format("=== [TPRINT Tile] Data Type: {}, Layout: {}, TileType: {} ===\n",
                                device_dtype_name(t.dtype), layout_name(t), tile_type_name(t.loc));
  out += fmt::format("  Shape: [{}, {}], Valid Shape: [{}, {}]\n", t.rows, t.cols, t.valid_row,
                     t.valid_col);
  for (int i = 0; i < t.rows; ++i) {
    for (int j = 0; j < t.cols; ++j) {
      if (j > 0) out += ' ';
      device_value(out, load(layout::at(t, i, j), t.dtype), t.dtype, f);
      if (j == t.valid_col - 1 && t.valid_col > 0 && t.valid_col < t.cols) out += '|';
    }
    out += '\n';
    if (i == t.valid_row - 1 && t.valid_row > 0 && t.valid_row < t.rows) out += dashes(t, f);
  }
  return out;
}

// The CPU simulator's tile print: "TPRINT RxC" and the valid region.
std::string cpu_tile(const TileDesc& t, PrintFormat f) {
  std::string out = fmt::format("TPRINT {}x{}\n", t.valid_row, t.valid_col);
  for (int r = 0; r < t.valid_row; ++r) {
    for (int c = 0; c < t.valid_col; ++c) {
      if (c != 0) out += ' ';
      cpu_value(out, load(layout::at(t, r, c), t.dtype), t.dtype, f);
    }
    out += '\n';
  }
  return out;
}

// Bytes addressable at a tmp / printed view: its shape's element count (the view's contract).
int64_t view_elems(const GmDesc& g) {
  int64_t n = 1;
  for (int i = 0; i < 5; ++i) n *= g.shape[i];
  return n;
}

void check_view(const GmDesc& g, const char* who) {
  if (!g.data)
    raise(ErrorCode::Constraint, "TPRINT", fmt::format("{} GlobalTensor has no data pointer", who),
          kDoc);
  for (int i = 0; i < 5; ++i) {
    if (g.shape[i] < 0 || g.shape[i] > (int64_t{1} << 31))
      raise(ErrorCode::Constraint, "TPRINT",
            fmt::format("{} GlobalTensor dimension {} has shape {} (0 .. 2^31 print)", who, i,
                        g.shape[i]),
            kDoc);
    if (g.stride[i] < 0)
      raise(
          ErrorCode::Constraint, "TPRINT",
          fmt::format("{} GlobalTensor dimension {} has a negative stride {}", who, i, g.stride[i]),
          kDoc);
  }
}

std::string prefixed(const std::string& text) {
  const debug::Block* b = debug::current_block();
  if (!b || b->count <= 1) return text;
  return debug::prefix_lines(text, fmt::format("[Block {}/{}] ", b->index, b->count));
}

}  // namespace

std::string tprint(const TileDesc& tile, const GmDesc* tmp, PrintFormat format, const Target& t) {
  check_tile(tile, "TPRINT", "src");
  if (!device_target(t)) return cpu_tile(tile, format);  // the CPU simulator ignores tmp
  require_device_dtype(tile.dtype, t, "a tile");
  if (!tmp) {
    if (tile.loc != kLocVec)
      raise(ErrorCode::Constraint, "TPRINT",
            fmt::format("a {} tile prints on target {} only with a GM tmp: TPRINT(tile, tmp) "
                        "(TPRINT(tile) takes a "
                        "Vec tile)",
                        tile_type_name(tile.loc), t.name),
            kDoc);
    return device_tile(tile, format);
  }
  if (tile.loc != kLocVec && tile.loc != kLocAcc && tile.loc != kLocMat)
    raise(ErrorCode::Constraint, "TPRINT",
          fmt::format("TPRINT(tile, tmp) takes a Vec, Acc or Mat tile, got {}",
                      tile_type_name(tile.loc)),
          kDoc);
  if (tile.loc == kLocMat && t.kind == TargetKind::a5)
    raise(ErrorCode::Unsupported, "TPRINT", "a Mat tile does not print on target a5 (a2a3 only)",
          kDoc);
  if (tile.loc == kLocVec) return device_tile(tile, format);
  check_view(*tmp, "the tmp");
  const size_t need = tile.bytes();
  const size_t have = size_t(view_elems(*tmp)) * elem_size(tmp->dtype);
  if (have < need || (tmp->extent && tmp->extent < need))
    raise(ErrorCode::Bounds, "TPRINT",
          fmt::format("the tmp GlobalTensor holds {} bytes; a {}x{} {} tile needs {} (Rows * Cols "
                      "* sizeof(T))",
                      tmp->extent && tmp->extent < have ? tmp->extent : have, tile.rows, tile.cols,
                      elem_name(tile.dtype), need),
          kDoc);
  // The device copies the tile to tmp row-major (Acc: NZ to ND) and prints the copy.
  const size_t sz = elem_size(tile.dtype);
  for (int i = 0; i < tile.rows; ++i)
    for (int j = 0; j < tile.cols; ++j)
      std::memcpy(tmp->data + (size_t(i) * size_t(tile.cols) + size_t(j)) * sz,
                  layout::at(tile, i, j), sz);
  return device_tile(tile, format);
}

std::string tprint(const GmDesc& g, PrintFormat f, const Target& t) {
  check_view(g, "the");
  if (g.layout == GmLayout::Other)
    raise(ErrorCode::Unsupported, "TPRINT", "a GlobalTensor prints in layout ND, DN or NZ", kDoc);
  if (!*device_dtype_name(g.dtype))
    raise(ErrorCode::Unsupported, "TPRINT",
          fmt::format("a GlobalTensor of dtype {} does not print (float, half, int8/16/32 and "
                      "uint8/16/32 do)",
                      elem_name(g.dtype)),
          kDoc);
  (void)t;  // one format on every target: the CPU simulator has no GlobalTensor print
  const int64_t* n = g.shape;
  const int64_t* s = g.stride;
  const size_t sz = elem_size(g.dtype);
  // Every offset the print reads is at most the sum over dimensions of (n - 1) * stride.
  int64_t last = 0;
  bool empty = false;
  for (int i = 0; i < 5; ++i) {
    if (n[i] == 0)
      empty = true;
    else
      last += (n[i] - 1) * s[i];
  }
  if (!empty && g.extent && size_t(last + 1) * sz > g.extent)
    raise(ErrorCode::Bounds, "TPRINT",
          fmt::format("the GlobalTensor's shape and strides reach element {}, beyond its {} bytes",
                      last, g.extent),
          kDoc);
  auto value = [&](std::string& out, int64_t off, int col) {
    if (col > 0) out += ' ';
    device_value(out, load(g.data + size_t(off) * sz, g.dtype), g.dtype, f);
  };
  const char* lname = g.layout == GmLayout::ND ? "ND" : g.layout == GmLayout::DN ? "DN" : "NZ";
  std::string out = fmt::format("=== [TPRINT GlobalTensor] Data Type: {}, Layout: {} ===\n",
                                device_dtype_name(g.dtype), lname);
  if (g.layout != GmLayout::NZ) {
    out += fmt::format("  Shape: [{}, {}, {}, {}, {}]\n", n[0], n[1], n[2], n[3], n[4]);
    for (int64_t i0 = 0; i0 < n[0]; ++i0)
      for (int64_t i1 = 0; i1 < n[1]; ++i1)
        for (int64_t i2 = 0; i2 < n[2]; ++i2) {
          out += fmt::format("  Batch [{}, {}, {}]:\n", i0, i1, i2);
          for (int64_t r = 0; r < n[3]; ++r) {
            for (int64_t c = 0; c < n[4]; ++c)
              value(out, i0 * s[0] + i1 * s[1] + i2 * s[2] + r * s[3] + c * s[4], int(c));
            out += '\n';
          }
        }
    return out;
  }
  // NZ: the logical (n2*n3) x (n1*n4) matrix of fractals; dimension 0 is not walked, as on the
  // device.
  const int64_t rows = n[2] * n[3], cols = n[1] * n[4];
  out += fmt::format("  Logical Shape: [{}, {}]\n", rows, cols);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c)
      value(out, (r / n[3]) * s[2] + (c / n[4]) * s[1] + (r % n[3]) * s[3] + (c % n[4]) * s[4],
            int(c));
    out += '\n';
  }
  return out;
}

void tprint_current(const TileDesc& tile, const GmDesc* tmp, PrintFormat format) {
  debug::write(prefixed(tprint(tile, tmp, format, current_target())));
}

void tprint_current(const GmDesc& g, PrintFormat format) {
  debug::write(prefixed(tprint(g, format, current_target())));
}

}  // namespace tilesim::pto
