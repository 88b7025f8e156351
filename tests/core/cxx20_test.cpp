// Below C++20, including a tilesim C++ header gives the one-line #error of tilesim/cxx20.hpp
// first; C and C++17 code including only tpu_kernel.h still compiles (issue 21 §5).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>

namespace {
std::string run(const std::string& compiler, const std::string& std, const std::string& header, const std::string& tag,
                int& status) {
  const std::string dir = std::string(TILESIM_BINARY_DIR) + "/cxx20_test";
  std::system(("mkdir -p '" + dir + "'").c_str());
  const bool c = compiler == "gcc";
  const std::string src = dir + "/" + tag + (c ? ".c" : ".cpp"), log = dir + "/" + tag + ".log";
  std::ofstream(src) << "#include " << header << "\nint main(void) { return 0; }\n";
  const std::string cmd = compiler + " -std=" + std + " -fsyntax-only -I'" TILESIM_SOURCE_DIR "/include' -I'" TILESIM_SOURCE_DIR
                          "/include/vendor' '" + src + "' > '" + log + "' 2>&1";
  status = std::system(cmd.c_str());
  std::ifstream in(log);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}
}  // namespace

TEST(Cxx20, OneLineErrorBelowCxx20) {
  if (std::system("g++ --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "g++ not on PATH";
  for (const char* h : {"<tilesim/pto.hpp>", "<tilesim/linx.hpp>", "\"kernel_operator.h\"", "<pto/pto-inst.hpp>",
                        "<tilesim/formats.hpp>"}) {
    int status = 0;
    const std::string out = run("g++", "c++17", h, "cxx17", status);
    EXPECT_NE(status, 0) << h;
    const size_t first = out.find("error:");
    ASSERT_NE(first, std::string::npos) << out;
    EXPECT_EQ(out.compare(first, 36, "error: #error \"tilesim needs C++20: "), 0) << h << "\n" << out.substr(0, 600);
  }
}

TEST(Cxx20, TpuKernelHStaysUsableFromCAndOlderCxx) {
  if (std::system("gcc --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "gcc not on PATH";
  int status = 1;
  std::string out = run("gcc", "c99", "\"tpu_kernel.h\"", "c99", status);
  EXPECT_EQ(status, 0) << out;
  out = run("g++", "c++17", "\"tpu_kernel.h\"", "tpu17", status);
  EXPECT_EQ(status, 0) << out;
  out = run("g++", "c++20", "<tilesim/pto.hpp>", "pto20", status);
  EXPECT_EQ(status, 0) << out;
}
