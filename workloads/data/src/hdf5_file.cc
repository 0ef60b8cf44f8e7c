#include "hdf5_file.h"

#include <stdexcept>

namespace hetbench::data {
namespace {

/// HDF5 prints its error stack to stderr unless told not to; the setting is per thread in a
/// thread-safe build, so every thread that calls in turns it off first.
void quietErrors() {
  thread_local bool quiet = false;
  if (!quiet) {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    quiet = true;
  }
}

/// The innermost message of this thread's HDF5 error stack (the most specific cause).
std::string lastError() {
  std::string message;
  H5Ewalk2(
      H5E_DEFAULT, H5E_WALK_UPWARD,
      [](unsigned n, const H5E_error2_t* e, void* data) -> herr_t {
        if (n == 0 && e->desc != nullptr) *static_cast<std::string*>(data) = e->desc;
        return 0;
      },
      &message);
  H5Eclear2(H5E_DEFAULT);
  return message.empty() ? "unknown HDF5 error" : message;
}

}  // namespace

Hdf5File::Hdf5File(const std::string& path)
    : path_(path),
      file_((quietErrors(), H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT)), H5Fclose) {
  if (!file_.valid()) {
    throw std::runtime_error(path + ": cannot open as HDF5: " + lastError());
  }
}

bool Hdf5File::hasDataset(const std::string& name) const {
  quietErrors();
  // H5Lexists fails rather than says no when a group on the way is missing: check each part.
  size_t end = 0;
  while (end != std::string::npos) {
    end = name.find('/', end + 1);
    const std::string part = name.substr(0, end);
    if (H5Lexists(file_.get(), part.c_str(), H5P_DEFAULT) <= 0) {
      H5Eclear2(H5E_DEFAULT);
      return false;
    }
  }
  const Hdf5Id object(H5Oopen(file_.get(), name.c_str(), H5P_DEFAULT), H5Oclose);
  if (!object.valid()) H5Eclear2(H5E_DEFAULT);
  return object.valid() && H5Iget_type(object.get()) == H5I_DATASET;
}

Hdf5Dataset Hdf5File::dataset(const std::string& name) const {
  if (!hasDataset(name)) throw std::runtime_error(path_ + ": no dataset '" + name + "'");
  Hdf5Id dataset(H5Dopen2(file_.get(), name.c_str(), H5P_DEFAULT), H5Dclose);
  if (!dataset.valid()) {
    throw std::runtime_error(path_ + ": cannot open dataset '" + name + "': " + lastError());
  }
  return Hdf5Dataset(path_, name, std::move(dataset));
}

std::vector<int64_t> Hdf5Dataset::shape() const {
  const Hdf5Id space(H5Dget_space(id_.get()), H5Sclose);
  const int rank = space.valid() ? H5Sget_simple_extent_ndims(space.get()) : -1;
  if (rank < 0) {
    throw std::runtime_error(path_ + ": cannot read the shape of '" + name_ + "': " + lastError());
  }
  std::vector<hsize_t> dims(static_cast<size_t>(rank));
  H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  return std::vector<int64_t>(dims.begin(), dims.end());
}

void Hdf5Dataset::readAs(const std::vector<int64_t>& count, hid_t memType, void* out) const {
  const Hdf5Id type(H5Dget_type(id_.get()), H5Tclose);
  const H5T_class_t cls = type.valid() ? H5Tget_class(type.get()) : H5T_NO_CLASS;
  if (cls != H5T_INTEGER && cls != H5T_FLOAT) {
    throw std::runtime_error(path_ + ": dataset '" + name_ + "' is not numeric");
  }
  const Hdf5Id fileSpace(H5Dget_space(id_.get()), H5Sclose);
  std::vector<hsize_t> start(count.size(), 0);
  std::vector<hsize_t> extent(count.begin(), count.end());
  const Hdf5Id memSpace(H5Screate_simple(static_cast<int>(extent.size()), extent.data(), nullptr),
                        H5Sclose);
  if (!fileSpace.valid() || !memSpace.valid() ||
      H5Sselect_hyperslab(fileSpace.get(), H5S_SELECT_SET, start.data(), nullptr, extent.data(),
                          nullptr) < 0 ||
      H5Dread(id_.get(), memType, memSpace.get(), fileSpace.get(), H5P_DEFAULT, out) < 0) {
    throw std::runtime_error(path_ + ": cannot read dataset '" + name_ + "': " + lastError());
  }
}

void Hdf5Dataset::read(const std::vector<int64_t>& count, float* out) const {
  readAs(count, H5T_NATIVE_FLOAT, out);
}

void Hdf5Dataset::read(const std::vector<int64_t>& count, int64_t* out) const {
  readAs(count, H5T_NATIVE_INT64, out);
}

void Hdf5Dataset::read(const std::vector<int64_t>& count, double* out) const {
  readAs(count, H5T_NATIVE_DOUBLE, out);
}

}  // namespace hetbench::data
