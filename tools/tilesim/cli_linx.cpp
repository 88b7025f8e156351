// `tilesim asm`, `tilesim disasm`, `tilesim run FILE.s|FILE.bin` and the bundled LinxISA example
// (spec 60 §5). Reads files, calls tilesim::linx, writes files; no arithmetic here.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <span>

#include "args.hpp"
#include "cli.hpp"
#include "tilesim/error.hpp"
#include "tilesim/linx.hpp"
#include "tilesim/npy.hpp"

namespace {
namespace lx = tilesim::linx;
namespace fm = tilesim::formats;
using tilesim::ErrorCode;
using tilesim::raise;

std::string read_file(const std::string& path) { return tilesim::cli::read_input(path, "program"); }

std::vector<uint32_t> words_from_bin(const std::string& path) {
  const std::string b = read_file(path);
  if (b.size() % 4)
    raise(ErrorCode::Io, "tilesim",
          "'" + path + "' holds " + std::to_string(b.size()) +
              " bytes, not a whole number of 32-bit words",
          "docs/cli.md#run");
  std::vector<uint32_t> w(b.size() / 4);
  for (size_t i = 0; i < w.size(); ++i)  // little-endian (spec 30 §6)
    w[i] = static_cast<uint32_t>(static_cast<uint8_t>(b[4 * i])) |
           static_cast<uint32_t>(static_cast<uint8_t>(b[4 * i + 1])) << 8 |
           static_cast<uint32_t>(static_cast<uint8_t>(b[4 * i + 2])) << 16 |
           static_cast<uint32_t>(static_cast<uint8_t>(b[4 * i + 3])) << 24;
  return w;
}

bool ends_with(const std::string& s, const char* suf) {
  const size_t n = std::strlen(suf);
  if (s.size() < n) return false;
  for (size_t i = 0; i < n; ++i)
    if (std::tolower(static_cast<unsigned char>(s[s.size() - n + i])) != suf[i]) return false;
  return true;
}

std::vector<uint32_t> load_program(const std::string& path) {
  if (ends_with(path, ".bin")) return words_from_bin(path);
  return lx::assemble(read_file(path), path);
}

std::string hex(uint32_t w) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%08X", w);
  return b;
}

int asm_cmd(const tilesim::cli::Options& o) {
  const auto words = lx::assemble(read_file(o.file), o.file);
  if (!o.out.empty()) {
    std::ofstream f(o.out, std::ios::binary);
    if (!f) raise(ErrorCode::Io, "tilesim asm", "cannot write '" + o.out + "'", "docs/cli.md#run");
    for (uint32_t w : words) {
      const char b[4] = {static_cast<char>(w & 0xFF), static_cast<char>((w >> 8) & 0xFF),
                         static_cast<char>((w >> 16) & 0xFF), static_cast<char>(w >> 24)};
      f.write(b, 4);
    }
  }
  if (o.out.empty() || o.hex) {
    std::istringstream lines(lx::disassemble(words));
    std::string line;
    for (uint32_t w : words) {
      std::getline(lines, line);
      std::cout << hex(w) << "  " << line << "\n";
    }
  }
  return 0;
}

int disasm_cmd(const tilesim::cli::Options& o) {
  std::vector<uint32_t> words;
  if (!o.file.empty()) words = words_from_bin(o.file);
  for (const std::string& s : o.words) words.push_back(tilesim::cli::parse_word(s));
  // Goes on past a bad word (docs/linx.md#disassembler): exit 1 if any was invalid.
  const lx::Disassembly d = lx::disassemble_all(words, o.fold);
  std::cout << d.text;
  if (d.invalid)
    std::cerr << "tilesim disasm: " << d.invalid << " of " << words.size()
              << " words are invalid (printed as .word)\n";
  return d.invalid ? 1 : 0;
}

std::string descr_of(fm::DType t) {
  switch (fm::info(t).carrier) {
    case fm::Carrier::f64:
      return "<f8";
    case fm::Carrier::f32:
      return "<f4";
    case fm::Carrier::f16:
      return "<f2";
    case fm::Carrier::u8:
      return "|u1";
    case fm::Carrier::u16:
      return "<u2";
    case fm::Carrier::u32:
      return "<u4";
    case fm::Carrier::u64:
      return "<u8";
    case fm::Carrier::i8:
      return "|i1";
    case fm::Carrier::i16:
      return "<i2";
    case fm::Carrier::i32:
      return "<i4";
    default:
      return "<i8";
  }
}

