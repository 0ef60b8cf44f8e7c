#pragma once

#include <cstdint>
#include <random>
#include <string>

namespace hetbench::common {

/// A source of random 64-bit words; injected so that tests get repeatable ids.
class RandomSource {
 public:
  virtual ~RandomSource() = default;
  virtual std::uint64_t next() = 0;
};

/// A deterministic generator for tests and reproducible plans.
class SeededRandom final : public RandomSource {
 public:
  explicit SeededRandom(std::uint64_t seed) : engine_(seed) {}
  std::uint64_t next() override { return engine_(); }

 private:
  std::mt19937_64 engine_;
};

/// Seeded once from std::random_device.
class SystemRandom final : public RandomSource {
 public:
  SystemRandom();
  std::uint64_t next() override;

 private:
  std::mt19937_64 engine_;
};

/// The characters of short ids: the alphabet Kubernetes uses for generated name suffixes
/// (lowercase consonants and digits without 0, 1 and 3), so that ids never spell words and
/// are always valid inside DNS labels.
inline constexpr std::string_view kShortIdAlphabet = "bcdfghjklmnpqrstvwxz2456789";
inline constexpr std::size_t kShortIdLength = 8;

/// An 8-character id drawn uniformly from kShortIdAlphabet.
std::string shortId(RandomSource& random);

}  // namespace hetbench::common
