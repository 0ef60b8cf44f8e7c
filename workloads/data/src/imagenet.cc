#include <algorithm>
#include <cctype>
#include <stdexcept>
#include <utility>

#include "hetbench/data/image.h"
#include "readers.h"

namespace hetbench::data {
namespace {

namespace fs = std::filesystem;

bool isJpegName(const fs::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext == ".jpeg" || ext == ".jpg";
}

class ImageFolder : public Dataset {
 public:
  ImageFolder(const fs::path& split, bool train, int height, int width) {
    transform_.height = height;
    transform_.width = width;
    transform_.train = train;
    layout_ = SampleLayout{{3, height, width}, {}, true};
    std::vector<std::string> classes;
    for (const fs::directory_entry& entry : fs::directory_iterator(split)) {
      if (entry.is_directory()) classes.push_back(entry.path().filename().string());
    }
    std::sort(classes.begin(), classes.end());  // bytewise: Python's order of UTF-8 names
    if (classes.empty()) {
      throw std::runtime_error(split.string() + ": no class folders");
    }
    for (size_t label = 0; label < classes.size(); ++label) {
      // ImageFolder walks each class folder recursively (following links) and sorts what it
      // finds by folder, then by name.
      std::vector<std::pair<std::string, std::string>> found;
      const fs::path dir = split / classes[label];
      for (auto it = fs::recursive_directory_iterator(
               dir, fs::directory_options::follow_directory_symlink);
           it != fs::recursive_directory_iterator(); ++it) {
        if (it->is_regular_file() && isJpegName(it->path())) {
          found.emplace_back(it->path().parent_path().string(), it->path().filename().string());
        }
      }
      if (found.empty()) {
        throw std::runtime_error(dir.string() + ": no .jpg or .jpeg files in class folder");
      }
      std::sort(found.begin(), found.end());
      for (const auto& [folder, name] : found) {
        files_.push_back((fs::path(folder) / name).string());
        labels_.push_back(static_cast<int64_t>(label));
      }
    }
  }

  int64_t size() const override { return static_cast<int64_t>(files_.size()); }
  const SampleLayout& layout() const override { return layout_; }

  void read(int64_t index, uint64_t seed, float* input, void* target) const override {
    const std::string& file = files_[static_cast<size_t>(index)];
    decodeImageSample(readFile(file), file, transform_, seed, input);
    *static_cast<int64_t*>(target) = labels_[static_cast<size_t>(index)];
  }

 private:
  ImageTransform transform_;
  SampleLayout layout_;
  std::vector<std::string> files_;
  std::vector<int64_t> labels_;
};

}  // namespace

std::unique_ptr<Dataset> openImageFolder(const fs::path& split, bool train, int height, int width) {
  return std::make_unique<ImageFolder>(split, train, height, width);
}

}  // namespace hetbench::data
