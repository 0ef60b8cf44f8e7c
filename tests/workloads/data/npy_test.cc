#include "hetbench/data/npy.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "fixtures.h"

namespace hetbench::data {
namespace {

using fixtures::npyFile;
using fixtures::TempDir;

/// A version 1.0 .npy file with the header dict `dict` (padded as NumPy pads) and `data`.
std::string handWritten(const std::string& dict, const std::string& data) {
  std::string header = dict;
  header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  return out + header + data;
}

std::string errorOf(const std::string& path) {
  try {
    readNpy(path);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "(no error)";
}

// Verifies that arrays written in NumPy's format read back with their shape and values.
TEST(Npy, ReadsWhatItWrites) {
  TempDir dir("npy");
  const std::vector<int16_t> values = {0, 1, -2, 300, 32767, -32768};
  const NpyArray a = readNpy(dir.write("a.npy", npyFile("<i2", {2, 3}, values)));
  EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(a.values, (std::vector<float>{0, 1, -2, 300, 32767, -32768}));
  const NpyArray b =
      readNpy(dir.write("b.npy", npyFile("<f8", {3}, std::vector<double>{0.5, -1.25, 1e10})));
  EXPECT_EQ(b.shape, (std::vector<int64_t>{3}));
  EXPECT_EQ(b.values, (std::vector<float>{0.5F, -1.25F, 1e10F}));
}

// Verifies the header as NumPy writes it, keys in another order, and format version 2.0.
TEST(Npy, ParsesNumpyHeaders) {
  const float y[4] = {0.25F, -0.5F, 1, 2};
  const std::string data(reinterpret_cast<const char*>(y), sizeof y);
  NpyHeader h = parseNpyHeader(
      handWritten("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", data), "y.npy");
  EXPECT_EQ(h.descr, "<f4");
  EXPECT_FALSE(h.fortranOrder);
  EXPECT_EQ(h.shape, (std::vector<int64_t>{4}));
  EXPECT_EQ(h.itemSize, 4);
  EXPECT_EQ(h.dataOffset % 64, 0);
  h = parseNpyHeader(handWritten("{'shape': (128, 128, 128, 4), 'fortran_order': False, "
                                 "'descr': '<i2'}",
                                 ""),
                     "x.npy");
  EXPECT_EQ(h.shape, (std::vector<int64_t>{128, 128, 128, 4}));
  EXPECT_EQ(h.itemSize, 2);
  const std::string dict = "{'descr': '|u1', 'fortran_order': False, 'shape': (), }\n";
  std::string v2("\x93NUMPY\x02\x00", 8);
  v2 += static_cast<char>(dict.size());
  v2 += std::string(3, '\0');
  h = parseNpyHeader(v2 + dict + "x", "scalar.npy");
  EXPECT_TRUE(h.shape.empty());
  EXPECT_EQ(h.dataOffset, static_cast<int64_t>(12 + dict.size()));
}

// Verifies that what the reader does not support is refused with a message naming the file.
TEST(Npy, RefusesWhatItDoesNotRead) {
  TempDir dir("npy");
  const std::string four(8, '\0');
  const std::vector<std::pair<std::string, std::string>> cases = {
      {handWritten("{'descr': '>i2', 'fortran_order': False, 'shape': (4,), }", four),
       "dtype '>i2' is not supported"},
      {handWritten("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", four),
       "dtype '<c8' is not supported"},
      {handWritten("{'descr': '<i2', 'fortran_order': True, 'shape': (2, 2), }", four),
       "Fortran-ordered"},
      {handWritten("{'descr': '<i2', 'fortran_order': False, 'shape': (2, 3), }", four),
       "truncated"},
      {handWritten("{'descr': '<i2', 'fortran_order': False}", four), "lacks"},
      {handWritten("{'descr': '<i2', 'fortran_order': False, 'shape': (2, x), }", four),
       "malformed"},
      {"PK\x03\x04 a zip, as .npz files are", "no \\x93NUMPY magic"},
      {std::string("\x93NUMPY\x04\x00\x10\x00", 10) + std::string(16, ' '), "version 4"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    const std::string path = dir.write("bad" + std::to_string(i) + ".npy", cases[i].first);
    const std::string message = errorOf(path);
    EXPECT_NE(message.find(path), std::string::npos) << message;
    EXPECT_NE(message.find(cases[i].second), std::string::npos) << message;
  }
  EXPECT_NE(errorOf(dir.file("missing.npy")).find("cannot open"), std::string::npos);
}

}  // namespace
}  // namespace hetbench::data
