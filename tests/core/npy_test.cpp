// .npy reader/writer (spec 60 §5): round trips for every carrier, NumPy's own bytes, Fortran
// order, 0-d and empty arrays, and one test per malformed-file rejection (clear Error(Io)).
#include "tilesim/npy.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "tilesim/error.hpp"

namespace npy = tilesim::npy;

namespace {

std::vector<uint8_t> make_file(unsigned major, const std::string& header,
                               const std::vector<uint8_t>& data) {
  std::vector<uint8_t> out = {0x93, 'N', 'U', 'M', 'P', 'Y', static_cast<uint8_t>(major), 0};
  const size_t n = header.size();
  out.push_back(static_cast<uint8_t>(n));
  out.push_back(static_cast<uint8_t>(n >> 8));
  if (major >= 2) {
    out.push_back(static_cast<uint8_t>(n >> 16));
    out.push_back(static_cast<uint8_t>(n >> 24));
  }
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

std::vector<uint8_t> bytes(size_t n, uint8_t start = 0) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(start + i);
  return v;
}

// Expects a parse failure with code Io whose message contains `needle`.
void expect_reject(const std::vector<uint8_t>& file, const std::string& needle) {
  try {
    npy::parse(file.data(), file.size(), "t.npy");
    FAIL() << "expected rejection containing '" << needle << "'";
  } catch (const tilesim::Error& e) {
    EXPECT_EQ(e.code(), tilesim::ErrorCode::Io);
    const std::string msg = e.what();
    EXPECT_NE(msg.find(needle), std::string::npos) << msg;
    EXPECT_NE(msg.find("npy t.npy"), std::string::npos) << msg;
    EXPECT_NE(msg.find("[docs/formats.md#npy-files]"), std::string::npos) << msg;
  }
}

}  // namespace

// The exact bytes NumPy 1.24 writes for np.save(f, np.arange(6, dtype='<i2').reshape(2, 3))
// (source: NumPy's format.py layout: magic, v1.0, uint16 length, dict padded to 64 with '\n').
TEST(Npy, ReadsNumpyWrittenBytes) {
  std::string hdr = "{'descr': '<i2', 'fortran_order': False, 'shape': (2, 3), }";
  hdr.append((10 + hdr.size() + 1 + 63) / 64 * 64 - 10 - hdr.size() - 1, ' ');
  hdr += '\n';
  const std::vector<uint8_t> data = {0, 0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0};
  const auto file = make_file(1, hdr, data);
  const npy::Array a = npy::parse(file.data(), file.size());
  EXPECT_EQ(a.descr, "<i2");
  EXPECT_EQ(a.shape, (std::vector<size_t>{2, 3}));
  EXPECT_EQ(a.data, data);
  EXPECT_EQ(a.itemsize(), 2u);
  EXPECT_EQ(a.size(), 6u);
  // serialize writes the same bytes NumPy does.
  EXPECT_EQ(npy::serialize(a), file);
}

TEST(Npy, RoundTripEveryCarrierAndRank) {
  const char* descrs[] = {"<f8", "<f4", "<f2", "|u1", "<u2", "<u4",
                          "<u8", "|i1", "<i2", "<i4", "<i8"};
  const std::vector<std::vector<size_t>> shapes = {{}, {0}, {5}, {2, 3}, {2, 0, 4}, {1, 2, 3, 2}};
  for (const char* d : descrs) {
    for (const auto& s : shapes) {
      npy::Array a;
      a.descr = d;
      a.shape = s;
      a.data = bytes(a.size() * a.itemsize(), 7);
      const auto file = npy::serialize(a);
      ASSERT_EQ((file.size() - a.data.size()) % 64, 0u) << "data not 64-byte aligned";
      const npy::Array b = npy::parse(file.data(), file.size());
      EXPECT_EQ(b.descr, a.descr);
      EXPECT_EQ(b.shape, a.shape);
      EXPECT_EQ(b.data, a.data);
    }
  }
}

