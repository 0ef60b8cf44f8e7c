#include "hetbench/data/loader.h"

#include <gtest/gtest.h>
#include <torch/cuda.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "fixtures.h"

namespace hetbench::data {
namespace {

using fixtures::errorOf;
using fixtures::Hdf5Writer;
using fixtures::npyFile;
using fixtures::TempDir;
using fixtures::writeFlatJpeg;
using models::ModelKind;

LoaderOptions options(ModelKind model, const std::string& path, bool train,
                      std::vector<int64_t> size, int64_t batch) {
  LoaderOptions o;
  o.model = model;
  o.path = path;
  o.train = train;
  o.sampleSize = std::move(size);
  o.batchSize = batch;
  o.threads = 2;
  o.prefetch = 2;
  return o;
}

/// Every batch of one epoch.
std::vector<models::Batch> epoch(Loader& loader, int64_t e) {
  loader.startEpoch(e);
  std::vector<models::Batch> batches;
  while (std::optional<models::Batch> b = loader.next()) batches.push_back(std::move(*b));
  return batches;
}

/// `count` CosmoFlow samples in `dir`/train and `dir`/validation as .npy pairs, sample i's
/// first target being i so that tests can tell the samples apart.
void writeNumberedCosmoflow(const TempDir& dir, int count) {
  const std::vector<int16_t> x(2 * 2 * 2 * 4, 1);
  for (const char* split : {"train", "validation"}) {
    for (int i = 0; i < count; ++i) {
      char name[64];
      std::snprintf(name, sizeof name, "%s/u%03d", split, i);
      dir.write(std::string(name) + "_data.npy", npyFile("<i2", {2, 2, 2, 4}, x));
      dir.write(std::string(name) + "_label.npy",
                npyFile("<f4", {4}, std::vector<float>{static_cast<float>(i), 0, 0, 0}));
    }
  }
}

std::vector<int64_t> sampleIds(const std::vector<models::Batch>& batches) {
  std::vector<int64_t> ids;
  for (const models::Batch& b : batches) {
    for (int64_t i = 0; i < b.target.size(0); ++i) {
      ids.push_back(static_cast<int64_t>(b.target[i][0].item<float>()));
    }
  }
  return ids;
}

/// Eight noisy 40x30 JPEGs in two classes, under train/.
void writeImages(const TempDir& dir) {
  for (int i = 0; i < 8; ++i) {
    const auto pixels = fixtures::noisePixels(40, 30, static_cast<uint64_t>(i));
    dir.write("train/" + std::string(i % 2 ? "cat" : "dog") + "/" + std::to_string(i) + ".JPEG",
              encodeJpeg(pixels.data(), 40, 30, JpegColor::kRgb));
  }
}

void expectSameBatches(const std::vector<models::Batch>& a, const std::vector<models::Batch>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_TRUE(torch::equal(a[i].input, b[i].input)) << "batch " << i;
    EXPECT_TRUE(torch::equal(a[i].target, b[i].target)) << "batch " << i;
  }
}

// Verifies ImageFolder's class indices: class folders sorted by name, files by name, other
// files ignored; and the samples' shape and colour.
TEST(Loader, ImageNetClassesAreSortedFolders) {
  TempDir dir("imagenet");
  const int colours[3][3] = {{250, 0, 0}, {0, 250, 0}, {0, 0, 250}};  // apple, mango, zebra
  const char* classes[3] = {"apple", "mango", "zebra"};
  for (const int c : {2, 0, 1}) {
    for (const char* file : {"b.JPEG", "a.jpg"}) {
      writeFlatJpeg(dir, std::string("val/") + classes[c] + "/" + file, 20, 20, colours[c][0],
                    colours[c][1], colours[c][2]);
    }
  }
  dir.write("val/mango/notes.txt", "not an image");
  const auto loader = openLoader(options(ModelKind::kResnet50, dir.path(), false, {16}, 6));
  ASSERT_EQ(loader->batchesPerEpoch(), 1);
  const auto batches = epoch(*loader, 0);
  ASSERT_EQ(batches.size(), 1U);
  const models::Batch& b = batches[0];
  EXPECT_EQ(b.input.sizes(), (std::vector<int64_t>{6, 3, 16, 16}));
  EXPECT_EQ(b.input.dtype(), torch::kFloat32);
  EXPECT_EQ(b.target.dtype(), torch::kInt64);
  EXPECT_TRUE(torch::equal(b.target, torch::tensor({0, 0, 1, 1, 2, 2}, torch::kInt64)));
  for (int64_t i = 0; i < 6; ++i) {
    // The strongest channel of each image is its class' colour.
    const int64_t label = b.target[i].item<int64_t>();
    EXPECT_EQ(b.input[i].mean({1, 2}).argmax().item<int64_t>(), label) << i;
  }
}

// Verifies that through the loader the shards of all ranks are disjoint, equally long, and
// cover the epoch (training drops what fills no batch; validation pads).
TEST(Loader, ShardsOfAllRanksAreDisjointAndCoverTheEpoch) {
  TempDir dir("shards");
  writeNumberedCosmoflow(dir, 10);
  for (const bool train : {true, false}) {
    std::multiset<int64_t> seen;
    for (int64_t rank = 0; rank < 3; ++rank) {
      LoaderOptions o = options(ModelKind::kCosmoflow, dir.path(), train, {2}, 1);
      o.rank = rank;
      o.worldSize = 3;
      const auto loader = openLoader(o);
      EXPECT_EQ(loader->batchesPerEpoch(), train ? 3 : 4);
      for (const int64_t id : sampleIds(epoch(*loader, 1))) seen.insert(id);
    }
    std::set<int64_t> distinct(seen.begin(), seen.end());
    if (train) {
      EXPECT_EQ(seen.size(), 9U);
      EXPECT_EQ(distinct.size(), 9U);  // disjoint
    } else {
      EXPECT_EQ(seen.size(), 12U);
      EXPECT_EQ(distinct.size(), 10U);  // all ten, two of them twice (padding)
      EXPECT_EQ(seen.count(0) + seen.count(1), 4U);
    }
  }
}

// Verifies that the same seed gives the same batches, and that another epoch shuffles and
// augments differently.
TEST(Loader, SameSeedSameBatchesOtherEpochOtherOrder) {
  TempDir dir("seed");
  writeImages(dir);
  LoaderOptions o = options(ModelKind::kResnet50, dir.path(), true, {16}, 4);
  o.seed = 7;
  const auto a = openLoader(o);
  const auto b = openLoader(o);
  const auto first = epoch(*a, 0);
  expectSameBatches(first, epoch(*b, 0));
  const auto second = epoch(*a, 1);
  ASSERT_EQ(second.size(), 2U);
  EXPECT_FALSE(torch::equal(torch::cat({first[0].input, first[1].input}),
                            torch::cat({second[0].input, second[1].input})));
  // The same images in another order: the sorted file indices agree, not the sequences.
  const auto order = [](const std::vector<models::Batch>& batches) {
    return torch::cat({batches[0].target, batches[1].target});
  };
  EXPECT_TRUE(torch::equal(std::get<0>(order(first).sort()), std::get<0>(order(second).sort())));
}

// Verifies that batches do not depend on the number of threads or on the prefetch depth.
TEST(Loader, ResultsDoNotDependOnThreads) {
  TempDir dir("threads");
  writeImages(dir);
  LoaderOptions o = options(ModelKind::kResnet50, dir.path(), true, {16}, 3);
  o.threads = 1;
  o.prefetch = 1;
  const auto reference = epoch(*openLoader(o), 4);
  ASSERT_EQ(reference.size(), 2U);
  o.threads = 3;
  o.prefetch = 4;
  expectSameBatches(reference, epoch(*openLoader(o), 4));
  o.threads = 8;
  o.prefetch = 2;
  expectSameBatches(reference, epoch(*openLoader(o), 4));
}

// Verifies batchesPerEpoch and the batch sizes: training drops a partial batch, validation
// ends with it; next() says nullopt after the last, also when asked again.
TEST(Loader, BatchesPerEpoch) {
  TempDir dir("batches");
  writeNumberedCosmoflow(dir, 10);
  const auto train = openLoader(options(ModelKind::kCosmoflow, dir.path(), true, {2}, 4));
  EXPECT_EQ(train->batchesPerEpoch(), 2);
  const auto trainBatches = epoch(*train, 0);
  ASSERT_EQ(trainBatches.size(), 2U);
  EXPECT_EQ(trainBatches[1].input.size(0), 4);
  EXPECT_FALSE(train->next().has_value());
  const auto validation = openLoader(options(ModelKind::kCosmoflow, dir.path(), false, {2}, 4));
  EXPECT_EQ(validation->batchesPerEpoch(), 3);
  const auto validationBatches = epoch(*validation, 0);
  ASSERT_EQ(validationBatches.size(), 3U);
  EXPECT_EQ(validationBatches[2].input.size(0), 2);
  EXPECT_EQ(sampleIds(validationBatches), (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
}

/// CosmoFlow's x: int16 [side, side, side, 4] counts, varied.
std::vector<int16_t> universe(int side, int salt) {
  std::vector<int16_t> x(static_cast<size_t>(side * side * side * 4));
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<int16_t>((i * 7 + salt) % 300);
  return x;
}

// Verifies that HDF5 and .npy samples of the same data give the same tensors: log1p of the
// counts, channels first, the leading corner when the sample size is smaller than the file.
TEST(Loader, CosmoflowHdf5AndNpyGiveTheSameTensors) {
  TempDir hdf5("cosmo_h5"), npy("cosmo_npy");
  std::filesystem::create_directories(hdf5.file("validation"));
  for (int i = 0; i < 2; ++i) {
    const std::vector<int16_t> x = universe(6, i);
    const std::vector<float> y = {0.1F * i, -0.2F, 0.3F, 0.4F};
    Hdf5Writer(hdf5.file("validation/univ" + std::to_string(i) + ".h5"))
        .write("x", {6, 6, 6, 4}, x)
        .write("y", {4}, y);
    npy.write("validation/univ" + std::to_string(i) + "_data.npy", npyFile("<i2", {6, 6, 6, 4}, x));
    npy.write("validation/univ" + std::to_string(i) + "_label.npy", npyFile("<f4", {4}, y));
  }
  const auto fromHdf5 =
      epoch(*openLoader(options(ModelKind::kCosmoflow, hdf5.path(), false, {4}, 2)), 0);
  const auto fromNpy =
      epoch(*openLoader(options(ModelKind::kCosmoflow, npy.path(), false, {4}, 2)), 0);
  expectSameBatches(fromHdf5, fromNpy);
  ASSERT_EQ(fromHdf5.size(), 1U);
  const models::Batch& b = fromHdf5[0];
  EXPECT_EQ(b.input.sizes(), (std::vector<int64_t>{2, 4, 4, 4, 4}));
  EXPECT_EQ(b.target.sizes(), (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(b.target.dtype(), torch::kFloat32);
  for (int i = 0; i < 2; ++i) {
    const torch::Tensor x = torch::tensor(universe(6, i)).reshape({6, 6, 6, 4});
    const torch::Tensor expected =
        torch::log1p(x.slice(0, 0, 4).slice(1, 0, 4).slice(2, 0, 4).to(torch::kFloat32))
            .permute({3, 0, 1, 2});
    EXPECT_TRUE(torch::allclose(b.input[i], expected, 1e-6, 1e-6)) << i;
    EXPECT_FLOAT_EQ(b.target[i][0].item<float>(), 0.1F * i);
    EXPECT_FLOAT_EQ(b.target[i][1].item<float>(), -0.2F);
  }
  // One value by hand: x[0, 0, 1, 2] = (1 * 4 + 2) * 7 = 42 lands at [2, 0, 0, 1].
  EXPECT_FLOAT_EQ(b.input[0][2][0][0][1].item<float>(), std::log(43.0F));
}

// Verifies that a sample size larger than the universes is an error naming the file.
TEST(Loader, CosmoflowRefusesSamplesLargerThanTheFile) {
  TempDir dir("cosmo_small");
  std::filesystem::create_directories(dir.file("train"));
  Hdf5Writer(dir.file("train/u.h5"))
      .write("x", {6, 6, 6, 4}, universe(6, 0))
      .write("y", {4}, std::vector<float>(4, 0));
  const auto loader = openLoader(options(ModelKind::kCosmoflow, dir.path(), true, {8}, 1));
  loader->startEpoch(0);
  const std::string message = errorOf([&] { loader->next(); });
  EXPECT_NE(message.find(dir.file("train/u.h5")), std::string::npos) << message;
  EXPECT_NE(message.find("[6, 6, 6, 4]"), std::string::npos) << message;
}

/// A DeepCAM dataset: stats.h5 and `count` validation images of [h, w, 16] with labels.
void writeDeepcam(const TempDir& dir, int count, int h, int w, int badLabel = -1) {
  std::vector<float> minval(16), maxval(16);
  for (int c = 0; c < 16; ++c) {
    minval[static_cast<size_t>(c)] = -1.0F * c;
    maxval[static_cast<size_t>(c)] = 2.0F + c;
  }
  Hdf5Writer(dir.file("stats.h5"))
      .write("climate/minval", {16}, minval)
      .write("climate/maxval", {16}, maxval);
  std::filesystem::create_directories(dir.file("validation"));
  for (int i = 0; i < count; ++i) {
    std::vector<float> data(static_cast<size_t>(h * w * 16));
    for (size_t k = 0; k < data.size(); ++k) data[k] = static_cast<float>((k * 13 + i) % 17) - 3;
    std::vector<int32_t> labels(static_cast<size_t>(h * w));
    for (size_t k = 0; k < labels.size(); ++k) labels[k] = static_cast<int32_t>((k + i) % 3);
    if (badLabel >= 0) labels[5] = badLabel;
    Hdf5Writer(dir.file("validation/data-" + std::to_string(i) + ".h5"))
        .write("climate/data", {h, w, 16}, data)
        .write("climate/labels_0", {h, w}, labels);
  }
}

// Verifies DeepCAM's normalisation (x - minval) / (maxval - minval) per channel, channels
// first, the top-left corner at a smaller sample size, and the labels as int64.
TEST(Loader, DeepcamNormalisesWithItsStatistics) {
  TempDir dir("deepcam");
  writeDeepcam(dir, 2, 6, 10);
  const auto batches =
      epoch(*openLoader(options(ModelKind::kDeepcam, dir.path(), false, {4, 8}, 2)), 0);
  ASSERT_EQ(batches.size(), 1U);
  const models::Batch& b = batches[0];
  EXPECT_EQ(b.input.sizes(), (std::vector<int64_t>{2, 16, 4, 8}));
  EXPECT_EQ(b.target.sizes(), (std::vector<int64_t>{2, 4, 8}));
  EXPECT_EQ(b.target.dtype(), torch::kInt64);
  for (int i = 0; i < 2; ++i) {
    for (int y = 0; y < 4; ++y) {
      for (int x = 0; x < 8; ++x) {
        const int pixel = y * 10 + x;
        EXPECT_EQ(b.target[i][y][x].item<int64_t>(), (pixel + i) % 3);
        for (int c = 0; c < 16; ++c) {
          const float raw = static_cast<float>(((pixel * 16 + c) * 13 + i) % 17) - 3;
          const float expected = (raw + c) / (2.0F + 2 * c);
          ASSERT_NEAR(b.input[i][c][y][x].item<float>(), expected, 1e-6) << i << c << y << x;
        }
      }
    }
  }
}

// Verifies that labels outside DeepCAM's three classes are an error naming the file.
TEST(Loader, DeepcamRefusesUnknownLabels) {
  TempDir dir("deepcam_bad");
  writeDeepcam(dir, 1, 4, 4, 7);
  const auto loader = openLoader(options(ModelKind::kDeepcam, dir.path(), false, {4, 4}, 1));
  loader->startEpoch(0);
  const std::string message = errorOf([&] { loader->next(); });
  EXPECT_NE(message.find(dir.file("validation/data-0.h5")), std::string::npos) << message;
  EXPECT_NE(message.find("holds 7"), std::string::npos) << message;
}

// Verifies that corrupt and truncated files, and missing datasets, surface from next() as
// errors naming the file, in order, after the good batches before them.
TEST(Loader, FileErrorsNameTheFile) {
  TempDir images("bad_images");
  writeFlatJpeg(images, "val/a/1.jpg", 20, 20, 10, 20, 30);
  images.write("val/b/2.jpg", "this is no JPEG");
  const auto imageLoader = openLoader(options(ModelKind::kResnet50, images.path(), false, {16}, 1));
  imageLoader->startEpoch(0);
  EXPECT_TRUE(imageLoader->next().has_value());
  EXPECT_NE(errorOf([&] { imageLoader->next(); }).find(images.file("val/b/2.jpg")),
            std::string::npos);

  TempDir cosmo("bad_cosmo");
  std::filesystem::create_directories(cosmo.file("validation"));
  Hdf5Writer(cosmo.file("validation/a.h5")).write("x", {2, 2, 2, 4}, universe(2, 0));
  Hdf5Writer(cosmo.file("validation/b.h5"))
      .write("x", {2, 2, 2, 4}, universe(2, 0))
      .write("y", {4}, std::vector<float>(4, 0));
  std::filesystem::resize_file(cosmo.file("validation/b.h5"),
                               std::filesystem::file_size(cosmo.file("validation/b.h5")) / 2);
  const auto cosmoLoader = openLoader(options(ModelKind::kCosmoflow, cosmo.path(), false, {2}, 1));
  cosmoLoader->startEpoch(0);
  const std::string missing = errorOf([&] { cosmoLoader->next(); });
  EXPECT_NE(missing.find(cosmo.file("validation/a.h5")), std::string::npos) << missing;
  EXPECT_NE(missing.find("no dataset 'y'"), std::string::npos) << missing;
  const std::string truncated = errorOf([&] { cosmoLoader->next(); });
  EXPECT_NE(truncated.find(cosmo.file("validation/b.h5")), std::string::npos) << truncated;
  EXPECT_FALSE(cosmoLoader->next().has_value());
}

// Verifies that problems with the dataset as a whole are found by openLoader and name the
// path: a missing split, missing statistics, an empty class folder, too few samples.
TEST(Loader, DatasetErrorsNameThePath) {
  TempDir dir("bad_dataset");
  EXPECT_NE(errorOf([&] {
              openLoader(options(ModelKind::kResnet50, dir.path(), true, {16}, 1));
            }).find(dir.file("train")),
            std::string::npos);
  std::filesystem::create_directories(dir.file("train/empty"));
  EXPECT_NE(errorOf([&] {
              openLoader(options(ModelKind::kResnet50, dir.path(), true, {16}, 1));
            }).find(dir.file("train/empty")),
            std::string::npos);
  std::filesystem::create_directories(dir.file("validation"));
  dir.write("validation/x.h5", "");
  EXPECT_NE(errorOf([&] {
              openLoader(options(ModelKind::kDeepcam, dir.path(), false, {16}, 1));
            }).find(dir.file("stats.h5")),
            std::string::npos);
  TempDir few("few");
  writeNumberedCosmoflow(few, 3);
  EXPECT_NE(errorOf([&] {
              openLoader(options(ModelKind::kCosmoflow, few.path(), true, {2}, 4));
            }).find("no whole batch"),
            std::string::npos);
}

// Verifies that bad options are refused with std::invalid_argument, a sample size the format
// cannot take with a message naming the model.
TEST(Loader, RefusesBadOptions) {
  TempDir dir("options");
  writeNumberedCosmoflow(dir, 4);
  const auto refused = [&](auto change) {
    LoaderOptions o = options(ModelKind::kCosmoflow, dir.path(), true, {2}, 1);
    change(o);
    EXPECT_THROW(openLoader(o), std::invalid_argument);
  };
  refused([](LoaderOptions& o) { o.batchSize = 0; });
  refused([](LoaderOptions& o) { o.threads = 0; });
  refused([](LoaderOptions& o) { o.prefetch = 0; });
  refused([](LoaderOptions& o) {
    o.rank = 2;
    o.worldSize = 2;
  });
  refused([](LoaderOptions& o) { o.sampleSize = {2, 2}; });
  refused([](LoaderOptions& o) { o.sampleSize = {0}; });
  if (!torch::cuda::is_available()) refused([](LoaderOptions& o) { o.pinMemory = true; });
  const auto sizeError = [&](ModelKind model, std::vector<int64_t> size) {
    try {
      openLoader(options(model, dir.path(), true, std::move(size), 1));
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_EQ(sizeError(ModelKind::kCosmoflow, {2, 2}),
            "cosmoflow data takes a sample size of one positive side, not 2x2");
  EXPECT_EQ(sizeError(ModelKind::kDeepcam, {4, 0}),
            "deepcam data takes a sample size of one or two positive sides, not 4x0");
  const auto loader = openLoader(options(ModelKind::kCosmoflow, dir.path(), true, {2}, 1));
  EXPECT_THROW(loader->next(), std::logic_error);
}

// Verifies that a new epoch may start before the last is drained and then matches a fresh
// loader's, and that destroying a loader whose queue is full returns promptly.
TEST(Loader, RestartsAndStopsWithAnUndrainedQueue) {
  TempDir dir("undrained");
  writeImages(dir);
  LoaderOptions o = options(ModelKind::kResnet50, dir.path(), true, {16}, 1);
  o.threads = 3;
  o.prefetch = 3;
  auto loader = openLoader(o);
  loader->startEpoch(0);
  ASSERT_TRUE(loader->next().has_value());
  const auto restarted = epoch(*loader, 1);
  expectSameBatches(restarted, epoch(*openLoader(o), 1));
  loader->startEpoch(2);
  ASSERT_TRUE(loader->next().has_value());
  auto done = std::async(std::launch::async, [&] { loader.reset(); });
  if (done.wait_for(std::chrono::seconds(30)) != std::future_status::ready) {
    std::fputs("Loader's destructor did not return within 30 s\n", stderr);
    std::abort();  // a hung join cannot be failed and left behind
  }
}

}  // namespace
}  // namespace hetbench::data
