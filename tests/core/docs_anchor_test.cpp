// Every `docs/<file>.md#<anchor>` the sources cite (error messages, comments, Python docstrings) is
// a heading of that file in the repository's docs/ (spec 60 §3: messages cite anchors that exist),
// and no error message cites the spec, which users do not have (issue 21).
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {
namespace fs = std::filesystem;

std::string read(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// GitHub's heading slug: lower case, punctuation dropped, spaces to '-'.
std::string slug(const std::string& heading) {
  std::string s;
  for (unsigned char c : heading) {
    if (std::isalnum(c)) s += static_cast<char>(std::tolower(c));
    else if (c == ' ' || c == '-') s += '-';
    else if (c == '_') s += '_';
  }
  return s;
}

// The anchors of a Markdown file: its headings outside fenced code blocks.
std::set<std::string> anchors_of(const fs::path& md) {
  std::set<std::string> out;
  std::istringstream doc(read(md));
  bool fenced = false;
  for (std::string line; std::getline(doc, line);) {
    if (line.rfind("```", 0) == 0) fenced = !fenced;
    if (fenced || line.empty() || line[0] != '#') continue;
    const size_t sp = line.find(' ');
    if (sp == std::string::npos) continue;
    out.insert(slug(line.substr(sp + 1)));
  }
  return out;
}

bool source_file(const fs::path& p) {
  const std::string e = p.extension().string();
  return e == ".cpp" || e == ".hpp" || e == ".h" || e == ".c" || e == ".py" || e == ".pyi";
}

std::vector<fs::path> sources(const fs::path& root) {
  std::vector<fs::path> out;
  for (const char* dir : {"src", "include", "tools", "python"})
    for (const auto& e : fs::recursive_directory_iterator(root / dir))
      if (e.is_regular_file() && source_file(e.path())) out.push_back(e.path());
  return out;
}

bool anchor_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_'; }

TEST(Docs, EveryCitedAnchorExists) {
  const fs::path root = TILESIM_SOURCE_DIR;
  std::map<std::string, std::set<std::string>> docs;
  for (const auto& e : fs::directory_iterator(root / "docs"))
    if (e.path().extension() == ".md") docs[e.path().filename().string()] = anchors_of(e.path());
  int cited = 0;
  for (const fs::path& p : sources(root)) {
    const std::string text = read(p);
    for (size_t at = text.find("docs/"); at != std::string::npos; at = text.find("docs/", at + 1)) {
      const size_t md = text.find(".md#", at);
      if (md == std::string::npos) break;
      const std::string file = text.substr(at + 5, md + 3 - at - 5);
      bool name_ok = !file.empty();
      for (char c : file.substr(0, file.size() - 3)) name_ok = name_ok && anchor_char(c);
      if (!name_ok) continue;  // "docs/" not followed by "<name>.md#"
      size_t end = md + 4;
      while (end < text.size() && anchor_char(text[end])) ++end;
      const std::string anchor = text.substr(md + 4, end - md - 4);
      ++cited;
      const auto d = docs.find(file);
      if (d == docs.end()) {
        ADD_FAILURE() << p << " cites docs/" << file << ", which does not exist";
        continue;
      }
      EXPECT_TRUE(d->second.count(anchor)) << p << " cites a missing anchor docs/" << file << "#" << anchor;
    }
  }
  EXPECT_GT(cited, 150);
}

// An error message should cite docs/, never "[spec NN §M]" (or the bare "NN §M" section raise()
// turns into one). This counts the message citations of the spec in every source and fails if any
// appears (issue 21 §2).
// Comments may name the spec section a rule comes from (spec 70 item 9).
TEST(Docs, SpecCitationsInMessagesDoNotGrow) {
  constexpr int kRemaining = 0;
  const fs::path root = TILESIM_SOURCE_DIR;
  int found = 0;
  for (const fs::path& p : sources(root)) {
    const std::string rel = fs::relative(p, root).string();
    if (rel == "src/core/error.cpp") continue;  // the fallback for a spec section
    const bool py = p.extension() == ".py" || p.extension() == ".pyi";
    std::istringstream in(read(p));
    for (std::string line; std::getline(in, line);) {
      const std::string code = line.substr(0, line.find(py ? "#" : "//"));
      bool bad = code.find("[spec ") != std::string::npos;
      for (size_t q = code.find('"'); !py && !bad && q != std::string::npos; q = code.find('"', q + 1))
        bad = q + 5 < code.size() && std::isdigit(static_cast<unsigned char>(code[q + 1])) &&
              std::isdigit(static_cast<unsigned char>(code[q + 2])) && code.compare(q + 3, 3, " \xC2\xA7") == 0;
      found += bad;
    }
  }
  std::cout << found << " message citations of the spec remain\n";
  EXPECT_LE(found, kRemaining) << "a new error message cites the spec; cite docs/<file>.md#<anchor>";
}

}  // namespace
