#pragma once

// ImageNet samples: JPEG decoding with libjpeg-turbo and torchvision's transforms (the
// training RandomResizedCrop + RandomHorizontalFlip, the validation Resize + CenterCrop), each
// followed by ToTensor and Normalize with ImageNet's mean and standard deviation. No torch here:
// samples are written into the caller's float buffer.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "hetbench/data/sampler.h"

namespace hetbench::data {

/// ImageNet's per-channel mean and standard deviation (RGB), as torchvision normalises.
inline constexpr float kImageNetMean[3] = {0.485F, 0.456F, 0.406F};
inline constexpr float kImageNetStd[3] = {0.229F, 0.224F, 0.225F};

/// Colour spaces of the JPEGs that encodeJpeg writes.
enum class JpegColor { kGray, kRgb, kCmyk };

/// Encodes interleaved 8-bit pixels (1, 3 or 4 channels by `color`) as a JPEG, for test
/// fixtures and benchmarks. CMYK is written with an Adobe marker, so the stored values are the
/// inverted ones that Adobe's applications write (255 is no ink).
std::string encodeJpeg(const uint8_t* pixels, int width, int height, JpegColor color,
                       int quality = 95);

/// A decoded image: interleaved RGB, row by row.
struct RgbImage {
  int width = 0;
  int height = 0;
  std::vector<uint8_t> pixels;
};

/// The whole image in RGB as PIL's convert("RGB") gives it: grayscale replicated, CMYK and YCCK
/// converted (Adobe's inverted CMYK undone). Throws std::runtime_error naming `name` for data
/// that is not a JPEG, is truncated or corrupt, or has another colour space.
RgbImage decodeJpeg(std::string_view bytes, const std::string& name);

/// A crop in whole source pixels.
struct CropRect {
  int top = 0;
  int left = 0;
  int height = 0;
  int width = 0;
};

/// torchvision's RandomResizedCrop.get_params with scale (0.08, 1) and ratio (3/4, 4/3): ten
/// tries at a random area and log-uniform aspect ratio that fits, else the central crop of the
/// nearest allowed aspect ratio.
CropRect randomResizedCrop(int width, int height, SplitMix64& rng);

/// Half-way cases round to even, as Python's round() does.
int roundHalfEven(double x);

/// How one ImageNet sample is made.
struct ImageTransform {
  int height = 224;
  int width = 224;
  /// Training: random resized crop and flip; validation: the shorter side resized to
  /// max(height, width) * 256 / 224, then the central height x width.
  bool train = true;
  /// Lets libjpeg decode at M/8 of the size (M = 1..8) when the crop stays at least as large
  /// as the output: much less work on large images, close to but not bit-equal with a full
  /// decode.
  bool dctScaling = true;
};

/// What a sample was made of, for tests and diagnostics.
struct ImageSampleInfo {
  int sourceWidth = 0;
  int sourceHeight = 0;
  /// The source region (in source pixels, fractional for validation) that the output covers.
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  bool flipped = false;
  /// libjpeg's scale numerator over 8.
  int dctScale = 8;
};

/// Decodes one JPEG and writes the transformed, normalised sample into `out` as [3, height,
/// width] floats. `seed` drives the random crop and flip. Resizing is bilinear, antialiased
/// when shrinking as PIL's is; training resamples the crop alone, validation the whole resized
/// image (torchvision crops before resizing in one case and after in the other). Throws
/// std::runtime_error naming `name`.
ImageSampleInfo decodeImageSample(std::string_view bytes, const std::string& name,
                                  const ImageTransform& transform, uint64_t seed, float* out);

}  // namespace hetbench::data
