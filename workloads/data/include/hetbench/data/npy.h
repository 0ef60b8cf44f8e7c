#pragma once

// A minimal reader of NumPy's .npy files (format versions 1 to 3): the header's dtype,
// fortran_order and shape, and the data converted to float. Only what CosmoFlow's arrays need:
// little-endian integers and floats in C order.

#include <cstdint>
#include <string>
#include <vector>

namespace hetbench::data {

/// An .npy file's header.
struct NpyHeader {
  /// The dtype as NumPy writes it, e.g. "<i2", "<f4", "|u1".
  std::string descr;
  bool fortranOrder = false;
  std::vector<int64_t> shape;
  /// Bytes per element, from descr.
  int itemSize = 0;
  /// Where the data starts in the file.
  int64_t dataOffset = 0;
};

/// Parses the header of an .npy file held in `bytes` (at least the header). Throws
/// std::runtime_error naming `name` for a malformed header, a big-endian, non-numeric or
/// Fortran-ordered array.
NpyHeader parseNpyHeader(const std::string& bytes, const std::string& name);

/// Converts `count` elements at `data` (in the header's dtype) to float.
void npyToFloat(const NpyHeader& header, const char* data, int64_t count, float* out);

/// An array read whole from an .npy file, its elements as float.
struct NpyArray {
  std::vector<int64_t> shape;
  std::vector<float> values;
};

/// Reads the file at `path`; errors name it (also when the data is shorter than the shape).
NpyArray readNpy(const std::string& path);

/// The .npy encoding of a C-ordered array, for fixtures: `descr` and raw little-endian data.
std::string encodeNpy(const std::string& descr, const std::vector<int64_t>& shape, const void* data,
                      size_t bytes);

}  // namespace hetbench::data
