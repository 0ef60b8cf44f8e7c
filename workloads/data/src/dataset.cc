#include "hetbench/data/dataset.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <stdexcept>

#include "readers.h"

namespace hetbench::data {
namespace {

namespace fs = std::filesystem;

std::string sizeText(const std::vector<int64_t>& size) {
  std::string text;
  for (const int64_t s : size) text += (text.empty() ? "" : "x") + std::to_string(s);
  return text.empty() ? "{}" : text;
}

/// {height, width} from a sample size of at most as many positive sides as the benchmark's (one
/// side of an image makes a square), or the benchmark's.
std::pair<int64_t, int64_t> sides(const DatasetOptions& o) {
  const models::ModelDescriptor& model = models::descriptor(o.model);
  const auto& s = o.sampleSize.empty() ? model.sampleSize : o.sampleSize;
  const bool oneSideOnly = model.sampleSize.size() == 1;
  const bool positive = std::all_of(s.begin(), s.end(), [](int64_t v) { return v > 0; });
  if (!positive || s.size() > model.sampleSize.size()) {
    throw std::invalid_argument(model.name + " data takes a sample size of " +
                                (oneSideOnly ? "one positive side" : "one or two positive sides") +
                                ", not " + sizeText(s));
  }
  return {s[0], s.size() == 2 ? s[1] : s[0]};
}

fs::path split(const DatasetOptions& o, const char* train, const char* validation) {
  const fs::path dir = o.path / (o.train ? train : validation);
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    throw std::runtime_error(
        dir.string() + ": no such directory (" + models::descriptor(o.model).name + " reads " +
        (o.path / train).string() + " and " + (o.path / validation).string() + ")");
  }
  return dir;
}

}  // namespace

std::string readFile(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) throw std::runtime_error(path + ": cannot open");
  std::string bytes;
  char buffer[1 << 16];
  size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, f)) > 0) bytes.append(buffer, n);
  const bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) throw std::runtime_error(path + ": cannot read");
  return bytes;
}

std::vector<std::string> listFiles(const fs::path& dir, const std::vector<std::string>& suffixes) {
  std::vector<std::string> files;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    const std::string name = entry.path().filename().string();
    for (const std::string& suffix : suffixes) {
      if (name.size() > suffix.size() && name.ends_with(suffix)) {
        files.push_back(entry.path().string());
        break;
      }
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string formatShape(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    text += (i > 0 ? ", " : "") + std::to_string(shape[i]);
  }
  return text + "]";
}

std::unique_ptr<Dataset> openDataset(const DatasetOptions& o) {
  const auto [h, w] = sides(o);
  switch (models::descriptor(o.model).data) {
    case models::DataFormat::kImageFolder:
      return openImageFolder(split(o, "train", "val"), o.train, static_cast<int>(h),
                             static_cast<int>(w));
    case models::DataFormat::kCosmoflow:
      return openCosmoflow(split(o, "train", "validation"), h);
    case models::DataFormat::kDeepcam:
      return openDeepcam(split(o, "train", "validation"), o.path / "stats.h5", h, w);
  }
  throw std::invalid_argument("unknown data format");
}

}  // namespace hetbench::data
