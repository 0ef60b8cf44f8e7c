#pragma once

// Reading datasets of an HDF5 file through the C API, with errors that name the file. Debian's
// libhdf5 is built thread-safe (one global lock), so several loader threads may read at once.

#include <hdf5.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace hetbench::data {

/// An HDF5 identifier closed by the function that matches its kind.
class Hdf5Id {
 public:
  Hdf5Id(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  ~Hdf5Id() {
    if (id_ >= 0) close_(id_);
  }
  Hdf5Id(const Hdf5Id&) = delete;
  Hdf5Id& operator=(const Hdf5Id&) = delete;
  Hdf5Id(Hdf5Id&& other) noexcept : id_(other.id_), close_(other.close_) { other.id_ = -1; }
  Hdf5Id& operator=(Hdf5Id&&) = delete;
  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

class Hdf5File;

/// One dataset of an open file (Hdf5File::dataset), looked up and opened once for its shape and
/// its reads. The file must outlive it.
class Hdf5Dataset {
 public:
  /// The dataset's dimensions; throws naming the file and the dataset when they cannot be read.
  std::vector<int64_t> shape() const;
  /// Reads the leading corner [0, count[i]) of a numeric dataset, converted by HDF5 to float,
  /// int64 or double, in C order. count has the dataset's rank.
  void read(const std::vector<int64_t>& count, float* out) const;
  void read(const std::vector<int64_t>& count, int64_t* out) const;
  void read(const std::vector<int64_t>& count, double* out) const;

 private:
  friend class Hdf5File;
  Hdf5Dataset(const std::string& path, std::string name, Hdf5Id id)
      : path_(path), name_(std::move(name)), id_(std::move(id)) {}
  void readAs(const std::vector<int64_t>& count, hid_t memType, void* out) const;

  const std::string& path_;
  std::string name_;
  Hdf5Id id_;
};

/// One HDF5 file opened read-only.
class Hdf5File {
 public:
  /// Throws std::runtime_error naming the path (and HDF5's reason) when it cannot be opened.
  explicit Hdf5File(const std::string& path);

  const std::string& path() const { return path_; }
  /// Whether `name` (a path such as "climate/data") is a dataset of the file.
  bool hasDataset(const std::string& name) const;
  /// Opens the dataset; throws naming the file and the dataset when it is missing.
  Hdf5Dataset dataset(const std::string& name) const;

 private:
  std::string path_;
  Hdf5Id file_;
};

}  // namespace hetbench::data
