// Ascend C debug prints (docs/ascendc.md#debug-prints): AscendC::printf / PRINTF for every
// conversion (expected text: the C standard's printf output, worked by hand), format errors instead
// of undefined behaviour, DumpTensor in the vendor's format (header and value list as its docs show
// them), the "[AIV Block i/n] " prefix and block-ordered output of ICPU_RUN_KF, and a failing
// kernel assert failing only its block's launch with an error naming block, condition and
// file:line.
#undef NDEBUG  // kernel asserts are on (the vendor's, like <cassert>'s, vanish under NDEBUG)
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <functional>
#include <string>

#include "kernel_operator.h"
#include "tikicpulib.h"
#include "tilesim/parallel.hpp"

namespace {

using tilesim::ErrorCode;

std::string out_of(const std::function<void()>& f) {
  testing::internal::CaptureStdout();
  try {
    f();
  } catch (...) {
    (void)testing::internal::GetCapturedStdout();
    throw;
  }
  return testing::internal::GetCapturedStdout();
}

std::string hex_addr(const void* p) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%llx",
                static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(p)));
  return b;
}

struct DebugPrint : ::testing::Test {
  void SetUp() override {
    AscendC::set_product("atlas_a2");
    AscendC::SetKernelMode(KernelMode::AIV_MODE);
  }
  void TearDown() override {
    tilesim::set_num_threads(0);
    AscendC::SetKernelMode(KernelMode::AIV_MODE);
  }
};

// ---- printf, outside a launch: no block, no prefix ----

TEST_F(DebugPrint, EveryIntegerConversion) {
  EXPECT_EQ(out_of([] { AscendC::printf("fmt string %d\n", 0x123); }),
            "fmt string 291\n");  // the vendor doc's
  EXPECT_EQ(out_of([] { AscendC::printf("%d %i %u", -7, int8_t(-3), 7u); }), "-7 -3 7");
  EXPECT_EQ(out_of([] { AscendC::printf("%x %X %o %#x %#o", 255, 255u, 8, 255, 8); }),
            "ff FF 10 0xff 010");
  EXPECT_EQ(out_of([] {
              AscendC::printf("%ld %lld %lu %llx %zu", int64_t(-5), int64_t(1) << 40, uint64_t(9),
                              uint64_t(0xABCDEF0123), size_t(12));
            }),
            "-5 1099511627776 9 abcdef0123 12");
  // The argument's width decides: 64 bits print in full under %d; int8 -1 promotes to int.
  EXPECT_EQ(out_of([] {
              AscendC::printf("%d|%x|%x|%x", int64_t(1) << 40, int32_t(-1), int64_t(-1),
                              int8_t(-1));
            }),
            "1099511627776|ffffffff|ffffffffffffffff|ffffffff");
  // hh and h narrow as C does; bool and char print as integers.
  EXPECT_EQ(out_of([] { AscendC::printf("%hhd %hhu %hd %hu", 300, -1, 70000, -1); }),
            "44 255 4464 65535");
  EXPECT_EQ(out_of([] { AscendC::printf("%d %u %d %c", true, false, 'A', 'A'); }), "1 0 65 A");
  EXPECT_EQ(out_of([] { AscendC::printf("%u %d", uint32_t(0xFFFFFFFF), uint32_t(0xFFFFFFFF)); }),
            "4294967295 -1");
  EXPECT_EQ(
      out_of([] { AscendC::printf("[%5d][%-5d][%05d][%+d][% d][%.3d]", 42, 42, 42, 42, 42, 7); }),
      "[   42][42   ][00042][+42][ 42][007]");
  EXPECT_EQ(out_of([] { AscendC::printf("[%*d][%-*d][%.*d][%*d]", 4, 1, 3, 2, 2, 3, -3, 4); }),
            "[   1][2  ][03][4  ]");
  EXPECT_EQ(out_of([] { AscendC::printf("[%3c][%-3c]", 'x', 'y'); }), "[  x][y  ]");
}

