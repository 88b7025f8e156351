// Ascend C's debug prints (docs/ascendc.md#debug-prints): printf / PRINTF, DumpTensor and the
// failed assert. Each print is one piece of text for its block: inside ICPU_RUN_KF it starts with
// the prefix the vendor's device printf puts before every call, "[AIV Block <core>/<cores>] "
// (the vector core and the count of vector cores, as its asc_debug_get_block_idx / _total_num
// give them); outside a launch there is no block and no prefix, as in the vendor's CPU twin.
#include <fmt/format.h>

#include <cstring>
#include <string>
#include <vector>

#include "core/debug_print.hpp"
#include "tilesim/ascendc.hpp"
#include "tilesim/error.hpp"

namespace tilesim::ascendc {

namespace {

constexpr const char* kDoc = "docs/ascendc.md#debug-prints";

std::string block_prefix() {
  const debug::Block* b = debug::current_block();
  return b ? fmt::format("[AIV Block {}/{}] ", b->index, b->count) : std::string();
}

// The vendor's dump data_type names.
const char* dump_type_name(formats::DType t, bool bool_elems) {
  using D = formats::DType;
  if (bool_elems) return "bool";
  switch (t) {
    case D::fp16:
      return "float16";
    case D::bf16:
      return "bfloat16";
    case D::fp32:
      return "float32";
    case D::s8:
      return "int8";
    case D::s16:
      return "int16";
    case D::s32:
      return "int32";
    case D::s64:
      return "int64";
    case D::u8:
      return "uint8";
    case D::u16:
      return "uint16";
    case D::u32:
      return "uint32";
    case D::u64:
      return "uint64";
    default:
      return "unknown";
  }
}

// Element i as the dump prints it: floats "%f" (half and bfloat16 through float, exactly),
// integers in decimal.
std::string dump_value(const uint8_t* data, size_t i, formats::DType t) {
  const size_t sz = formats::storage_bytes(t, 1);
  uint64_t code = 0;
  std::memcpy(&code, data + i * sz, sz);
  const formats::FormatInfo& f = formats::info(t);
  if (f.kind == formats::Kind::Float) return fmt::format("{:f}", formats::decode(code, t));
  if (f.kind == formats::Kind::Unsigned) return std::to_string(code);
  const unsigned bits = unsigned(sz) * 8;
  if (bits < 64 && (code >> (bits - 1)) & 1) code |= ~uint64_t{0} << bits;
  return std::to_string(static_cast<int64_t>(code));
}

// The shaped form: nested brackets of the shape, "-" for elements beyond the dump.
void shaped(std::string& out, const std::vector<std::string>& v, const uint32_t* ext, uint32_t dim,
            uint32_t d, uint64_t& at) {
  out += '[';
  for (uint32_t i = 0; i < ext[d]; ++i) {
    if (d + 1 == dim) {
      if (i) out += ',';
      out += at < v.size() ? v[at] : "-";
      ++at;
    } else {
      if (i) out += ",\n";
      shaped(out, v, ext, dim, d + 1, at);
    }
  }
  out += ']';
}

}  // namespace

void debug_printf(const char* api, const char* fmt, std::initializer_list<debug::Arg> args) {
  std::string text = debug::format(api, fmt, {args.begin(), args.size()}, kDoc);
  debug::write(block_prefix() + text);
}

void assert_failed(const char* expr, const char* file, unsigned line, const char* func,
                   const char* fmt, std::initializer_list<debug::Arg> args) {
  std::string msg;
  if (fmt) {
    try {
      msg = debug::format("assert", fmt, {args.begin(), args.size()}, kDoc);
    } catch (const Error& e) {
      raise(ErrorCode::Fault, "assert",
            fmt::format(
                "Assertion `{}' failed at {}:{} in {}; its message could not be formatted: {}",
                expr, file, line, func, e.what()));
    }
  }
  // The vendor's device line: the 1-argument form ends it with '\n'; the message form appends the
  // message as given (a '\n' is added here when it has none, so the next block's output starts a
  // line).
  std::string line_text = fmt::format("{}[ASSERT] {}:{}: {}: Assertion `{}' failed.",
                                      block_prefix(), file, line, func, expr);
  if (fmt)
    line_text += " " + msg;
  else
    line_text += '\n';
  if (line_text.back() != '\n') line_text += '\n';
  debug::write(line_text);
  while (!msg.empty() && msg.back() == '\n') msg.pop_back();
  raise(ErrorCode::Fault, "assert",
        fmt::format("Assertion `{}' failed at {}:{} in {}{}{}", expr, file, line, func,
                    msg.empty() ? "" : ": ", msg),
        kDoc);
}

void dump_tensor(const MemRef& m, formats::DType t, bool bool_elems, uint32_t desc,
                 uint32_t dump_size, const DumpShape* shape) {
  constexpr const char* api = "DumpTensor";
  if (shape && shape->dim > 8)
    raise(ErrorCode::Constraint, api,
          fmt::format("the ShapeInfo has {} dimensions, at most 8", shape->dim), kDoc);
  if (dump_size == 0) return;  // the vendor dumps nothing for 0
  if (dump_size > m.elems)
    raise(ErrorCode::Bounds, api,
          fmt::format("dumpSize {} exceeds the {} elements of the {} tensor", dump_size, m.elems,
                      m.ub ? "UB" : "GM"),
          kDoc);
  const size_t bytes = formats::storage_bytes(t, dump_size);
  const uint8_t* data;
  uint64_t addr;
  if (m.ub) {
    data = ub_bytes(m.addr, bytes, api, "tensor");
    addr = m.addr;
  } else {
    data = m.gm;
    if (!data)
      raise(ErrorCode::Bounds, api,
            "the GlobalTensor has no buffer (SetGlobalBuffer was not called)", kDoc);
    if (m.gm_end && static_cast<size_t>(m.gm_end - data) < bytes)
      raise(ErrorCode::Bounds, api,
            fmt::format("dumpSize {} elements ({} bytes) run past the end of the GmAlloc block ({} "
                        "bytes left)",
                        dump_size, bytes, m.gm_end - data),
            kDoc);
    addr = reinterpret_cast<uintptr_t>(data);
  }
  std::vector<std::string> v(dump_size);
  for (uint32_t i = 0; i < dump_size; ++i) v[i] = dump_value(data, i, t);

  std::string out = fmt::format(
      "{}DumpTensor: desc={}, addr={:#x}, data_type={}, position={}, dump_size={}\n",
      block_prefix(), desc, addr, dump_type_name(t, bool_elems), m.ub ? "UB" : "GM", dump_size);
  if (shape && shape->dim > 0) {
    uint64_t n = 1;
    std::string dims;
    for (uint32_t d = 0; d < shape->dim; ++d) {
      n *= shape->extents[d];
      dims += (d ? ", " : "") + std::to_string(shape->extents[d]);
    }
    if (n > uint64_t{1} << 24)
      raise(ErrorCode::Constraint, api,
            fmt::format("the ShapeInfo [{}] has {} elements, more than 2^24", dims, n), kDoc);
    if (n < dump_size)
      out += fmt::format("shape is [{}], dumpSize is {}, dumpSize is greater than shapeSize.\n",
                         dims, dump_size);
    else if (n > dump_size)
      out += fmt::format("shape is [{}], dumpSize is {}, data is not enough.\n", dims, dump_size);
    uint64_t at = 0;
    if (n == 0)
      out += "[]";
    else
      shaped(out, v, shape->extents, shape->dim, 0, at);
    out += '\n';
  } else {
    out += '[';
    for (uint32_t i = 0; i < dump_size; ++i) out.append(i ? ", " : "").append(v[i]);
    out += "]\n";
  }
  debug::write(out);
}

}  // namespace tilesim::ascendc