// Q=FILE.npy:DTYPE:LAYOUT -> pushes the array (in its spec 60 §2 carrier) onto queue Q.
void push_tile_arg(lx::Machine& m, const std::string& arg, const std::string& base_dir) {
  const tilesim::cli::TileArg ta = tilesim::cli::parse_tile_arg(arg);
  std::string path = ta.path;
  if (!base_dir.empty() && std::filesystem::path(path).is_relative()) path = base_dir + "/" + path;
  const fm::DType t = ta.dtype;
  const lx::Layout l = ta.layout;
  const tilesim::npy::Array a = tilesim::npy::load(path);
  if (a.descr != descr_of(t))
    raise(ErrorCode::Constraint, "--tile",
          "'" + path + "' holds " + a.descr + " elements; " + std::string(fm::name(t)) +
              " tiles are read from " + descr_of(t) + " arrays",
          "docs/cli.md#input-files");
  size_t rows = 1, cols = 0;
  if (a.shape.size() == 1)
    cols = a.shape[0];
  else if (a.shape.size() == 2) {
    rows = a.shape[0];
    cols = a.shape[1];
  } else
    raise(ErrorCode::Constraint, "--tile", "'" + path + "' must be 1-D or 2-D", "docs/cli.md#run");
  m.push_tile(ta.queue, a.data.data(), rows, cols, t, l);
}

tilesim::npy::Array acc_array(const lx::AccView& acc) {
  tilesim::npy::Array a;
  a.descr = descr_of(acc.type);
  a.shape = {acc.m, acc.n};
  a.data.resize(acc.data.size() * 4);
  std::memcpy(a.data.data(), acc.data.data(), a.data.size());
  return a;
}

void report(const lx::AccView& acc) {
  if (!acc.valid && acc.released_at >= 0) {
    std::cout << "ACC: released by ACCCVT at block " << acc.released_at << "\n";
    return;
  }
  if (!acc.valid) {
    std::cout << "ACC: empty\n";
    return;
  }
  std::cout << "ACC: " << acc.m << "x" << acc.n << " " << fm::name(acc.type) << "; row 0:";
  for (size_t j = 0; j < std::min<size_t>(acc.n, 8); ++j) {
    const uint32_t w = acc.data[j];
    if (acc.type == fm::DType::fp32)
      std::cout << " " << fm::bits_to_f32(w);
    else if (acc.type == fm::DType::s32)
      std::cout << " " << static_cast<int32_t>(w);
    else
      std::cout << " " << w;
  }
  std::cout << (acc.n > 8 ? " ...\n" : "\n");
}

// --mem ADDR=FILE: a .npy array's data bytes or a .bin file's bytes at ADDR (spec 60 §5).
void mem_arg(lx::Machine& m, const std::string& arg, const std::string& base_dir) {
  const auto [addr_text, file] = tilesim::cli::split_assignment(arg, "--mem");
  const uint64_t addr = tilesim::cli::parse_integer(addr_text, "--mem", false, ~uint64_t{0});
  std::string path = file;
  if (!base_dir.empty() && std::filesystem::path(path).is_relative()) path = base_dir + "/" + path;
  if (ends_with(path, ".npy")) {
    const tilesim::npy::Array a = tilesim::npy::load(path);
    m.write_mem(addr, a.data);
  } else {
    const std::string b = read_file(path);
    m.write_mem(addr, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(b.data()), b.size()));
  }
}