TEST_F(DebugPrint, FloatConversionsTakeFloatHalfAndBfloat16) {
  EXPECT_EQ(out_of([] { AscendC::printf("fmt string %f\n", 3.14f); }), "fmt string 3.140000\n");
  EXPECT_EQ(out_of([] { AscendC::printf("%f %f %f", half(1.5f), bfloat16_t(-2.0f), 0.1); }),
            "1.500000 -2.000000 0.100000");
  EXPECT_EQ(out_of([] { AscendC::printf("%F %e %E %g %G", 2.5f, 1234.5f, 0.00025f, 1e-5, 1e20); }),
            "2.500000 1.234500e+03 2.500000E-04 1e-05 1E+20");
  EXPECT_EQ(out_of([] { AscendC::printf("%a %A", 1.0f, half(0.5f)); }), "0x1p+0 0X1P-1");
  EXPECT_EQ(out_of([] {
              AscendC::printf("[%8.3f][%-8.2f][%08.1f][%+.0f][%#.0f]", 3.14159f, 2.5f, -1.25f, 2.0,
                              3.0);
            }),
            "[   3.142][2.50    ][-00001.2][+2][3.]");
  EXPECT_EQ(out_of([] { AscendC::printf("%lf %Lf", float(61.556f), 1.0L); }), "61.556000 1.000000");
  EXPECT_EQ(out_of([] {
              AscendC::printf("%f %f %f", half::from_bits(0x7C00), -half::from_bits(0x7C00),
                              65504.0f);
            }),
            "inf -inf 65504.000000");
}

TEST_F(DebugPrint, StringsPointersAndPercent) {
  char buf[] = "mutable";
  const char* none = nullptr;
  EXPECT_EQ(out_of([&] {
              AscendC::printf("%s|%s|%.3s|%6s|%-6s|", "AscendC", buf, "abcdef", "ab", "ab");
            }),
            "AscendC|mutable|abc|    ab|ab    |");
  // A null string prints "(null)" and a null pointer "(nil)", as the CPU twin's glibc printf does.
  EXPECT_EQ(out_of([&] { AscendC::printf("%s %p %p", none, nullptr, static_cast<int*>(nullptr)); }),
            "(null) (nil) (nil)");
  int b = 0x123;
  int* c = &b;
  char want[64];
  std::snprintf(want, sizeof want, "TEST %p\n", static_cast<void*>(c));
  EXPECT_EQ(out_of([&] { AscendC::printf("TEST %p\n", c); }), want);
  EXPECT_EQ(out_of([] { AscendC::printf("100%% done, %d%%", 5); }), "100% done, 5%");
  EXPECT_EQ(out_of([] { AscendC::printf("no conversions\n"); }), "no conversions\n");
  EXPECT_EQ(out_of([] { AscendC::printf(""); }), "");
}

TEST_F(DebugPrint, PrintfAndPRINTFAgree) {
  EXPECT_EQ(out_of([] { AscendC::PRINTF("1 fmt string d %d\n", 6666); }), "1 fmt string d 6666\n");
  EXPECT_EQ(out_of([] { AscendC::PRINTF("1 fmt string lf %lf\n", float(61.556)); }),
            "1 fmt string lf 61.556000\n");
  using namespace AscendC;  // the vendor samples' spelling
  EXPECT_EQ(out_of([] { printf("%d-%s\n", 1, "x"); }), "1-x\n");
}

