#pragma once

// The three datasets' readers, created by openDataset (dataset.cc).

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "hetbench/data/dataset.h"
#include "hetbench/data/npy.h"

namespace hetbench::data {

/// torchvision's ImageFolder over `split`: a folder per class, classes sorted by name.
std::unique_ptr<Dataset> openImageFolder(const std::filesystem::path& split, bool train, int height,
                                         int width);

/// CosmoFlow universes in `split`: HDF5 files with `x` and `y`, or `*_data.npy` with
/// `*_label.npy`.
std::unique_ptr<Dataset> openCosmoflow(const std::filesystem::path& split, int64_t side);

/// DeepCAM climate images in `split`, normalised with the statistics file `stats`.
std::unique_ptr<Dataset> openDeepcam(const std::filesystem::path& split,
                                     const std::filesystem::path& stats, int64_t height,
                                     int64_t width);

/// The whole file; throws std::runtime_error naming it.
std::string readFile(const std::string& path);

/// Where the data of an .npy file read whole into `bytes` starts; throws std::runtime_error
/// naming `name` when the file is shorter than the header's shape needs.
const char* npyData(const NpyHeader& header, const std::string& bytes, const std::string& name);

/// The regular files directly in `dir` whose names end in one of `suffixes`, sorted.
std::vector<std::string> listFiles(const std::filesystem::path& dir,
                                   const std::vector<std::string>& suffixes);

/// "[a, b, c]", for messages.
std::string formatShape(const std::vector<int64_t>& shape);

}  // namespace hetbench::data
