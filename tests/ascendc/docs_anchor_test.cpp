// Every `docs/ascendc.md#anchor` an Ascend C error message cites is a heading of docs/ascendc.md
// (spec 60 §3: messages cite anchors that exist).
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace {

std::string read(const std::filesystem::path& p) {
  std::ifstream f(p);
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

TEST(AscendcDocs, EveryCitedAnchorExists) {
  const std::filesystem::path root = TILESIM_SOURCE_DIR;
  std::set<std::string> anchors;
  std::istringstream doc(read(root / "docs/ascendc.md"));
  for (std::string line; std::getline(doc, line);)
    if (line.rfind("#", 0) == 0) anchors.insert(slug(line.substr(line.find(' ') + 1)));
  const std::string cite = "docs/ascendc.md#";
  int cited = 0;
  for (const char* dir : {"src/ascendc", "include/tilesim/ascendc", "include/tilesim", "include/vendor"})
    for (const auto& e : std::filesystem::directory_iterator(root / dir)) {
      if (!e.is_regular_file()) continue;
      const std::string text = read(e.path());
      for (size_t at = text.find(cite); at != std::string::npos; at = text.find(cite, at + 1)) {
        size_t end = at + cite.size();
        while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '-' ||
                                     text[end] == '_'))
          ++end;
        const std::string anchor = text.substr(at + cite.size(), end - at - cite.size());
        ++cited;
        EXPECT_TRUE(anchors.count(anchor)) << e.path() << " cites a missing anchor #" << anchor;
      }
    }
  EXPECT_GT(cited, 10);
}

}  // namespace