// A format that does not fit its arguments is an error before anything is printed.
TEST_F(DebugPrint, BadFormatsAreErrorsNotUndefinedBehaviour) {
  struct Case {
    std::function<void()> call;
    const char* want;
  };
  const Case cases[] = {
      {[] { AscendC::printf("%d", 1.5f); },
       "conversion 1 `%d` takes an integer (or bool), but argument 1 is float"},
      {[] { AscendC::printf("x=%f", 3); }, "conversion 1 `%f` takes a floating-point value"},
      {[] { AscendC::printf("%s", 42); },
       "conversion 1 `%s` takes a C string (char*), but argument 1 is int32_t"},
      {[] { AscendC::printf("%p", 1.0); },
       "conversion 1 `%p` takes a pointer, but argument 1 is double"},
      {[] { AscendC::printf("%d %d", 1); },
       "conversion 2 `%d` needs a value argument 2, but only 1 argument(s)"},
      {[] { AscendC::printf("%d", 1, 2); },
       "it has 1 conversion(s) taking 1 argument(s), but 2 argument(s)"},
      {[] { AscendC::printf("%k", 1); },
       "conversion 1 `%k` has the unknown conversion character 'k'"},
      {[] { AscendC::printf("%n", nullptr); }, "tilesim does not support %n"},
      {[] { AscendC::printf("100%"); }, "ends inside conversion 1 `%`"},
      {[] { AscendC::printf("%5"); }, "ends inside conversion 1 `%5`"},
      {[] { AscendC::printf("%#d", 1); }, "`%#d` has the '#' flag"},
      {[] { AscendC::printf("%.2c", 'a'); }, "`%.2c` has a precision, which c and p do not take"},
      {[] { AscendC::printf("%05s", "a"); }, "`%05s` has the '0' flag"},
      {[] { AscendC::printf("%ls", "a"); }, "`%ls` has the length modifier 'l'"},
      {[] { AscendC::printf("%hf", 1.0f); }, "`%hf` has the length modifier 'h'"},
      {[] { AscendC::printf("%Ld", 1); }, "`%Ld` has the length modifier 'L'"},
      {[] { AscendC::printf("%99999d", 1); },
       "has a width larger than the largest tilesim prints, 4096"},
      {[] { AscendC::printf("%*d", 1.0f, 2); },
       "takes its width from an int argument, but argument 1 is float"},
      {[] { AscendC::printf("%*d", 100000, 2); }, "has width 100000 (argument 1)"},
      {[] { AscendC::printf(nullptr); }, "the format string is a null pointer"},
      {[] { AscendC::printf("tab\there %q\n", 1); }, "format \"tab\\there %q\\n\""},
      {[] { AscendC::PRINTF("%d", "s"); },
       "PRINTF: format \"%d\": conversion 1 `%d` takes an integer"},
  };
  for (const Case& c : cases) {
    std::string printed = "unset";
    try {
      testing::internal::CaptureStdout();
      c.call();
      printed = testing::internal::GetCapturedStdout();
      ADD_FAILURE() << "no error; printed: " << printed << " (wanted: " << c.want << ")";
    } catch (const tilesim::Error& e) {
      printed = testing::internal::GetCapturedStdout();
      EXPECT_EQ(e.code(), ErrorCode::Constraint) << e.what();
      EXPECT_NE(std::string(e.what()).find(c.want), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("[docs/ascendc.md#debug-prints]"), std::string::npos)
          << e.what();
      EXPECT_EQ(printed, "") << e.what();
    }
  }
}

// ---- inside ICPU_RUN_KF: prefix and block order ----

extern "C" __global__ __aicore__ void chatty(GM_ADDR) {
  const int64_t b = AscendC::GetBlockIdx();
  AscendC::printf("step 1 of block %ld\n", b);
  AscendC::SyncAll();  // every block is live here at once: unbuffered, their lines would interleave
  AscendC::printf("step 2 of block %ld, %s\n", b, "after SyncAll");
  AscendC::PRINTF("a line");
  AscendC::printf(" and its end\n");
}

TEST_F(DebugPrint, BlocksPrintWithPrefixInBlockOrder) {
  for (unsigned threads : {1u, 4u}) {
    tilesim::set_num_threads(threads);
    const std::string got = out_of([] { ICPU_RUN_KF(chatty, 4, nullptr); });
    std::string want;
    for (int b = 0; b < 4; ++b) {
      const std::string p = "[AIV Block " + std::to_string(b) + "/4] ";
      want += p + "step 1 of block " + std::to_string(b) + "\n" + p + "step 2 of block " +
              std::to_string(b) + ", after SyncAll\n" + p + "a line" + p + " and its end\n";
    }
    EXPECT_EQ(got, want) << threads << " threads";
  }
}

