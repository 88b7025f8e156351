// The `tilesim` command line (spec 60 §5): option parsing and the CLI's own value parsers
// (tools/tilesim/args.cpp). Each row says what the text must mean or why it must be rejected.
#include <gtest/gtest.h>

#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "tilesim/args.hpp"
#include "tilesim/error.hpp"

namespace {
namespace cli = tilesim::cli;
using tilesim::formats::DType;
using tilesim::linx::Layout;

std::string parse_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const tilesim::Error& e) {
    EXPECT_EQ(e.code(), tilesim::ErrorCode::Parse);
    return e.what();
  }
  ADD_FAILURE() << "accepted";
  return "";
}

TEST(CliArgs, RegValues) {
  struct Row {
    const char* text;
    const char* name;
    uint64_t value;
  };
  const Row rows[] = {
      {"a0=64", "a0", 64},                        // spec 60 §5 example
      {"a0=0x40", "a0", 64},                      // hexadecimal
      {"a0=0X4f", "a0", 0x4F},                    // either case
      {"a1=0b1011", "a1", 11},                    // binary
      {"a1=010", "a1", 10},                       // leading zero is still decimal, not octal
      {"sp=-16", "sp", 0xFFFFFFFFFFFFFFF0ull},    // '-': two's complement
      {"sp=-0x10", "sp", 0xFFFFFFFFFFFFFFF0ull},  // also for hexadecimal
      {"t0=18446744073709551615", "t0", ~0ull},   // 2^64 - 1, the largest
      {"t0=-9223372036854775808", "t0", 0x8000000000000000ull},  // -2^63, the most negative
      {"R5=0", "R5", 0},
  };
  for (const Row& r : rows) {
    const auto [name, v] = cli::parse_reg_arg(r.text);
    EXPECT_EQ(name, r.name) << r.text;
    EXPECT_EQ(v, r.value) << r.text;
  }
}

TEST(CliArgs, RegValuesRejected) {
  struct Row {
    const char* text;
    const char* why;
  };
  const Row rows[] = {
      {"a0", "expected NAME=VALUE"},
      {"=5", "expected NAME=VALUE"},
      {"a0=", "expected NAME=VALUE"},
      {"a0=18446744073709551616", "out of range"},  // 2^64
      {"a0=-9223372036854775809", "out of range"},  // below -2^63
      {"a0=0x", "no digits"},
      {"a0=-", "no digits"},
      {"a0= 5", "unexpected character ' '"},  // strtoull would have skipped the space
      {"a0=+5", "unexpected character '+'"},
      {"a0=12abc", "unexpected character 'a'"},
      {"a0=0b102", "unexpected character '2'"},
      {"a0=0x1g", "unexpected character 'g'"},
      {"a0=--1", "unexpected character '-'"},
  };
  for (const Row& r : rows) {
    const std::string msg = parse_error([&] { cli::parse_reg_arg(r.text); });
    EXPECT_NE(msg.find(r.why), std::string::npos) << r.text << ": " << msg;
    EXPECT_NE(msg.find("--reg"), std::string::npos) << msg;
    EXPECT_NE(msg.find("[docs/cli.md#run]"), std::string::npos) << msg;
  }
}

TEST(CliArgs, Words) {
  EXPECT_EQ(cli::parse_word("0x08131181"), 0x08131181u);  // spec 60 §5 example
  EXPECT_EQ(cli::parse_word("4294967295"), 0xFFFFFFFFu);
  EXPECT_EQ(cli::parse_word("0b1"), 1u);
  EXPECT_NE(
      parse_error([] { cli::parse_word("4294967296"); }).find("out of range (largest 4294967295)"),
      std::string::npos);
  EXPECT_NE(parse_error([] { cli::parse_word("0x100000000"); }).find("out of range"),
            std::string::npos);
  EXPECT_NE(parse_error([] { cli::parse_word("-1"); }).find("no sign allowed"), std::string::npos);
  EXPECT_NE(parse_error([] { cli::parse_word(""); }).find("--words"), std::string::npos);
}

