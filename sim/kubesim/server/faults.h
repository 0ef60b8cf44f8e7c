#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>

#include "hetbench/common/status.h"

namespace hetbench::kubesim {

/// Faults injected for reliability tests, through POST /kubesim/faults or flags.
class Faults {
 public:
  struct Failure {
    int code = 0;
    int retryAfterSeconds = 0;
  };

  /// Applies a fault request: {"failRequests": {"count": N, "code": 500|503|429,
  /// "retryAfterSeconds": S}, "latencyMs": L, "closeWatches": true, "expireHistory": true,
  /// "cutLogStreams": true}. Unknown keys or bad values are Invalid. `expireHistory` is
  /// returned to the caller, which owns the store.
  common::Status apply(const nlohmann::json& request, bool* expireHistory);

  /// Consumes one injected failure, if any are pending.
  std::optional<Failure> takeFailure();
  int latencyMs() const { return latencyMs_.load(); }
  std::uint64_t watchGeneration() const { return watchGeneration_.load(); }
  std::uint64_t logGeneration() const { return logGeneration_.load(); }
  void closeWatches() { ++watchGeneration_; }
  void cutLogStreams() { ++logGeneration_; }

 private:
  std::mutex mu_;
  int failuresLeft_ = 0;
  Failure failure_;
  std::atomic<int> latencyMs_{0};
  std::atomic<std::uint64_t> watchGeneration_{0};
  std::atomic<std::uint64_t> logGeneration_{0};
};

}  // namespace hetbench::kubesim