TEST_F(DebugPrint, MixModeNumbersVectorCores) {
  // MIX_MODE: 2 vector cores per block; the prefix counts vector cores, as the device's does.
  AscendC::SetKernelMode(KernelMode::MIX_MODE);
  const std::string got = out_of([] {
    ICPU_RUN_KF([](GM_ADDR) { AscendC::printf("sub %ld\n", AscendC::GetSubBlockIdx()); }, 2,
                nullptr);
  });
  EXPECT_EQ(got,
            "[AIV Block 0/4] sub 0\n[AIV Block 1/4] sub 1\n[AIV Block 2/4] sub 0\n[AIV Block 3/4] "
            "sub 1\n");
}

TEST_F(DebugPrint, BadFormatInABlockFailsItsLaunch) {
  testing::internal::CaptureStderr();
  try {
    (void)out_of([] {
      ICPU_RUN_KF(
          [](GM_ADDR) {
            AscendC::printf("ok %ld\n", AscendC::GetBlockIdx());
            if (AscendC::GetBlockIdx() == 1) AscendC::printf("%s\n", 1);
          },
          2, nullptr);
    });
    ADD_FAILURE() << "no error";
  } catch (const tilesim::Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Constraint);
    EXPECT_NE(std::string(e.what()).find("block 1 of 2: printf: format \"%s\\n\""),
              std::string::npos)
        << e.what();
  }
  (void)testing::internal::GetCapturedStderr();
}

// ---- assert ----

const char* g_assert_func = nullptr;
int g_assert_line = 0;

extern "C" __global__ __aicore__ void assert_in_block_2(GM_ADDR) {
  if (AscendC::GetBlockIdx() == 0)
    g_assert_func = __PRETTY_FUNCTION__, g_assert_line = __LINE__ + 2;
  AscendC::printf("before %ld\n", AscendC::GetBlockIdx());
  assert(AscendC::GetBlockIdx() != 2);
  AscendC::printf("after %ld\n", AscendC::GetBlockIdx());
}

TEST_F(DebugPrint, FailedAssertFailsItsBlockAndNamesBlockConditionAndLine) {
  tilesim::set_num_threads(2);
  std::string printed;
  testing::internal::CaptureStderr();
  try {
    printed = out_of([] { ICPU_RUN_KF(assert_in_block_2, 4, nullptr); });
    ADD_FAILURE() << "no error";
  } catch (const tilesim::Error& e) {
    const std::string w = e.what();
    const std::string where = std::string(__FILE__) + ":" + std::to_string(g_assert_line);
    EXPECT_EQ(e.code(), ErrorCode::Fault);
    EXPECT_EQ(w,
              "ICPU_RUN_KF(assert_in_block_2): block 2 of 4: assert: Assertion "
              "`AscendC::GetBlockIdx() != 2' "
              "failed at " +
                  where + " in " + g_assert_func + " [docs/ascendc.md#debug-prints]");
  }
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("block 2 of 4: assert: Assertion"), std::string::npos) << err;
  // The other blocks ran to their end; block 2 printed up to the assert, then the vendor's line.
  testing::internal::CaptureStderr();
  testing::internal::CaptureStdout();
  try {
    ICPU_RUN_KF(assert_in_block_2, 4, nullptr);
  } catch (const tilesim::Error&) {
  }
  printed = testing::internal::GetCapturedStdout();
  (void)testing::internal::GetCapturedStderr();
  const std::string where = std::string(__FILE__) + ":" + std::to_string(g_assert_line);
  EXPECT_EQ(printed,
            "[AIV Block 0/4] before 0\n[AIV Block 0/4] after 0\n"
            "[AIV Block 1/4] before 1\n[AIV Block 1/4] after 1\n"
            "[AIV Block 2/4] before 2\n"
            "[AIV Block 2/4] [ASSERT] " +
                where + ": " + g_assert_func +
                ": Assertion `AscendC::GetBlockIdx() != 2' failed.\n"
                "[AIV Block 3/4] before 3\n[AIV Block 3/4] after 3\n");
}