TEST(CliArgs, TileValues) {
  struct Row {
    const char* text;
    char q;
    const char* path;
    DType t;
    Layout l;
  };
  const Row rows[] = {
      {"T=x.npy:fp16:nz", 'T', "x.npy", DType::fp16, Layout::nz},
      {"U=w.npy:fp16:zn", 'U', "w.npy", DType::fp16, Layout::zn},
      {"N=bias.npy:fp32:nd", 'N', "bias.npy", DType::fp32, Layout::nd},
      {"T=C:/d/x.npy:e4m3:nd", 'T', "C:/d/x.npy", DType::e4m3, Layout::nd},  // ':' inside the path
      {"U=w.npy:int4:zn", 'U', "w.npy", DType::s4, Layout::zn},              // a dtype alias
  };
  for (const Row& r : rows) {
    const cli::TileArg a = cli::parse_tile_arg(r.text);
    EXPECT_EQ(a.queue, r.q) << r.text;
    EXPECT_EQ(a.path, r.path) << r.text;
    EXPECT_EQ(a.dtype, r.t) << r.text;
    EXPECT_EQ(a.layout, r.l) << r.text;
  }
  for (const char* bad :
       {"TU=x.npy:fp16:nz", "T=x.npy:fp16", "T=:fp16:nz", "T=x.npy", "x.npy:fp16:nz", "T=x:fp16:"})
    EXPECT_NE(parse_error([&] { cli::parse_tile_arg(bad); }).find("--tile"), std::string::npos)
        << bad;
  EXPECT_NE(parse_error([] { cli::parse_tile_arg("T=x.npy:fp17:nz"); }).find("fp17"),
            std::string::npos);
}

TEST(CliArgs, Assignment) {
  EXPECT_EQ(cli::split_assignment("x=a=b.npy", "--in"),
            (std::pair<std::string, std::string>{"x", "a=b.npy"}));
  EXPECT_NE(
      parse_error([] { cli::split_assignment("x.npy", "--in"); }).find("--in: expected NAME=VALUE"),
      std::string::npos);
}

struct Parsed {
  int status;
  cli::Subcommand cmd;
  cli::Options o;
  std::string out, err;
};

Parsed parse(std::vector<const char*> args) {
  args.insert(args.begin(), "tilesim");
  Parsed p{};
  std::ostringstream out, err;
  p.status =
      cli::parse_command_line(static_cast<int>(args.size()), args.data(), p.o, p.cmd, out, err);
  p.out = out.str();
  p.err = err.str();
  return p;
}

TEST(CliArgs, CommandLine) {
  Parsed p = parse({"run", "f.s", "--reg", "a0=48", "--tile", "T=x.npy:fp16:nz", "--tile",
                    "U=w.npy:fp16:zn", "--acc-out", "acc.npy"});
  EXPECT_EQ(p.status, -1);
  EXPECT_EQ(p.cmd, cli::Subcommand::run);
  EXPECT_EQ(p.o.file, "f.s");
  EXPECT_EQ(p.o.regs, (std::vector<std::string>{"a0=48"}));
  EXPECT_EQ(p.o.tiles.size(), 2u);
  EXPECT_EQ(p.o.acc_out, "acc.npy");

  // one value per --tile/--reg: the program after them stays the program
  p = parse({"run", "--tile", "T=x.npy:fp16:nz", "--reg", "a0=1", "prog.s"});
  EXPECT_EQ(p.status, -1);
  EXPECT_EQ(p.o.file, "prog.s");
  EXPECT_EQ(p.o.tiles, (std::vector<std::string>{"T=x.npy:fp16:nz"}));
  EXPECT_EQ(p.o.regs, (std::vector<std::string>{"a0=1"}));

  // PTOAS func.func files: --arg per value, --entry, --max-mem (spec 60 §5)
  p = parse({"run", "--arg", "s=0.5", "--arg", "f=true", "k.pto", "--entry", "scale", "--max-mem",
             "4096"});
  EXPECT_EQ(p.status, -1);
  EXPECT_EQ(p.o.file, "k.pto");
  EXPECT_EQ(p.o.args, (std::vector<std::string>{"s=0.5", "f=true"}));
  EXPECT_EQ(p.o.entry, "scale");
  EXPECT_EQ(p.o.max_mem, "4096");

  p = parse({"disasm", "--words", "0x08131181", "0x06400043", "--fold"});
  EXPECT_EQ(p.status, -1);
  EXPECT_EQ(p.cmd, cli::Subcommand::disasm);
  EXPECT_EQ(p.o.words.size(), 2u);
  EXPECT_TRUE(p.o.fold);

  p = parse({"asm", "p.s", "-o", "p.bin", "--hex"});
  EXPECT_EQ(p.cmd, cli::Subcommand::asm_);
  EXPECT_EQ(p.o.out, "p.bin");
  EXPECT_TRUE(p.o.hex);

  p = parse({"--version"});
  EXPECT_EQ(p.status, 0);
  EXPECT_NE(p.out.find("tilesim "), std::string::npos);
  p = parse({"run", "--help"});
  EXPECT_EQ(p.status, 0);
  EXPECT_NE(p.out.find("--tile"), std::string::npos);

  // usage errors: exit status 1 with a message (spec 60 §5)
  for (const std::vector<const char*>& bad : std::vector<std::vector<const char*>>{
           {}, {"frobnicate"}, {"asm"}, {"run", "--bogus"}, {"run", "--reg"}, {"disasm"}}) {
    p = parse(bad);
    EXPECT_EQ(p.status, 1);
    EXPECT_FALSE(p.err.empty());
  }
}

}  // namespace
