#pragma once

// Small datasets written by the tests: JPEGs through libjpeg's encoder, HDF5 files through the C
// API, .npy files by hand (encodeNpy). Everything goes into a TempDir.

#include <hdf5.h>

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "hetbench/data/image.h"
#include "hetbench/data/npy.h"
#include "hetbench/data/sampler.h"
#include "support/temp_dir.h"

namespace hetbench::data::fixtures {

using testing_support::TempDir;

/// Interleaved 8-bit pixels of `channels` channels, each from fn(x, y, channel).
inline std::vector<uint8_t> makePixels(int width, int height, int channels,
                                       const std::function<int(int, int, int)>& fn) {
  std::vector<uint8_t> pixels(static_cast<size_t>(width * height * channels));
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      for (int c = 0; c < channels; ++c) {
        pixels[static_cast<size_t>((y * width + x) * channels + c)] =
            static_cast<uint8_t>(fn(x, y, c));
      }
    }
  }
  return pixels;
}

/// Pixels of seeded noise, the hardest content for a resampler to get away with errors.
inline std::vector<uint8_t> noisePixels(int width, int height, uint64_t seed) {
  SplitMix64 rng(seed);
  return makePixels(width, height, 3,
                    [&](int, int, int) { return static_cast<int>(rng.below(256)); });
}

/// Writes an RGB JPEG of one flat colour; returns its path.
inline std::string writeFlatJpeg(const TempDir& dir, const std::string& name, int width, int height,
                                 int r, int g, int b) {
  const int rgb[3] = {r, g, b};
  const auto pixels = makePixels(width, height, 3, [&](int, int, int c) { return rgb[c]; });
  return dir.write(name, encodeJpeg(pixels.data(), width, height, JpegColor::kRgb));
}

/// An HDF5 file being written; datasets may name groups ("climate/data"), which are created.
class Hdf5Writer {
 public:
  explicit Hdf5Writer(const std::string& path)
      : file_(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT)) {
    if (file_ < 0) throw std::runtime_error("cannot create " + path);
  }
  ~Hdf5Writer() { H5Fclose(file_); }
  Hdf5Writer(const Hdf5Writer&) = delete;
  Hdf5Writer& operator=(const Hdf5Writer&) = delete;

  /// Stores `data` (C order, of memType) as a dataset of fileType.
  Hdf5Writer& write(const std::string& name, const std::vector<int64_t>& shape, hid_t fileType,
                    hid_t memType, const void* data) {
    const std::vector<hsize_t> dims(shape.begin(), shape.end());
    const hid_t space = H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr);
    const hid_t links = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(links, 1);
    const hid_t dataset =
        H5Dcreate2(file_, name.c_str(), fileType, space, links, H5P_DEFAULT, H5P_DEFAULT);
    const herr_t status = H5Dwrite(dataset, memType, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
    H5Dclose(dataset);
    H5Pclose(links);
    H5Sclose(space);
    if (dataset < 0 || status < 0) throw std::runtime_error("cannot write dataset " + name);
    return *this;
  }
  Hdf5Writer& write(const std::string& name, const std::vector<int64_t>& shape,
                    const std::vector<int16_t>& data) {
    return write(name, shape, H5T_STD_I16LE, H5T_NATIVE_INT16, data.data());
  }
  Hdf5Writer& write(const std::string& name, const std::vector<int64_t>& shape,
                    const std::vector<float>& data) {
    return write(name, shape, H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, data.data());
  }
  Hdf5Writer& write(const std::string& name, const std::vector<int64_t>& shape,
                    const std::vector<int32_t>& data) {
    return write(name, shape, H5T_STD_I32LE, H5T_NATIVE_INT32, data.data());
  }

 private:
  hid_t file_;
};

/// Runs `fn` and returns the message of the std::runtime_error it must throw.
template <typename Fn>
std::string errorOf(Fn fn) {
  try {
    fn();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "(no error)";
}

/// The .npy file of a C-ordered array of T with NumPy's dtype string `descr`.
template <typename T>
std::string npyFile(const std::string& descr, const std::vector<int64_t>& shape,
                    const std::vector<T>& data) {
  return encodeNpy(descr, shape, data.data(), data.size() * sizeof(T));
}

}  // namespace hetbench::data::fixtures