TEST(Npy, ZeroDimensionalHasOneElement) {
  const auto file =
      make_file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (), }\n", {0, 0, 0x80, 0x3F});
  const npy::Array a = npy::parse(file.data(), file.size());
  EXPECT_TRUE(a.shape.empty());
  EXPECT_EQ(a.size(), 1u);
  float f;
  std::memcpy(&f, a.data.data(), 4);
  EXPECT_EQ(f, 1.0f);
}

TEST(Npy, Versions2And3AndDoubleQuotes) {
  for (unsigned v : {2u, 3u}) {
    const auto file = make_file(
        v, "{\"descr\": \"|u1\", \"shape\": (3,), \"fortran_order\": False}\n", {1, 2, 3});
    const npy::Array a = npy::parse(file.data(), file.size());
    EXPECT_EQ(a.shape, (std::vector<size_t>{3}));
    EXPECT_EQ(a.data, (std::vector<uint8_t>{1, 2, 3}));
  }
}

TEST(Npy, FortranOrderIsTransposedToC) {
  // A 2x3 uint8 matrix [[0,1,2],[3,4,5]] stored column-major: 0 3 1 4 2 5.
  const auto file = make_file(1, "{'descr': '|u1', 'fortran_order': True, 'shape': (2, 3), }\n",
                              {0, 3, 1, 4, 2, 5});
  const npy::Array a = npy::parse(file.data(), file.size());
  EXPECT_EQ(a.data, (std::vector<uint8_t>{0, 1, 2, 3, 4, 5}));
  // 3-D, 2-byte items: C element (i,j,k) of shape (2,2,3) has value 100i+10j+k; Fortran position
  // i + 2j + 4k.
  std::vector<uint8_t> f(24);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      for (int k = 0; k < 3; ++k) {
        const int v = 100 * i + 10 * j + k, pos = i + 2 * j + 4 * k;
        f[2 * pos] = static_cast<uint8_t>(v), f[2 * pos + 1] = static_cast<uint8_t>(v >> 8);
      }
  const auto file3 =
      make_file(1, "{'descr': '<u2', 'fortran_order': True, 'shape': (2, 2, 3), }\n", f);
  const npy::Array b = npy::parse(file3.data(), file3.size());
  for (int c = 0; c < 12; ++c) {
    const int i = c / 6, j = (c / 3) % 2, k = c % 3;
    EXPECT_EQ(b.data[2 * c] | (b.data[2 * c + 1] << 8), 100 * i + 10 * j + k) << c;
  }
}

TEST(Npy, BigEndianIsByteswapped) {
  const auto file = make_file(1, "{'descr': '>u4', 'fortran_order': False, 'shape': (2,), }\n",
                              {0x01, 0x02, 0x03, 0x04, 0xA0, 0xB0, 0xC0, 0xD0});
  const npy::Array a = npy::parse(file.data(), file.size());
  EXPECT_EQ(a.descr, "<u4");
  EXPECT_EQ(a.data, (std::vector<uint8_t>{0x04, 0x03, 0x02, 0x01, 0xD0, 0xC0, 0xB0, 0xA0}));
  // One-byte items may carry any byte order character.
  const auto f2 =
      make_file(1, "{'descr': '<i1', 'fortran_order': False, 'shape': (1,), }\n", {0xFF});
  EXPECT_EQ(npy::parse(f2.data(), f2.size()).descr, "|i1");
}

TEST(Npy, SaveAndLoadFile) {
  const std::string path = std::string(TILESIM_BINARY_DIR) + "/npy_test_roundtrip.npy";
  npy::Array a;
  a.descr = "<f8";
  a.shape = {3};
  a.data = bytes(24);
  npy::save(path, a);
  const npy::Array b = npy::load(path);
  EXPECT_EQ(b.data, a.data);
  std::remove(path.c_str());
}

