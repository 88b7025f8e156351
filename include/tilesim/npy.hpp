// .npy files (NumPy format versions 1–3), the on-disk arrays of the CLI (spec 60 §5).
#pragma once
#include "tilesim/cxx20.hpp"  // one-line error below C++20
#include "tilesim/error.hpp"  // tilesim::Error, what tilesim calls throw (issue 21 §5)
#include <cstdint>
#include <string>
#include <vector>

namespace tilesim::npy {

// The element types of spec 60 §2's carriers, by NumPy descr ("<f4", "|u1", ...).
struct Array {
  std::string descr;           // normalised little-endian descr: "<f8" "<f4" "<f2" "|u1" "<u2" ... "|i1"
  std::vector<size_t> shape;   // C order
  std::vector<uint8_t> data;   // element bytes, C order, little-endian
  size_t itemsize() const;
  size_t size() const;         // element count
};

// Raise Error(Io) for unreadable files and for malformed or unsupported contents (bad magic,
// version, header, descr, fortran_order data is transposed to C order, size mismatch).
Array load(const std::string& path);
Array parse(const uint8_t* bytes, size_t n, const std::string& what = "<memory>");
void save(const std::string& path, const Array& a);
std::vector<uint8_t> serialize(const Array& a);

}  // namespace tilesim::npy
