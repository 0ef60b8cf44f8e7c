#include "hetbench/benchmark/requeue.h"

#include <algorithm>

namespace hetbench::benchmark {

std::optional<std::chrono::nanoseconds> requeueAfter(const Deadlines& deadlines,
                                                     common::WallTime now) {
  if (!deadlines.earliest()) return std::nullopt;
  return std::max<std::chrono::nanoseconds>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(*deadlines.earliest() - now),
      kMinRequeue);
}

}  // namespace hetbench::benchmark