TEST_F(DebugPrint, AssertWithAMessage) {
  const int assertFlag = 10;
  const int line = __LINE__ + 3;
  try {
    const std::string printed = out_of(
        [&] { ascendc_assert(assertFlag != 10, "The assertFlag value is %d.\n", assertFlag); });
    ADD_FAILURE() << printed;
  } catch (const tilesim::Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Fault);
    const std::string w = e.what();
    EXPECT_NE(w.find("assert: Assertion `assertFlag != 10' failed at " + std::string(__FILE__) +
                     ":" + std::to_string(line)),
              std::string::npos)
        << w;
    EXPECT_NE(w.find(": The assertFlag value is 10. [docs/ascendc.md#debug-prints]"),
              std::string::npos)
        << w;
  }
  // Outside a launch: no block prefix; the vendor's two-argument spelling through `assert`.
  testing::internal::CaptureStdout();
  EXPECT_THROW(assert(assertFlag == 3, "flag %d", assertFlag), tilesim::Error);
  const std::string printed = testing::internal::GetCapturedStdout();
  EXPECT_EQ(printed.rfind("[ASSERT] " + std::string(__FILE__) + ":", 0), 0u) << printed;
  EXPECT_NE(printed.find(": Assertion `assertFlag == 3' failed. flag 10\n"), std::string::npos)
      << printed;
  // A true condition prints nothing; ASSERT is the kernel macros' spelling of the same assert.
  EXPECT_EQ(out_of([&] {
              assert(assertFlag == 10);
              ASSERT(assertFlag > 0);
              ascendc_assert(true, "x");
            }),
            "");
  testing::internal::CaptureStdout();
  EXPECT_THROW(ASSERT(assertFlag < 0), tilesim::Error);
  EXPECT_NE(testing::internal::GetCapturedStdout().find("Assertion `assertFlag < 0' failed.\n"),
            std::string::npos);
}

TEST_F(DebugPrint, AssertMessageThatDoesNotFormat) {
  try {
    ascendc_assert(1 == 2, "%s", 5);
    ADD_FAILURE() << "no error";
  } catch (const tilesim::Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Fault);
    EXPECT_NE(std::string(e.what()).find("Assertion `1 == 2' failed at"), std::string::npos)
        << e.what();
    EXPECT_NE(
        std::string(e.what()).find("its message could not be formatted: assert: format \"%s\""),
        std::string::npos)
        << e.what();
  }
}

// ---- DumpTensor ----

struct Ub {
  AscendC::TPipe pipe;
  AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
  Ub() { pipe.InitBuffer(buf, 256); }
};

std::string head(const std::string& addr, const char* type, const char* pos, int size,
                 int desc = 5) {
  return "DumpTensor: desc=" + std::to_string(desc) + ", addr=" + addr + ", data_type=" + type +
         ", position=" + pos + ", dump_size=" + std::to_string(size) + "\n";
}

