#include "hetbench/data/image.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "fixtures.h"
#include "workloads/models/reference_scripts.h"

namespace hetbench::data {
namespace {

using fixtures::errorOf;
using fixtures::makePixels;
using fixtures::noisePixels;
using fixtures::TempDir;
using models::testing_support::runScript;

/// The normalised value of an 8-bit level in channel c.
float normalised(double level, int c) {
  return static_cast<float>((level / 255.0 - kImageNetMean[c]) / kImageNetStd[c]);
}

/// The 8-bit level of a normalised value in channel c.
double level(float value, int c) { return (value * kImageNetStd[c] + kImageNetMean[c]) * 255.0; }

// Verifies that a flat-colour RGB JPEG decodes to its colour.
TEST(DecodeJpeg, FlatColour) {
  const auto pixels = makePixels(40, 30, 3, [](int, int, int c) { return 200 - 75 * c; });
  const RgbImage image =
      decodeJpeg(encodeJpeg(pixels.data(), 40, 30, JpegColor::kRgb, 100), "flat.jpg");
  ASSERT_EQ(image.width, 40);
  ASSERT_EQ(image.height, 30);
  ASSERT_EQ(image.pixels.size(), 40U * 30 * 3);
  for (size_t i = 0; i < image.pixels.size(); ++i) {
    ASSERT_NEAR(image.pixels[i], 200 - 75 * static_cast<int>(i % 3), 2) << i;
  }
}

// Verifies a gradient's decoded values, pixel by pixel, within JPEG's error at quality 100.
TEST(DecodeJpeg, Gradient) {
  const auto fn = [](int x, int y, int c) { return c == 0 ? x * 4 : c == 1 ? y * 4 : 128; };
  const auto pixels = makePixels(64, 48, 3, fn);
  const RgbImage image =
      decodeJpeg(encodeJpeg(pixels.data(), 64, 48, JpegColor::kRgb, 100), "gradient.jpg");
  double total = 0;
  for (int y = 0; y < 48; ++y) {
    for (int x = 0; x < 64; ++x) {
      for (int c = 0; c < 3; ++c) {
        const int got = image.pixels[static_cast<size_t>((y * 64 + x) * 3 + c)];
        ASSERT_NEAR(got, fn(x, y, c), 6) << x << "," << y << "," << c;
        total += std::abs(got - fn(x, y, c));
      }
    }
  }
  EXPECT_LT(total / (64 * 48 * 3), 1.5);
}

// Verifies that grayscale JPEGs come out as RGB with the grey in every channel.
TEST(DecodeJpeg, GrayscaleBecomesRgb) {
  const auto pixels = makePixels(32, 16, 1, [](int x, int, int) { return x * 8; });
  const RgbImage image =
      decodeJpeg(encodeJpeg(pixels.data(), 32, 16, JpegColor::kGray, 100), "gray.jpg");
  for (int x = 0; x < 32; ++x) {
    const size_t i = static_cast<size_t>((5 * 32 + x) * 3);
    EXPECT_NEAR(image.pixels[i], x * 8, 3) << x;
    EXPECT_EQ(image.pixels[i], image.pixels[i + 1]);
    EXPECT_EQ(image.pixels[i], image.pixels[i + 2]);
  }
}

// Verifies that CMYK JPEGs (Adobe's inverted values) are converted as PIL converts them:
// R = (255 - C)(255 - K) / 255, where the file stores 255 - C and 255 - K.
TEST(DecodeJpeg, AdobeCmykBecomesRgb) {
  const int stored[4] = {200, 100, 50, 128};
  const auto pixels = makePixels(24, 24, 4, [&](int, int, int c) { return stored[c]; });
  const RgbImage image =
      decodeJpeg(encodeJpeg(pixels.data(), 24, 24, JpegColor::kCmyk, 100), "cmyk.jpg");
  for (int c = 0; c < 3; ++c) {
    EXPECT_NEAR(image.pixels[static_cast<size_t>(c)], stored[c] * 128 / 255.0, 2) << c;
  }
}

// Verifies that data that is not a JPEG, and a JPEG cut short, are errors naming the file.
TEST(DecodeJpeg, CorruptAndTruncatedFilesNameTheFile) {
  const std::string png("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16);
  EXPECT_NE(errorOf([&] { decodeJpeg(png, "/data/a.JPEG"); }).find("/data/a.JPEG"),
            std::string::npos);
  EXPECT_NE(errorOf([&] { decodeJpeg("", "/data/empty.JPEG"); }).find("/data/empty.JPEG"),
            std::string::npos);
  const auto pixels = noisePixels(64, 64, 1);
  const std::string jpeg = encodeJpeg(pixels.data(), 64, 64, JpegColor::kRgb);
  const std::string cut = jpeg.substr(0, jpeg.size() / 2);
  const std::string message = errorOf([&] { decodeJpeg(cut, "/data/cut.JPEG"); });
  EXPECT_NE(message.find("/data/cut.JPEG"), std::string::npos) << message;
  EXPECT_NE(message.find("Premature end"), std::string::npos) << message;
  std::vector<float> out(3 * 32 * 32);
  ImageTransform t;
  t.height = t.width = 32;
  t.train = false;
  EXPECT_NE(errorOf([&] {
              decodeImageSample(cut, "/data/cut.JPEG", t, 0, out.data());
            }).find("/data/cut.JPEG"),
            std::string::npos);
}

// Verifies Python's rounding of halves to even, which torchvision's geometry inherits.
TEST(RoundHalfEven, RoundsHalvesToEven) {
  EXPECT_EQ(roundHalfEven(0.5), 0);
  EXPECT_EQ(roundHalfEven(1.5), 2);
  EXPECT_EQ(roundHalfEven(2.5), 2);
  EXPECT_EQ(roundHalfEven(58.5), 58);
  EXPECT_EQ(roundHalfEven(-0.5), 0);
  EXPECT_EQ(roundHalfEven(2.4), 2);
  EXPECT_EQ(roundHalfEven(2.6), 3);
}

// Verifies that random resized crops lie in the image with area 8-100 % and aspect ratio
// 3/4-4/3 (up to the rounding of sides), and that they vary.
TEST(RandomResizedCrop, StaysWithinScaleAndRatio) {
  double smallest = 1, largest = 0;
  for (uint64_t seed = 0; seed < 2000; ++seed) {
    SplitMix64 rng(seed);
    const CropRect c = randomResizedCrop(500, 375, rng);
    ASSERT_GE(c.top, 0);
    ASSERT_GE(c.left, 0);
    ASSERT_LE(c.top + c.height, 375);
    ASSERT_LE(c.left + c.width, 500);
    const double area = static_cast<double>(c.width) * c.height / (500.0 * 375.0);
    const double ratio = static_cast<double>(c.width) / c.height;
    EXPECT_GE(area, 0.075) << seed;
    EXPECT_LE(area, 1.0) << seed;
    EXPECT_GE(ratio, 0.74) << seed;
    EXPECT_LE(ratio, 1.35) << seed;
    smallest = std::min(smallest, area);
    largest = std::max(largest, area);
  }
  EXPECT_LT(smallest, 0.1);
  EXPECT_GT(largest, 0.9);
}

// Verifies torchvision's fallback: when no try fits, the central crop of the nearest allowed
// aspect ratio.
TEST(RandomResizedCrop, FallsBackToTheCentralCrop) {
  SplitMix64 rng(0);
  const CropRect wide = randomResizedCrop(1000, 10, rng);  // no 8 % of it fits 4/3
  EXPECT_EQ(wide.top, 0);
  EXPECT_EQ(wide.height, 10);
  EXPECT_EQ(wide.width, 13);  // round(10 * 4/3)
  EXPECT_EQ(wide.left, 493);  // (1000 - 13) // 2
  const CropRect tall = randomResizedCrop(10, 1000, rng);
  EXPECT_EQ(tall.left, 0);
  EXPECT_EQ(tall.width, 10);
  EXPECT_EQ(tall.height, 13);  // round(10 / (3/4))
  EXPECT_EQ(tall.top, 493);
}

/// Checks that `out` ([3, h, w]) equals the decoded image's pixels from (top, left), normalised.
void expectCrop(const std::vector<float>& out, const RgbImage& image, int top, int left, int h,
                int w) {
  for (int c = 0; c < 3; ++c) {
    for (int y = 0; y < h; ++y) {
      for (int x = 0; x < w; ++x) {
        const int pixel =
            image.pixels[static_cast<size_t>(((top + y) * image.width + left + x) * 3 + c)];
        ASSERT_NEAR(out[static_cast<size_t>((c * h + y) * w + x)], normalised(pixel, c), 1e-5)
            << c << "," << y << "," << x;
      }
    }
  }
}

// Verifies validation's exact geometry where no resize is needed: the shorter side already
// equals size * 256 / 224, so the output is the image's centre, pixel for pixel.
TEST(ImageSample, ValidationTakesTheExactCentre) {
  ImageTransform t;
  t.height = t.width = 16;  // resize to int(16 * 256 / 224) = 18
  t.train = false;
  std::vector<float> out(3 * 16 * 16);
  {
    const auto pixels = noisePixels(24, 18, 3);
    const std::string jpeg = encodeJpeg(pixels.data(), 24, 18, JpegColor::kRgb);
    const ImageSampleInfo info = decodeImageSample(jpeg, "wide.jpg", t, 0, out.data());
    EXPECT_EQ(info.x0, 4);  // round((24 - 16) / 2)
    EXPECT_EQ(info.y0, 1);  // round((18 - 16) / 2)
    EXPECT_FALSE(info.flipped);
    expectCrop(out, decodeJpeg(jpeg, "wide.jpg"), 1, 4, 16, 16);
  }
  {
    const auto pixels = noisePixels(18, 31, 4);
    const std::string jpeg = encodeJpeg(pixels.data(), 18, 31, JpegColor::kRgb);
    decodeImageSample(jpeg, "tall.jpg", t, 0, out.data());
    expectCrop(out, decodeJpeg(jpeg, "tall.jpg"), 8, 1, 16, 16);  // round(7.5) = 8, round(1)
  }
  {  // The crop starts at column 16, an iMCU boundary, where a cropped decode upsamples chroma
     // without its left neighbours unless the decoder reads a margin.
    const auto pixels = noisePixels(48, 18, 5);
    const std::string jpeg = encodeJpeg(pixels.data(), 48, 18, JpegColor::kRgb);
    decodeImageSample(jpeg, "edge.jpg", t, 0, out.data());
    expectCrop(out, decodeJpeg(jpeg, "edge.jpg"), 1, 16, 16, 16);
  }
}

// Verifies validation's geometry with a resize: 320x240 at 224 is resized to 341x256 (the
// longer side truncated as torchvision does) and cropped at (16, 58), 58.5 rounding to even.
// Enlarging by 256/240 is plain bilinear interpolation, so every output pixel must equal the
// decoded image interpolated at the point its centre maps back to.
TEST(ImageSample, ValidationResizesTheShorterSide) {
  ImageTransform t;
  t.train = false;
  const auto pixels = fixtures::noisePixels(320, 240, 6);
  const std::string jpeg = encodeJpeg(pixels.data(), 320, 240, JpegColor::kRgb);
  std::vector<float> out(3 * 224 * 224);
  const ImageSampleInfo info = decodeImageSample(jpeg, "val.jpg", t, 0, out.data());
  EXPECT_DOUBLE_EQ(info.x0, 58.0 * 320 / 341);
  EXPECT_DOUBLE_EQ(info.x1, 282.0 * 320 / 341);
  EXPECT_DOUBLE_EQ(info.y0, 16.0 * 240 / 256);
  EXPECT_DOUBLE_EQ(info.y1, 240.0 * 240 / 256);
  EXPECT_EQ(info.dctScale, 8);  // the crop is smaller than twice the output
  const RgbImage image = decodeJpeg(jpeg, "val.jpg");
  const auto at = [&](int x, int y, int c) {
    return image.pixels[static_cast<size_t>((y * 320 + x) * 3 + c)];
  };
  for (int y = 0; y < 224; y += 7) {
    for (int x = 0; x < 224; ++x) {
      const double sx = info.x0 + (x + 0.5) * (info.x1 - info.x0) / 224 - 0.5;
      const double sy = info.y0 + (y + 0.5) * (info.y1 - info.y0) / 224 - 0.5;
      const int ix = static_cast<int>(sx);
      const int iy = static_cast<int>(sy);
      const double fx = sx - ix, fy = sy - iy;
      for (int c = 0; c < 3; ++c) {
        const double expected = (1 - fy) * ((1 - fx) * at(ix, iy, c) + fx * at(ix + 1, iy, c)) +
                                fy * ((1 - fx) * at(ix, iy + 1, c) + fx * at(ix + 1, iy + 1, c));
        ASSERT_NEAR(level(out[static_cast<size_t>((c * 224 + y) * 224 + x)], c), expected, 1e-3)
            << x << "," << y << "," << c;
      }
    }
  }
}

// Verifies training crops: each output pixel shows the source point its crop box maps it to
// (red varies with x, green with y), mirrored when flipped, with both flips drawn.
TEST(ImageSample, TrainingCropsAndFlips) {
  const auto fn = [](int x, int y, int c) { return c == 0 ? x * 255 / 299 : c == 1 ? y : 128; };
  const auto pixels = makePixels(300, 200, 3, fn);
  const std::string jpeg = encodeJpeg(pixels.data(), 300, 200, JpegColor::kRgb, 100);
  ImageTransform t;
  t.height = t.width = 32;
  std::vector<float> out(3 * 32 * 32);
  int flips = 0;
  for (uint64_t seed = 0; seed < 40; ++seed) {
    const ImageSampleInfo info = decodeImageSample(jpeg, "train.jpg", t, seed, out.data());
    SplitMix64 rng(seed);
    const CropRect crop = randomResizedCrop(300, 200, rng);
    EXPECT_EQ(info.x0, crop.left);
    EXPECT_EQ(info.y0, crop.top);
    EXPECT_EQ(info.x1, crop.left + crop.width);
    EXPECT_EQ(info.y1, crop.top + crop.height);
    flips += info.flipped ? 1 : 0;
    for (int y = 1; y < 31; ++y) {
      for (int x = 1; x < 31; ++x) {
        const int column = info.flipped ? 31 - x : x;
        const double sx = info.x0 + (column + 0.5) * (info.x1 - info.x0) / 32 - 0.5;
        const double sy = info.y0 + (y + 0.5) * (info.y1 - info.y0) / 32 - 0.5;
        const size_t i = static_cast<size_t>(y * 32 + x);
        ASSERT_NEAR(level(out[i], 0), sx * 255 / 299, 3) << seed << " " << x << "," << y;
        ASSERT_NEAR(level(out[1024 + i], 1), sy, 3) << seed << " " << x << "," << y;
        ASSERT_NEAR(level(out[2048 + i], 2), 128, 3) << seed;
      }
    }
  }
  EXPECT_GT(flips, 8);
  EXPECT_LT(flips, 32);
}

// Verifies ImageNet's normalisation: a flat colour becomes (v / 255 - mean) / std everywhere.
TEST(ImageSample, NormalisesWithImageNetStatistics) {
  const int rgb[3] = {200, 100, 50};
  const auto pixels = makePixels(64, 48, 3, [&](int, int, int c) { return rgb[c]; });
  const std::string jpeg = encodeJpeg(pixels.data(), 64, 48, JpegColor::kRgb, 100);
  ImageTransform t;
  t.height = 20;
  t.width = 24;
  std::vector<float> out(3 * 20 * 24);
  for (const bool train : {true, false}) {
    t.train = train;
    decodeImageSample(jpeg, "flat.jpg", t, 9, out.data());
    for (size_t i = 0; i < out.size(); ++i) {
      const int c = static_cast<int>(i / (20 * 24));
      ASSERT_NEAR(out[i], normalised(rgb[c], c), 2.5 / 255 / kImageNetStd[c]) << i;
    }
  }
}

// Verifies that decoding at a reduced DCT scale stays close to decoding whole and resizing.
TEST(ImageSample, DctScalingStaysCloseToAFullDecode) {
  const auto fn = [](int x, int y, int c) {
    return static_cast<int>(127.5 + 120 * std::sin(x / 37.0 + c) * std::cos(y / 23.0));
  };
  const auto pixels = makePixels(800, 600, 3, fn);
  const std::string jpeg = encodeJpeg(pixels.data(), 800, 600, JpegColor::kRgb);
  ImageTransform t;
  t.height = t.width = 64;
  std::vector<float> scaled(3 * 64 * 64), full(scaled.size());
  for (const bool train : {true, false}) {
    t.train = train;
    t.dctScaling = true;
    const ImageSampleInfo info = decodeImageSample(jpeg, "big.jpg", t, 3, scaled.data());
    EXPECT_LT(info.dctScale, 8) << train;
    t.dctScaling = false;
    EXPECT_EQ(decodeImageSample(jpeg, "big.jpg", t, 3, full.data()).dctScale, 8);
    double total = 0, worst = 0;
    for (size_t i = 0; i < full.size(); ++i) {
      const int c = static_cast<int>(i / (64 * 64));
      const double diff = std::abs(level(scaled[i], c) - level(full[i], c));
      total += diff;
      worst = std::max(worst, diff);
    }
    EXPECT_LT(total / static_cast<double>(full.size()), 1.5) << train;
    EXPECT_LT(worst, 10) << train;
  }
}

// Verifies that the same seed gives the same sample and another seed another crop.
TEST(ImageSample, SeedsDecideTheAugmentation) {
  const auto pixels = noisePixels(120, 90, 5);
  const std::string jpeg = encodeJpeg(pixels.data(), 120, 90, JpegColor::kRgb);
  ImageTransform t;
  t.height = t.width = 24;
  std::vector<float> a(3 * 24 * 24), b(a.size()), c(a.size());
  decodeImageSample(jpeg, "n.jpg", t, 11, a.data());
  decodeImageSample(jpeg, "n.jpg", t, 11, b.data());
  decodeImageSample(jpeg, "n.jpg", t, 12, c.data());
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
}

// Verifies agreement with torchvision on the same decoded pixels (torchvision.io uses libjpeg
// too): validation's Resize(size * 256 / 224) + CenterCrop(size), and training's resized_crop
// of the box the seed drew, flipped as drawn; both antialiased as PIL resizes, in float.
TEST(ImageSample, MatchesTorchvision) {
  HETBENCH_REQUIRE_TORCH_PYTHON();
  TempDir dir("torchvision");
  struct Job {
    std::string jpeg;
    std::string out;
    ImageTransform transform;
    uint64_t seed;
    std::vector<float> mine;
  };
  std::vector<Job> jobs;
  std::string lines;
  const std::vector<std::pair<int, int>> sizes = {{500, 375}, {333, 500}, {640, 427}};
  for (size_t i = 0; i < sizes.size(); ++i) {
    const auto [w, h] = sizes[i];
    const auto fn = [&](int x, int y, int c) {
      return static_cast<int>(127 + 100 * std::sin(x / 9.0 + c) * std::cos(y / 13.0)) +
             static_cast<int>((x * 7 + y * 13 + c * 5) % 23);
    };
    const auto pixels = makePixels(w, h, 3, fn);
    const std::string jpeg = dir.write("image" + std::to_string(i) + ".jpg",
                                       encodeJpeg(pixels.data(), w, h, JpegColor::kRgb, 90));
    for (int k = 0; k < 4; ++k) {
      Job job{jpeg, dir.file("out" + std::to_string(jobs.size())), {}, i * 10 + k, {}};
      job.transform.train = k > 0;
      job.transform.height = job.transform.width = k > 0 ? 64 : 224;
      job.transform.dctScaling = false;
      jobs.push_back(job);
    }
  }
  for (Job& job : jobs) {
    std::ifstream in(job.jpeg, std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    const int size = job.transform.width;
    job.mine.resize(static_cast<size_t>(3 * size * size));
    const ImageSampleInfo info =
        decodeImageSample(bytes.str(), job.jpeg, job.transform, job.seed, job.mine.data());
    lines += job.jpeg + " " + job.out + " ";
    if (job.transform.train) {
      lines += "train " + std::to_string(static_cast<int>(info.y0)) + " " +
               std::to_string(static_cast<int>(info.x0)) + " " +
               std::to_string(static_cast<int>(info.y1 - info.y0)) + " " +
               std::to_string(static_cast<int>(info.x1 - info.x0)) + " " + std::to_string(size) +
               " " + (info.flipped ? "1" : "0") + "\n";
    } else {
      lines += "val " + std::to_string(size) + "\n";
    }
  }
  const auto run = runScript("torchvision_transforms.py", {dir.write("jobs.txt", lines)});
  ASSERT_EQ(run.status, 0) << run.output;
  double worst = 0;
  for (const Job& job : jobs) {
    std::ifstream in(job.out, std::ios::binary);
    std::vector<float> theirs(job.mine.size());
    in.read(reinterpret_cast<char*>(theirs.data()),
            static_cast<std::streamsize>(theirs.size() * sizeof(float)));
    ASSERT_TRUE(in) << job.out;
    const size_t plane = theirs.size() / 3;
    for (size_t i = 0; i < theirs.size(); ++i) {
      const int c = static_cast<int>(i / plane);
      worst = std::max(worst, std::abs(level(job.mine[i], c) - level(theirs[i], c)));
    }
  }
  RecordProperty("max_difference_levels", models::testing_support::scientific(worst));
  EXPECT_LT(worst, 0.01);  // of an 8-bit level; float rounding only
}

}  // namespace
}  // namespace hetbench::data
