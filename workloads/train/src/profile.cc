#include "hetbench/train/profile.h"

#include <torch/csrc/autograd/profiler_kineto.h>
#include <torch/version.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <tuple>
#include <utility>

namespace hetbench::train {
namespace {

namespace kineto = torch::autograd::profiler;
using torch::profiler::impl::ActivityType;
using torch::profiler::impl::ProfilerConfig;
using torch::profiler::impl::ProfilerState;

double microsecondsOf(const kineto::KinetoEvent& event) {
  // LibTorch 2.1 moved the events' times to nanoseconds.
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 1)
  return static_cast<double>(event.durationNs()) / 1000.0;
#else
  return static_cast<double>(event.durationUs());
#endif
}

std::set<ActivityType> activities(bool cuda) {
  std::set<ActivityType> kinds = {ActivityType::CPU};
  if (cuda) {
    kinds.insert(ActivityType::CUDA);
  }
  return kinds;
}

}  // namespace

std::vector<ProfileEntry> summarizeProfile(const std::vector<ProfiledActivity>& activities) {
  std::map<std::pair<std::string, std::string>, ProfileEntry> byName;
  for (const ProfiledActivity& activity : activities) {
    ProfileEntry& entry = byName[{activity.device, activity.name}];
    entry.device = activity.device;
    entry.name = activity.name;
    ++entry.calls;
    entry.totalMicroseconds += activity.microseconds;
  }
  std::vector<ProfileEntry> entries;
  entries.reserve(byName.size());
  for (auto& [key, entry] : byName) {
    entries.push_back(std::move(entry));
  }
  std::stable_sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
    return a.totalMicroseconds > b.totalMicroseconds;
  });
  return entries;
}

std::string profileJson(const ProfileReport& report) {
  nlohmann::ordered_json entries = nlohmann::ordered_json::array();
  for (const ProfileEntry& entry : report.entries) {
    entries.push_back({{"device", entry.device},
                       {"name", entry.name},
                       {"calls", entry.calls},
                       {"total_us", entry.totalMicroseconds}});
  }
  const nlohmann::ordered_json json = {
      {"v", 1},
      {"epoch", report.epoch},
      {"rank", report.rank},
      {"steps", report.steps},
      {"wall_seconds", report.wallSeconds},
      {"device", report.device},
      {"torch", TORCH_VERSION},
      {"entries", std::move(entries)},
  };
  return json.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

std::string profilePathOfRank(const std::string& path, int64_t rank, int64_t worldSize) {
  return worldSize > 1 ? path + ".rank" + std::to_string(rank) : path;
}

EpochProfiler::EpochProfiler(std::string path, bool cuda)
    : path_(std::move(path)), cuda_(cuda), file_(path_, std::ios::trunc) {
  if (!file_) {
    throw std::runtime_error("--profile: cannot write " + path_);
  }
}

EpochProfiler::~EpochProfiler() {
  if (recording_) {
    // An epoch that threw: the profiler stops, and the partial record is dropped.
    try {
      kineto::disableProfiler();
    } catch (...) {  // nothing is left to report it to
    }
  }
}

void EpochProfiler::start() {
  const ProfilerConfig config(ProfilerState::KINETO);
  kineto::prepareProfiler(config, activities(cuda_));
  kineto::enableProfiler(config, activities(cuda_));
  recording_ = true;
}

void EpochProfiler::stopAndWrite(ProfileReport report) {
  const std::unique_ptr<kineto::ProfilerResult> result = kineto::disableProfiler();
  recording_ = false;
  std::vector<ProfiledActivity> activities;
  activities.reserve(result->events().size());
  for (const kineto::KinetoEvent& event : result->events()) {
    activities.push_back({event.deviceType() == c10::DeviceType::CUDA ? "cuda" : "cpu",
                          event.name(), microsecondsOf(event)});
  }
  report.entries = summarizeProfile(activities);
  file_ << profileJson(report) << '\n';
  file_.flush();
  if (!file_) {
    throw std::runtime_error("--profile: writing " + path_ + " failed");
  }
}

}  // namespace hetbench::train
