// Cross-checks the project's one encoding table against the v0.56 opcode table and engine-op
// numbering (spec 31 §0: lx_32.opc is the encoding authority), read from ../shared/vendor-data
// (never copied into the repository).
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "linx/encoding_table.hpp"
#include "tilesim/linx.hpp"

using namespace tilesim::linx;

namespace {
const std::string kDir = std::string(TILESIM_SOURCE_DIR) + "/../shared/vendor-data/linx/v0.56/";

struct OpcRow {
  std::string name;
  uint32_t mask = 0, match = 0;
};

// "31..27=DataType 26..25=2'b00 ... 0=1": literal values make the fixed bits.
std::vector<OpcRow> read_opc() {
  std::ifstream f(kDir + "opcodes/lx_32.opc");
  std::vector<OpcRow> out;
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    const size_t br = line.find(" [");
    const size_t colon = line.find("] : ");
    if (br == std::string::npos || colon == std::string::npos) continue;
    OpcRow r;
    r.name = line.substr(0, br);
    if (r.name.size() > 1 && r.name.front() == '"') r.name = r.name.substr(1, r.name.size() - 2);
    const std::string spec = line.substr(colon + 4, line.find(" ; ", colon) - colon - 4);
    std::istringstream is(spec);
    std::string tok;
    while (is >> tok) {
      const size_t eq = tok.find('=');
      const std::string bits = tok.substr(0, eq), val = tok.substr(eq + 1);
      unsigned hi, lo;
      const size_t dots = bits.find("..");
      hi = static_cast<unsigned>(std::stoul(bits.substr(0, dots)));
      lo = dots == std::string::npos ? hi : static_cast<unsigned>(std::stoul(bits.substr(dots + 2)));
      uint64_t v;
      const size_t q = val.find('\'');
      if (q != std::string::npos) {
        std::string digits;
        for (char c : val.substr(q + 2))
          if (c != '_') digits += c;
        v = std::stoull(digits, nullptr, val[q + 1] == 'b' ? 2 : 16);
      } else if (!val.empty() && std::isdigit(static_cast<unsigned char>(val[0]))) {
        v = std::stoull(val);
      } else {
        continue;  // a field
      }
      const uint32_t m = (hi - lo + 1 >= 32 ? 0xFFFFFFFFu : ((1u << (hi - lo + 1)) - 1)) << lo;
      r.mask |= m;
      r.match |= static_cast<uint32_t>(v << lo) & m;
    }
    out.push_back(r);
  }
  return out;
}

TEST(LinxOpcodeTable, EveryRowMatchesTheV056Table) {
  const auto opc = read_opc();
  ASSERT_GT(opc.size(), 50u) << "cannot read " << kDir << "opcodes/lx_32.opc";
  int checked = 0;
  for (const auto& r : enc::rows()) {
    const std::string mn = r.mnemonic;
    bool found = false;
    bool name_known = false;
    for (const auto& o : opc) {
      if (o.name != mn) continue;
      name_known = true;
      if (r.op == enc::Op::bstart_mpar || r.op == enc::Op::bstart_mseq || r.op == enc::Op::bstart_vpar ||
          r.op == enc::Op::bstart_vseq || r.op == enc::Op::bstart_fixp) {
        // Selectors tilesim decodes but does not run (spec 30 §6): the bits both fix agree.
        const uint32_t both = r.mask & o.mask;
        found = found || (r.match & both) == (o.match & both);
      } else {
        found = found || (r.mask == o.mask && r.match == o.match);
      }
    }
    EXPECT_TRUE(name_known) << mn << " is not a name of lx_32.opc";
    EXPECT_TRUE(found) << mn << std::hex << " mask 0x" << r.mask << " match 0x" << r.match
                       << " matches no lx_32.opc row of that name";
    ++checked;
  }
  EXPECT_EQ(checked, enc::kNumRows);
  // The alias headers the assembler accepts are the table's rows too.
  for (const auto& [alias, text] : std::vector<std::pair<std::string, std::string>>{
           {"BSTART.TLOAD", "BSTART.TLOAD FP16"}, {"BSTART.TSTORE", "BSTART.TSTORE FP16"},
           {"BSTART.TMOV", "BSTART.TMOV FP16"}, {"BSTART.ACCCVT", "BSTART.ACCCVT FP32"},
           {"BSTART.TMATMUL", "BSTART.TMATMUL FP16"}, {"BSTART.TMATMUL.ACC", "BSTART.TMATMUL.ACC FP16"}}) {
    const uint32_t w = assemble(text)[0];
    bool ok = false;
    for (const auto& o : opc)
      if (o.name == alias && (w & o.mask) == o.match) ok = true;
    EXPECT_TRUE(ok) << text;
  }
}

TEST(LinxOpcodeTable, TeplNumberingAndDataTypesMatchEngineOps) {
  std::ifstream f(kDir + "state/engine_ops.json");
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string json = ss.str();
  ASSERT_FALSE(json.empty());
  // "name": "TADD", ... "tile_opcode": 0 within one op object
  int seen = 0;
  size_t pos = 0;
  while ((pos = json.find("\"tile_opcode\": ", pos)) != std::string::npos) {
    const unsigned code = static_cast<unsigned>(std::stoul(json.substr(pos + 15)));
    const size_t n = json.rfind("\"name\": \"", pos);
    const std::string name = json.substr(n + 9, json.find('"', n + 9) - n - 9);
    ASSERT_NE(enc::tepl_name(code), nullptr) << name << " " << code;
    EXPECT_EQ(std::string(enc::tepl_name(code)), name) << code;
    ++seen;
    pos += 15;
  }
  EXPECT_EQ(seen, static_cast<int>(enc::kNumTepl));
  // cube_bstart_datatype: every named code is the project's name (case-insensitive)
  const size_t d = json.find("\"cube_bstart_datatype\"");
  const size_t e = json.find('}', d);
  // "code": "NAME" pairs, scanned by hand (no <regex>: GCC 12's false positive under the asan preset)
  const std::string block = json.substr(d + 22, e - d - 22);
  int types = 0;
  for (size_t p = block.find('"'); p != std::string::npos; p = block.find('"', p)) {
    const size_t k_end = block.find('"', p + 1);
    const size_t v_begin = block.find('"', k_end + 1), v_end = block.find('"', v_begin + 1);
    if (k_end == std::string::npos || v_begin == std::string::npos || v_end == std::string::npos) break;
    const unsigned code = static_cast<unsigned>(std::stoul(block.substr(p + 1, k_end - p - 1)));
    std::string want = block.substr(v_begin + 1, v_end - v_begin - 1);
    p = v_end + 1;
    if (want == "reserve" || want == "invalid") continue;
    std::string got = type_code(code).name;
    for (auto& c : want) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    for (auto& c : got) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    EXPECT_EQ(got, want) << code;
    ++types;
  }
  EXPECT_EQ(types, 25);
}

}  // namespace