TEST_F(DebugPrint, DumpTensorOfHalfFloatAndIntegerTensors) {
  Ub ub;
  AscendC::LocalTensor<half> h = ub.buf.Get<half>();
  const float hv[] = {1.5f, -2.0f, 0.0f, 65504.0f, 0.1f};
  for (int i = 0; i < 5; ++i) h.SetValue(i, half(hv[i]));
  char addr[32];
  std::snprintf(addr, sizeof addr, "0x%llx", static_cast<unsigned long long>(h.address()));
  // 0.1 is 0x2E66 in fp16: 0.0999755859375.
  EXPECT_EQ(
      out_of([&] { AscendC::DumpTensor(h, 5, 5); }),
      head(addr, "float16", "UB", 5) + "[1.500000, -2.000000, 0.000000, 65504.000000, 0.099976]\n");

  AscendC::LocalTensor<float> f = ub.buf.Get<float>();
  f.SetValue(0, 3.25f);
  f.SetValue(1, -0.5f);
  f.SetValue(2, 1e10f);
  EXPECT_EQ(out_of([&] { AscendC::DumpTensor(f, 56, 3); }),
            head(addr, "float32", "UB", 3, 56) + "[3.250000, -0.500000, 10000000000.000000]\n");

  AscendC::LocalTensor<int32_t> i32 = ub.buf.Get<int32_t>();
  i32.SetValue(0, -7);
  i32.SetValue(1, 2147483647);
  EXPECT_EQ(out_of([&] { AscendC::DumpTensor(i32, 0, 2); }),
            head(addr, "int32", "UB", 2, 0) + "[-7, 2147483647]\n");
  AscendC::LocalTensor<uint8_t> u8 = ub.buf.Get<uint8_t>();
  u8.SetValue(0, 255);
  AscendC::LocalTensor<int8_t> s8 = ub.buf.Get<int8_t>();
  EXPECT_EQ(
      out_of([&] {
        AscendC::DumpTensor(u8, 1, 1);
        AscendC::DumpTensor(s8, 2, 1);
      }),
      head(addr, "uint8", "UB", 1, 1) + "[255]\n" + head(addr, "int8", "UB", 1, 2) + "[-1]\n");
  AscendC::LocalTensor<bfloat16_t> bf = ub.buf.Get<bfloat16_t>();
  bf.SetValue(0, bfloat16_t(1.0f));
  EXPECT_EQ(out_of([&] { AscendC::DumpTensor(bf, 3, 1); }),
            head(addr, "bfloat16", "UB", 1, 3) + "[1.000000]\n");
  // A view from an offset reports its own address.
  AscendC::LocalTensor<float> tail = f[2];
  std::snprintf(addr, sizeof addr, "0x%llx", static_cast<unsigned long long>(tail.address()));
  EXPECT_EQ(out_of([&] { AscendC::DumpTensor(tail, 9, 1); }),
            head(addr, "float32", "UB", 1, 9) + "[10000000000.000000]\n");
  // dumpSize 0 prints nothing, as on the device.
  EXPECT_EQ(out_of([&] { AscendC::DumpTensor(f, 1, 0); }), "");
}

TEST_F(DebugPrint, DumpTensorOfAGlobalTensor) {
  auto* p = static_cast<int16_t*>(AscendC::GmAlloc(8 * sizeof(int16_t)));
  for (int i = 0; i < 8; ++i) p[i] = int16_t(i * 1000 - 3000);
  AscendC::GlobalTensor<int16_t> g;
  g.SetGlobalBuffer(p, 8);
  EXPECT_EQ(out_of([&] { AscendC::DumpTensor(g, 7, 4); }),
            head(hex_addr(p), "int16", "GM", 4, 7) + "[-3000, -2000, -1000, 0]\n");
  EXPECT_EQ(out_of([&] { AscendC::DumpTensor(g[6], 7, 2); }),
            head(hex_addr(p + 6), "int16", "GM", 2, 7) + "[3000, 4000]\n");
  try {
    AscendC::DumpTensor(g[6], 7, 3);
    ADD_FAILURE() << "no error";
  } catch (const tilesim::Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Bounds);
    EXPECT_STREQ(e.what(),
                 "DumpTensor: dumpSize 3 exceeds the 2 elements of the GM tensor "
                 "[docs/ascendc.md#debug-prints]");
  }
  AscendC::GmFree(p);
}