// ---- malformed files: one test per rule ----
const std::string kGood = "{'descr': '<u2', 'fortran_order': False, 'shape': (2,), }\n";

TEST(NpyReject, MissingFile) {
  try {
    npy::load("/nonexistent/dir/x.npy");
    FAIL();
  } catch (const tilesim::Error& e) {
    EXPECT_EQ(e.code(), tilesim::ErrorCode::Io);
    EXPECT_NE(std::string(e.what()).find("cannot open"), std::string::npos);
  }
}
TEST(NpyReject, TooShort) {
  expect_reject({0x93, 'N', 'U'}, "file too short");
}
TEST(NpyReject, BadMagic) {
  auto f = make_file(1, kGood, bytes(4));
  f[1] = 'X';
  expect_reject(f, "bad magic");
}
TEST(NpyReject, BadVersion) {
  auto f = make_file(1, kGood, bytes(4));
  f[6] = 4;
  expect_reject(f, "unsupported .npy version 4.0");
  f[6] = 1, f[7] = 1;
  expect_reject(f, "unsupported .npy version 1.1");
  f[6] = 0, f[7] = 0;
  expect_reject(f, "unsupported .npy version 0.0");
}
TEST(NpyReject, HeaderLengthBeyondFile) {
  auto f = make_file(1, kGood, bytes(4));
  f[8] = 0xFF, f[9] = 0xFF;
  expect_reject(f, "header length 65535 exceeds the file");
  auto g = make_file(2, kGood, bytes(4));
  g[8] = g[9] = g[10] = g[11] = 0xFF;
  expect_reject(g, "header length 4294967295 exceeds the file");
  expect_reject({0x93, 'N', 'U', 'M', 'P', 'Y', 2, 0, 5, 0}, "too short for the header length");
}
TEST(NpyReject, MalformedDict) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"'descr': '<u2'}", "expected '{'"},
      {"{'descr': '<u2', 'fortran_order': False, 'shape': (2,), ", "expected a quoted string"},
      {"{'descr': '<u2', 'fortran_order': False, 'shape': (2,) ]", "expected '}'"},
      {"{'descr' '<u2', 'fortran_order': False, 'shape': (2,)}", "expected ':'"},
      {"{'descr': '<u2, 'fortran_order': False, 'shape': (2,)}", "expected '}'"},
      {"{'descr': '<u2', 'fortran_order': Maybe, 'shape': (2,)}", "True or False"},
      {"{'descr': '<u2', 'fortran_order': False}", "must have the keys"},
      {"{'descr': '<u2', 'descr': '<u2', 'fortran_order': False, 'shape': (2,)}", "duplicate key"},
      {"{'descr': '<u2', 'fortran_order': False, 'shape': (2,), 'extra': 1}",
       "unexpected key 'extra'"},
      {"{'descr': '<u2', 'fortran_order': False, 'shape': (2,)} x", "trailing characters"},
      {"{'descr': [('a', '<u2')], 'fortran_order': False, 'shape': (2,)}", "structured dtypes"},
      {"{'descr': '<u2', 'fortran_order': False, 'shape': (-2,)}", "non-negative integers"},
      {"{'descr': '<u2', 'fortran_order': False, 'shape': (2.5,)}", "expected ')'"},
      {"{'descr': '<u2', 'fortran_order': False, 'shape': 2}", "expected '('"},
      {"{'descr': '<u2', 'fortran_order': False, 'shape': (99999999999999999999999,)}",
       "too large"},
      {"{'descr': '<\\u2', 'fortran_order': False, 'shape': (2,)}", "escape"},
      {"{'descr': '<u2", "unterminated string"},
      {"", "expected '{'"},
      {std::string("{'descr': '<u2'\0", 16), "non-ASCII"},
      {"{'descr': '\xc3\xa9', 'fortran_order': False, 'shape': (2,)}", "non-ASCII"},
  };
  for (const auto& [hdr, needle] : cases) {
    SCOPED_TRACE(hdr);
    expect_reject(make_file(1, hdr, bytes(4)), needle);
  }
}
TEST(NpyReject, UnsupportedDescr) {
  for (const char* d : {"|b1", "<c8", "<f16", "|f1", "<u2x", "|u2", "<U4", "<M8", "O"}) {
    SCOPED_TRACE(d);
    expect_reject(
        make_file(1, std::string("{'descr': '") + d + "', 'fortran_order': False, 'shape': (2,)}",
                  bytes(4)),
        std::string("unsupported descr '") + d + "'");
  }
}
TEST(NpyReject, TruncatedAndTrailingData) {
  expect_reject(make_file(1, kGood, bytes(3)),
                "truncated data: the header promises 4 bytes, the file has 3");
  expect_reject(make_file(1, kGood, bytes(5)), "1 bytes after the 4 data bytes");
}
TEST(NpyReject, ShapeProductOverflow) {
  expect_reject(
      make_file(1, "{'descr': '<u2', 'fortran_order': False, 'shape': (4294967296, 4294967296, 2)}",
                bytes(4)),
      "element count overflows");
  expect_reject(
      make_file(1, "{'descr': '<u8', 'fortran_order': False, 'shape': (4294967296, 2147483648)}",
                bytes(4)),
      "data size overflows");
  // A huge but non-overflowing promise is a truncation error, not an allocation.
  expect_reject(
      make_file(1, "{'descr': '<u8', 'fortran_order': False, 'shape': (100000000000,)}", bytes(4)),
      "truncated data");
}
TEST(Npy, SerializeNormalisesEquivalentDescrs) {
  npy::Array a;
  a.descr = "<u1";
  a.shape = {2};
  a.data = {7, 8};
  const auto f = npy::serialize(a);
  EXPECT_EQ(npy::parse(f.data(), f.size()).descr, "|u1");
  a.descr = "=i2";
  a.shape = {1};
  EXPECT_EQ(a.itemsize(), 2u);
  const auto g = npy::serialize(a);
  EXPECT_EQ(npy::parse(g.data(), g.size()).descr, "<i2");
}

