#include <cmath>
#include <stdexcept>

#include "hdf5_file.h"
#include "hetbench/data/npy.h"
#include "readers.h"

namespace hetbench::data {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kChannels = 4;  // redshift bins
constexpr char kDataSuffix[] = "_data.npy";
constexpr char kLabelSuffix[] = "_label.npy";

/// Checks a universe's shape, [D, H, W, 4] with sides at least `side`.
void checkUniverse(const std::string& file, const std::string& what,
                   const std::vector<int64_t>& shape, int64_t side) {
  if (shape.size() != 4 || shape[3] != kChannels || shape[0] < side || shape[1] < side ||
      shape[2] < side) {
    throw std::runtime_error(file + ": " + what + " has shape " + formatShape(shape) +
                             ", not [D, H, W, 4] with D, H, W >= " + std::to_string(side));
  }
}

void checkTarget(const std::string& file, const std::string& what,
                 const std::vector<int64_t>& shape) {
  if (shape != std::vector<int64_t>{kChannels}) {
    throw std::runtime_error(file + ": " + what + " has shape " + formatShape(shape) + ", not [4]");
  }
}

/// One row x[d, h, 0:side, :] into the channels-first output, with the reference's log(1 + x).
void scatterRow(const float* row, int64_t d, int64_t h, int64_t side, float* out) {
  const int64_t volume = side * side * side;
  float* dst = out + (d * side + h) * side;
  for (int64_t w = 0; w < side; ++w) {
    for (int64_t c = 0; c < kChannels; ++c)
      dst[c * volume + w] = std::log1p(row[w * kChannels + c]);
  }
}

class Cosmoflow : public Dataset {
 public:
  Cosmoflow(const fs::path& split, int64_t side) : side_(side) {
    layout_ = SampleLayout{{kChannels, side, side, side}, {kChannels}, false};
    const std::vector<std::string> hdf5 = listFiles(split, {".h5", ".hdf5"});
    const std::vector<std::string> npy = listFiles(split, {kDataSuffix});
    if (!hdf5.empty() && !npy.empty()) {
      throw std::runtime_error(split.string() + ": holds both HDF5 files and " + kDataSuffix +
                               " files; keep one format in a split");
    }
    if (hdf5.empty() && npy.empty()) {
      throw std::runtime_error(split.string() + ": no .h5, .hdf5 or " + kDataSuffix + " files");
    }
    npy_ = !npy.empty();
    files_ = npy_ ? npy : hdf5;
    if (npy_) {
      for (const std::string& data : files_) {
        const std::string label =
            data.substr(0, data.size() - std::string(kDataSuffix).size()) + kLabelSuffix;
        std::error_code ec;
        if (!fs::is_regular_file(label, ec)) {
          throw std::runtime_error(data + ": its labels " + label + " are missing");
        }
        labels_.push_back(label);
      }
    }
  }

  int64_t size() const override { return static_cast<int64_t>(files_.size()); }
  const SampleLayout& layout() const override { return layout_; }

  void read(int64_t index, uint64_t, float* input, void* target) const override {
    const auto i = static_cast<size_t>(index);
    if (npy_) {
      readNpySample(files_[i], labels_[i], input, static_cast<float*>(target));
    } else {
      readHdf5Sample(files_[i], input, static_cast<float*>(target));
    }
  }

 private:
  void readHdf5Sample(const std::string& path, float* input, float* target) const {
    const Hdf5File file(path);
    const Hdf5Dataset x = file.dataset("x");
    checkUniverse(path, "dataset 'x'", x.shape(), side_);
    const Hdf5Dataset y = file.dataset("y");
    checkTarget(path, "dataset 'y'", y.shape());
    thread_local std::vector<float> scratch;
    const int64_t row = side_ * kChannels;
    scratch.resize(static_cast<size_t>(side_ * side_ * row));
    x.read({side_, side_, side_, kChannels}, scratch.data());
    for (int64_t d = 0; d < side_; ++d) {
      for (int64_t h = 0; h < side_; ++h) {
        scatterRow(scratch.data() + (d * side_ + h) * row, d, h, side_, input);
      }
    }
    y.read({kChannels}, target);
  }

  void readNpySample(const std::string& dataPath, const std::string& labelPath, float* input,
                     float* target) const {
    const std::string bytes = readFile(dataPath);
    const NpyHeader header = parseNpyHeader(bytes, dataPath);
    checkUniverse(dataPath, "the array", header.shape, side_);
    const char* data = npyData(header, bytes, dataPath);
    const int64_t height = header.shape[1];
    const int64_t width = header.shape[2];
    thread_local std::vector<float> row;
    row.resize(static_cast<size_t>(side_ * kChannels));
    for (int64_t d = 0; d < side_; ++d) {
      for (int64_t h = 0; h < side_; ++h) {
        const int64_t offset = (d * height + h) * width * kChannels;
        npyToFloat(header, data + offset * header.itemSize, side_ * kChannels, row.data());
        scatterRow(row.data(), d, h, side_, input);
      }
    }
    const NpyArray label = readNpy(labelPath);
    checkTarget(labelPath, "the array", label.shape);
    std::copy(label.values.begin(), label.values.end(), target);
  }

  int64_t side_;
  SampleLayout layout_;
  bool npy_ = false;
  std::vector<std::string> files_;
  std::vector<std::string> labels_;
};

}  // namespace

std::unique_ptr<Dataset> openCosmoflow(const fs::path& split, int64_t side) {
  return std::make_unique<Cosmoflow>(split, side);
}

}  // namespace hetbench::data