struct MemOut {
  uint64_t addr, nbytes;
  std::string path;
};
// --mem-out ADDR:NBYTES=OUT.bin, parsed before the run so a typo costs no run.
MemOut mem_out_arg(const std::string& arg) {
  const auto [range, path] = tilesim::cli::split_assignment(arg, "--mem-out");
  const size_t colon = range.find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == range.size())
    raise(ErrorCode::Parse, "--mem-out", "expected ADDR:NBYTES=OUT.bin, got '" + arg + "'", "docs/linx.md#command-line");
  return {tilesim::cli::parse_integer(range.substr(0, colon), "--mem-out", false, ~uint64_t{0}),
          tilesim::cli::parse_integer(range.substr(colon + 1), "--mem-out", false, uint64_t{1} << 40), path};
}

int run_program(const tilesim::cli::Options& o, const std::string& base_dir) {
  std::vector<MemOut> outs;
  for (const auto& a : o.mem_out) outs.push_back(mem_out_arg(a));
  if (!o.acc_out.empty()) tilesim::cli::check_output_path(o.acc_out, "--acc-out");
  const tilesim::cli::Expectations expect = tilesim::cli::load_expectations(o);
  tilesim::cli::TraceFile trace(o);
  lx::Machine m;
  m.set_trace(trace.stream(), o.trace_values);
  for (const auto& r : o.regs) {
    const auto [name, value] = tilesim::cli::parse_reg_arg(r);
    m.set_reg(name, value);
  }
  for (const auto& t : o.tiles) push_tile_arg(m, t, base_dir);
  for (const auto& a : o.mem) mem_arg(m, a, base_dir);
  m.run(load_program(o.file));
  report(m.acc());
  for (const auto& mo : outs) {
    const auto b = m.read_mem(mo.addr, mo.nbytes);
    std::ofstream f(mo.path, std::ios::binary);
    if (!f) raise(ErrorCode::Io, "--mem-out", "cannot write '" + mo.path + "'", "docs/linx.md#command-line");
    f.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
  }
  if (!o.acc_out.empty()) {
    if (!m.acc().valid) raise(ErrorCode::Constraint, "--acc-out", "ACC holds no result", "docs/cli.md#run");
    tilesim::npy::save(o.acc_out, acc_array(m.acc()));
  }
  // --expect acc=FILE.npy (docs/cli.md#expect): ACC is the LinxISA run's result.
  const tilesim::npy::Array acc = m.acc().valid ? acc_array(m.acc()) : tilesim::npy::Array{};
  return tilesim::cli::check_expectations(
      o, expect,
      [&](const std::string& n) -> const tilesim::npy::Array* {
        return (n == "acc" || n == "ACC") && m.acc().valid ? &acc : nullptr;
      },
      m.acc().valid ? "acc" : "none: ACC holds no result");
}

int run_file(const tilesim::cli::Options& o) {
  return run_program(o, "");
}

// The bundled example: a linear layer y = x W + b (FP16 weights, FP32 bias), checked bit for bit
// against the expected ACC stored beside it.
int run_example(const tilesim::cli::Options&) {
  const std::string dir = tilesim::cli::data_dir("examples/linx");
  tilesim::cli::Options o;
  o.file = dir + "/linear_bias.s";
  o.tiles = {"T=x.npy:fp16:nz", "U=w.npy:fp16:zn", "N=bias.npy:fp32:nd"};
  o.regs = {"a0=48"};
  std::cout << "linear layer with bias: " << o.file << "\n";
  lx::Machine m;
  m.set_reg("a0", 48);
  for (const auto& t : o.tiles) push_tile_arg(m, t, dir);
  const auto words = load_program(o.file);
  std::cout << lx::disassemble(words, true);
  m.run(words);
  report(m.acc());
  const tilesim::npy::Array want = tilesim::npy::load(dir + "/expected.npy");
  const tilesim::npy::Array got = acc_array(m.acc());
  const bool ok = want.descr == got.descr && want.shape == got.shape && want.data == got.data;
  std::cout << (ok ? "matches expected.npy bit for bit\n" : "MISMATCH against expected.npy\n");
  return ok ? 0 : 2;
}

tilesim::cli::Hook hook([](tilesim::cli::Hooks& h) {
  h.asm_cmd = &asm_cmd;
  h.disasm_cmd = &disasm_cmd;
  h.run_by_ext.push_back({".s", &run_file});
  h.run_by_ext.push_back({".bin", &run_file});
  h.run_default.push_back({"linx", &run_example});
});
}  // namespace
