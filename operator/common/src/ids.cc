#include "hetbench/common/ids.h"

#include <limits>

namespace hetbench::common {

SystemRandom::SystemRandom() {
  std::random_device device;
  std::seed_seq seed{device(), device(), device(), device()};
  engine_.seed(seed);
}

std::uint64_t SystemRandom::next() { return engine_(); }

std::string shortId(RandomSource& random) {
  constexpr std::uint64_t n = kShortIdAlphabet.size();
  // Rejection sampling keeps every character equally likely.
  constexpr std::uint64_t limit =
      std::numeric_limits<std::uint64_t>::max() - std::numeric_limits<std::uint64_t>::max() % n;
  std::string id;
  id.reserve(kShortIdLength);
  while (id.size() < kShortIdLength) {
    const std::uint64_t word = random.next();
    if (word >= limit) continue;
    id += kShortIdAlphabet[word % n];
  }
  return id;
}

}  // namespace hetbench::common
