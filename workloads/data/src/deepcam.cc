#include <stdexcept>

#include "hdf5_file.h"
#include "readers.h"

namespace hetbench::data {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kChannels = 16;
constexpr int64_t kClasses = 3;  // background, tropical cyclone, atmospheric river
constexpr char kData[] = "climate/data";
constexpr char kLabels[] = "climate/labels_0";

class Deepcam : public Dataset {
 public:
  Deepcam(const fs::path& split, const fs::path& stats, int64_t height, int64_t width)
      : height_(height), width_(width) {
    layout_ = SampleLayout{{kChannels, height, width}, {height, width}, true};
    files_ = listFiles(split, {".h5"});
    if (files_.empty()) throw std::runtime_error(split.string() + ": no .h5 files");
    // The reference normalises each channel to [0, 1] over the training data's range:
    // (x - minval) / (maxval - minval), from stats.h5's climate/minval and climate/maxval.
    const Hdf5File file(stats.string());
    std::vector<double> minval(kChannels), maxval(kChannels);
    for (const auto& [name, values] :
         {std::pair{"climate/minval", &minval}, std::pair{"climate/maxval", &maxval}}) {
      const Hdf5Dataset dataset = file.dataset(name);
      const std::vector<int64_t> shape = dataset.shape();
      if (shape != std::vector<int64_t>{kChannels}) {
        throw std::runtime_error(stats.string() + ": dataset '" + name + "' has shape " +
                                 formatShape(shape) + ", not [16]");
      }
      dataset.read({kChannels}, values->data());
    }
    for (int64_t c = 0; c < kChannels; ++c) {
      const auto i = static_cast<size_t>(c);
      if (!(maxval[i] > minval[i])) {
        throw std::runtime_error(stats.string() + ": channel " + std::to_string(c) +
                                 " has maxval <= minval");
      }
      shift_[i] = static_cast<float>(minval[i]);
      scale_[i] = static_cast<float>(1.0 / (maxval[i] - minval[i]));
    }
  }

  int64_t size() const override { return static_cast<int64_t>(files_.size()); }
  const SampleLayout& layout() const override { return layout_; }

  void read(int64_t index, uint64_t, float* input, void* target) const override {
    const std::string& path = files_[static_cast<size_t>(index)];
    const Hdf5File file(path);
    const Hdf5Dataset data = file.dataset(kData);
    const std::vector<int64_t> shape = data.shape();
    if (shape.size() != 3 || shape[2] != kChannels || shape[0] < height_ || shape[1] < width_) {
      throw std::runtime_error(path + ": dataset '" + kData + "' has shape " + formatShape(shape) +
                               ", not [H, W, 16] with H >= " + std::to_string(height_) +
                               ", W >= " + std::to_string(width_));
    }
    const Hdf5Dataset labelData = file.dataset(kLabels);
    const std::vector<int64_t> labelShape = labelData.shape();
    if (labelShape != std::vector<int64_t>{shape[0], shape[1]}) {
      throw std::runtime_error(path + ": dataset '" + kLabels + "' has shape " +
                               formatShape(labelShape) + ", not the data's [H, W] " +
                               formatShape({shape[0], shape[1]}));
    }
    thread_local std::vector<float> scratch;
    const int64_t pixels = height_ * width_;
    scratch.resize(static_cast<size_t>(pixels * kChannels));
    data.read({height_, width_, kChannels}, scratch.data());
    for (int64_t p = 0; p < pixels; ++p) {  // HWC to CHW, normalised
      const float* src = scratch.data() + p * kChannels;
      for (int64_t c = 0; c < kChannels; ++c) {
        const auto i = static_cast<size_t>(c);
        input[c * pixels + p] = (src[c] - shift_[i]) * scale_[i];
      }
    }
    auto* labels = static_cast<int64_t*>(target);
    labelData.read({height_, width_}, labels);
    for (int64_t p = 0; p < pixels; ++p) {
      if (labels[p] < 0 || labels[p] >= kClasses) {
        throw std::runtime_error(path + ": dataset '" + kLabels + "' holds " +
                                 std::to_string(labels[p]) + ", not a class in 0.." +
                                 std::to_string(kClasses - 1));
      }
    }
  }

 private:
  int64_t height_;
  int64_t width_;
  SampleLayout layout_;
  std::vector<std::string> files_;
  float shift_[kChannels] = {};
  float scale_[kChannels] = {};
};

}  // namespace

std::unique_ptr<Dataset> openDeepcam(const fs::path& split, const fs::path& stats, int64_t height,
                                     int64_t width) {
  return std::make_unique<Deepcam>(split, stats, height, width);
}

}  // namespace hetbench::data