TEST_F(DebugPrint, DumpTensorWithAShape) {
  Ub ub;
  AscendC::LocalTensor<int32_t> x = ub.buf.Get<int32_t>();
  for (int i = 0; i < 8; ++i) x.SetValue(i, i + 1);
  char addr[32];
  std::snprintf(addr, sizeof addr, "0x%llx", static_cast<unsigned long long>(x.address()));
  const uint32_t s23[] = {2, 3}, s22[] = {2, 2}, s33[] = {3, 3}, s222[] = {2, 2, 2};
  EXPECT_EQ(out_of([&] { AscendC::DumpTensor(x, 2, 6, AscendC::ShapeInfo(2, s23)); }),
            head(addr, "int32", "UB", 6, 2) + "[[1,2,3],\n[4,5,6]]\n");
  EXPECT_EQ(
      out_of([&] { AscendC::DumpTensor(x, 3, 6, AscendC::ShapeInfo(2, s22)); }),
      head(addr, "int32", "UB", 6, 3) +
          "shape is [2, 2], dumpSize is 6, dumpSize is greater than shapeSize.\n[[1,2],\n[3,4]]\n");
  EXPECT_EQ(
      out_of([&] { AscendC::DumpTensor(x, 4, 6, AscendC::ShapeInfo(2, s33)); }),
      head(addr, "int32", "UB", 6, 4) +
          "shape is [3, 3], dumpSize is 6, data is not enough.\n[[1,2,3],\n[4,5,6],\n[-,-,-]]\n");
  EXPECT_EQ(out_of([&] {
              AscendC::DumpTensor(x, 5, 8, AscendC::ShapeInfo(3, s222, AscendC::DataFormat::ND));
            }),
            head(addr, "int32", "UB", 8, 5) + "[[[1,2],\n[3,4]],\n[[5,6],\n[7,8]]]\n");
  const uint32_t nine[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
  EXPECT_THROW(AscendC::ShapeInfo(9, nine), tilesim::Error);
}

TEST_F(DebugPrint, DumpTensorRejectsADumpBeyondItsTensor) {
  Ub ub;
  AscendC::LocalTensor<float> f = ub.buf.Get<float>(8);
  try {
    (void)out_of([&] { AscendC::DumpTensor(f, 1, 9); });
    ADD_FAILURE() << "no error";
  } catch (const tilesim::Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Bounds);
    EXPECT_STREQ(e.what(),
                 "DumpTensor: dumpSize 9 exceeds the 8 elements of the UB tensor "
                 "[docs/ascendc.md#debug-prints]");
  }
}

extern "C" __global__ __aicore__ void dump_per_block(GM_ADDR x) {
  AscendC::GlobalTensor<float> g;
  g.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x) + 2 * AscendC::GetBlockIdx(), 2);
  AscendC::DumpTensor(g, uint32_t(AscendC::GetBlockIdx()), 2);
}

TEST_F(DebugPrint, DumpTensorInsideALaunch) {
  tilesim::set_num_threads(2);
  auto* x = static_cast<float*>(AscendC::GmAlloc(4 * sizeof(float)));
  for (int i = 0; i < 4; ++i) x[i] = 0.5f * float(i);
  const std::string got = out_of([&] { ICPU_RUN_KF(dump_per_block, 2, (GM_ADDR)x); });
  EXPECT_EQ(got, "[AIV Block 0/2] " + head(hex_addr(x), "float32", "GM", 2, 0) +
                     "[0.000000, 0.500000]\n" + "[AIV Block 1/2] " +
                     head(hex_addr(x + 2), "float32", "GM", 2, 1) + "[1.000000, 1.500000]\n");
  AscendC::GmFree(x);
}

}  // namespace

// The example kernel (examples/ascendc/debug_print.cpp), as its reader sees it run.
TEST(DebugPrintExample, PrintsEachBlockInOrder) {
  const std::string bin = std::string(TILESIM_BINARY_DIR) + "/examples/example_ascendc_debug_print";
  FILE* f = popen(("TILESIM_THREADS=4 " + bin).c_str(), "r");
  ASSERT_NE(f, nullptr);
  std::string got;
  char buf[512];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) got.append(buf, n);
  ASSERT_EQ(pclose(f), 0) << got;
  std::string want;
  for (int b = 0; b < 4; ++b) {
    const std::string p = "[AIV Block " + std::to_string(b) + "/4] ";
    char line[160];
    std::snprintf(line, sizeof line, "block %d of 4: x[0] = %f, y[0] = %f\n", b, 4.0 * b, 8.0 * b);
    want += p + line + p +
            "DumpTensor: desc=5, addr=0x0, data_type=float16, position=UB, dump_size=4\n";
    std::snprintf(line, sizeof line, "[%f, %f, %f, %f]\n", 8.0 * b, 8.0 * b + 0.5, 8.0 * b + 1,
                  8.0 * b + 1.5);
    want += line;
  }
  EXPECT_EQ(got, want + "debug_print: y = 2x in every block (y[63] = 31.5): PASS\n");
}