TEST(NpyReject, SerializeChecksDescrAndSize) {
  npy::Array a;
  a.descr = "<c8";
  EXPECT_THROW(npy::serialize(a), tilesim::Error);
  a.descr = ">f4";  // the bytes of an Array are little-endian by contract
  a.shape = {1};
  a.data = bytes(4);
  EXPECT_THROW(npy::serialize(a), tilesim::Error);
  a.descr = "<f4";
  a.shape = {3};
  a.data = bytes(8);
  try {
    npy::serialize(a);
    FAIL();
  } catch (const tilesim::Error& e) {
    EXPECT_NE(std::string(e.what()).find("data has 8 bytes, the shape needs 3 x 4"),
              std::string::npos);
  }
}

// Every single-byte corruption and every truncation of a valid file is either accepted or a
// clean Error — never a crash (run under ASan in CI).
TEST(NpyReject, EveryTruncationAndByteFlipIsClean) {
  npy::Array a;
  a.descr = "<i4";
  a.shape = {2, 3};
  a.data = bytes(24);
  const auto good = npy::serialize(a);
  for (size_t len = 0; len < good.size(); ++len) {
    EXPECT_THROW(npy::parse(good.data(), len), tilesim::Error) << len;
  }
  for (size_t i = 0; i < good.size() - a.data.size(); ++i)
    for (int v : {0x00, 0x20, 0x27, 0x28, 0x29, 0x2C, 0x31, 0x39, 0x7B, 0x7D, 0xFF}) {
      auto f = good;
      f[i] = static_cast<uint8_t>(v);
      try {
        const npy::Array b = npy::parse(f.data(), f.size());
        EXPECT_EQ(b.size() * b.itemsize(), b.data.size());
      } catch (const tilesim::Error& e) {
        EXPECT_EQ(e.code(), tilesim::ErrorCode::Io);
      }
    }
}
