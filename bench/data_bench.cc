// data_bench: decoded ImageNet-style images per second. Generates --images JPEGs of
// --width x --height (a smooth pattern with grain, so that they compress about as photographs
// do) in a temporary directory, then times decodeImageSample on one thread, with and without
// libjpeg's DCT scaling, and the resnet50 Loader with 1 and 2 threads.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "bench_util.h"
#include "hetbench/data/image.h"
#include "hetbench/data/loader.h"
#include "hetbench/data/sampler.h"

namespace bench = hetbench::bench;
namespace common = hetbench::common;
namespace data = hetbench::data;
namespace fs = std::filesystem;

namespace {

std::string makeJpeg(int width, int height, int quality, uint64_t seed) {
  data::SplitMix64 rng(seed);
  const double phase = rng.uniform(0, 6.28);
  std::vector<uint8_t> pixels(static_cast<size_t>(width) * height * 3);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      for (int c = 0; c < 3; ++c) {
        const double smooth =
            128 + 90 * std::sin(x / (23.0 + 7 * c) + phase) * std::cos(y / (31.0 - 5 * c));
        const double grain = static_cast<double>(rng.below(41)) - 20;
        pixels[(static_cast<size_t>(y) * width + x) * 3 + c] =
            static_cast<uint8_t>(std::clamp(smooth + grain, 0.0, 255.0));
      }
    }
  }
  return data::encodeJpeg(pixels.data(), width, height, data::JpegColor::kRgb, quality);
}

void timeDecode(const char* name, const std::vector<std::string>& jpegs, bool train, bool dct,
                int64_t passes) {
  data::ImageTransform t;
  t.train = train;
  t.dctScaling = dct;
  std::vector<float> out(3 * 224 * 224);
  const auto start = bench::Clock::now();
  int64_t decoded = 0;
  for (int64_t pass = 0; pass < passes; ++pass) {
    for (size_t i = 0; i < jpegs.size(); ++i) {
      data::decodeImageSample(jpegs[i], "bench", t,
                              data::sampleSeed(1, pass, static_cast<int64_t>(i)), out.data());
      ++decoded;
    }
  }
  const double s = bench::seconds(bench::Clock::now() - start);
  std::printf("    %-26s %8.1f images/s\n", name, static_cast<double>(decoded) / s);
}

void timeLoader(const fs::path& root, int threads, int64_t batch, int64_t epochs) {
  data::LoaderOptions o;
  o.model = hetbench::models::ModelKind::kResnet50;
  o.path = root;
  o.train = true;
  o.batchSize = batch;
  o.threads = threads;
  o.prefetch = 2;
  const auto loader = data::openLoader(o);
  int64_t images = 0;
  const auto start = bench::Clock::now();
  for (int64_t e = 0; e < epochs; ++e) {
    loader->startEpoch(e);
    while (auto b = loader->next()) images += b->input.size(0);
  }
  const double s = bench::seconds(bench::Clock::now() - start);
  std::printf("    %d thread%s %23.1f images/s  (%lld batches in %.2f s)\n", threads,
              threads == 1 ? " " : "s", static_cast<double>(images) / s,
              static_cast<long long>(images / batch), s);
}

}  // namespace

int main(int argc, char** argv) {
  int64_t images = 128, width = 500, height = 375, quality = 90, batch = 32, epochs = 10;
  common::FlagSet flags("data_bench", "Decoded images per second of the ImageNet reader.");
  flags.addInt("images", &images, "Generated JPEGs.", 1, 100000);
  flags.addInt("width", &width, "Their width.", 8, 8192);
  flags.addInt("height", &height, "Their height.", 8, 8192);
  flags.addInt("quality", &quality, "Their JPEG quality.", 1, 100);
  flags.addInt("batch", &batch, "The loader's batch size.", 1, 4096);
  flags.addInt("epochs", &epochs, "Passes over the images per measurement.", 1, 1000);
  if (auto code = bench::parseFlags(flags, argc, argv)) return *code;
  if (batch > images) batch = images;

  std::string pattern = (fs::temp_directory_path() / "data_bench_XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {
    std::perror("data_bench: mkdtemp");
    return 1;
  }
  const fs::path root(pattern);
  std::vector<std::string> jpegs;
  size_t bytes = 0;
  for (int64_t i = 0; i < images; ++i) {
    jpegs.push_back(makeJpeg(static_cast<int>(width), static_cast<int>(height),
                             static_cast<int>(quality), static_cast<uint64_t>(i)));
    bytes += jpegs.back().size();
    const fs::path file =
        root / "train" / ("class" + std::to_string(i % 4)) / ("img" + std::to_string(i) + ".JPEG");
    fs::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << jpegs.back();
  }
  std::printf(
      "data_bench: %lld generated %lldx%lld JPEGs (quality %lld, %.0f KB each on average), "
      "224x224 samples\n",
      static_cast<long long>(images), static_cast<long long>(width), static_cast<long long>(height),
      static_cast<long long>(quality),
      static_cast<double>(bytes) / 1000.0 / static_cast<double>(images));
  std::printf("  decodeImageSample from memory, one thread:\n");
  timeDecode("train, DCT scaling", jpegs, true, true, epochs);
  timeDecode("train, full decode", jpegs, true, false, epochs);
  timeDecode("validation, DCT scaling", jpegs, false, true, epochs);
  timeDecode("validation, full decode", jpegs, false, false, epochs);
  std::printf("  Loader (resnet50 train from files, batch %lld, prefetch 2), %lld epochs:\n",
              static_cast<long long>(batch), static_cast<long long>(epochs));
  timeLoader(root, 1, batch, epochs);
  timeLoader(root, 2, batch, epochs);
  fs::remove_all(root);
  return 0;
}
