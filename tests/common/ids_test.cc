#include "hetbench/common/ids.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace hetbench::common {
namespace {

// Verifies the length and alphabet of ids, and that a seed makes them repeatable.
TEST(ShortId, SeededIdsAreRepeatableAndWellFormed) {
  SeededRandom a(42), b(42), c(43);
  for (int i = 0; i < 100; ++i) {
    const std::string id = shortId(a);
    EXPECT_EQ(id.size(), kShortIdLength);
    EXPECT_EQ(id.find_first_not_of(kShortIdAlphabet), std::string::npos) << id;
    EXPECT_EQ(id, shortId(b));
  }
  SeededRandom d(42);
  EXPECT_NE(shortId(d), shortId(c));
}

// Verifies that every character of the alphabet is drawn with roughly equal frequency.
TEST(ShortId, CharactersAreUniform) {
  SeededRandom random(7);
  std::map<char, int> counts;
  const int ids = 20000;
  for (int i = 0; i < ids; ++i) {
    for (char ch : shortId(random)) ++counts[ch];
  }
  ASSERT_EQ(counts.size(), kShortIdAlphabet.size());
  const double expected = ids * kShortIdLength / static_cast<double>(kShortIdAlphabet.size());
  for (const auto& [ch, n] : counts) EXPECT_NEAR(n, expected, expected * 0.05) << ch;
}

class WordSource final : public RandomSource {
 public:
  explicit WordSource(std::vector<std::uint64_t> words) : words_(std::move(words)) {}
  std::uint64_t next() override { return words_[i_++ % words_.size()]; }

 private:
  std::vector<std::uint64_t> words_;
  std::size_t i_ = 0;
};

// Verifies that words in the biased tail are rejected rather than folded into the alphabet.
TEST(ShortId, RejectsBiasedWords) {
  WordSource source({~0ULL, 0, 1, 2, 3, 4, 5, 6, 7});
  EXPECT_EQ(shortId(source), "bcdfghjk");
}

// Verifies that system-seeded generators do not repeat ids in practice.
TEST(ShortId, SystemRandomIdsDiffer) {
  SystemRandom random;
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) seen.insert(shortId(random));
  EXPECT_EQ(seen.size(), 1000u);
}

}  // namespace
}  // namespace hetbench::common
