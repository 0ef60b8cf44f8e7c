#include "hetbench/common/duration.h"

#include <gtest/gtest.h>

namespace hetbench::common {
namespace {

using namespace std::chrono_literals;

struct ParseCase {
  std::string input;
  std::chrono::nanoseconds want;
};

// Verifies that valid Kubernetes durations parse to the exact nanosecond count.
TEST(ParseDuration, AcceptsGoDurations) {
  const std::vector<ParseCase> cases = {
      {"0", 0ns},
      {"0s", 0ns},
      {"90s", 90s},
      {"1h30m", 90min},
      {"1h30m15s", 1h + 30min + 15s},
      {"500ms", 500ms},
      {"1.5h", 90min},
      {".5s", 500ms},
      {"1.s", 1s},
      {"2us", 2us},
      {"2\xC2\xB5s", 2us},
      {"7ns", 7ns},
      {"+5s", 5s},
      {"1m0.25s", 60s + 250ms},
      {"1.000000001s", 1s + 1ns},
      {"2562047h47m16.854775807s", std::chrono::nanoseconds::max()},
  };
  for (const ParseCase& c : cases) {
    Result<std::chrono::nanoseconds> got = parseDuration(c.input);
    ASSERT_TRUE(got.isOk()) << c.input << ": " << got.status().toString();
    EXPECT_EQ(got->count(), c.want.count()) << c.input;
  }
}

struct ErrorCase {
  std::string input;
  std::string messagePart;
};

// Verifies that malformed durations are Invalid with a message naming the input and the reason.
TEST(ParseDuration, RejectsMalformedInput) {
  const std::vector<ErrorCase> cases = {
      {"", "empty string"},
      {"1x", "unknown unit \"x\""},
      {"1d", "unknown unit \"d\""},
      {"-5s", "negative durations are not allowed"},
      {"5", "missing unit"},
      {"s", "expected a number"},
      {".s", "a '.' needs digits"},
      {"+", "a sign alone"},
      {"1h 30m", "unknown unit \"h \""},
      {"9223372036854775808ns", "out of range"},
      {"2562048h", "out of range"},
      {"2562047h47m17s", "out of range"},
      {"99999999999999999999999s", "out of range"},
      {"1.5", "missing unit"},
  };
  for (const ErrorCase& c : cases) {
    Result<std::chrono::nanoseconds> got = parseDuration(c.input);
    ASSERT_FALSE(got.isOk()) << c.input;
    EXPECT_TRUE(got.status().isInvalid()) << c.input;
    EXPECT_NE(got.status().message().find("\"" + c.input + "\""), std::string::npos)
        << got.status().message();
    EXPECT_NE(got.status().message().find(c.messagePart), std::string::npos)
        << c.input << " -> " << got.status().message();
  }
}

// Verifies that hostile input (binary bytes, very long strings) is answered without a crash.
TEST(ParseDuration, SurvivesHostileInput) {
  EXPECT_FALSE(parseDuration(std::string("\0\xff\x01s", 4)).isOk());
  EXPECT_FALSE(parseDuration(std::string(100000, '9') + "s").isOk());
  EXPECT_TRUE(parseDuration("0." + std::string(100000, '0') + "1s").isOk());
}

// Verifies Go's formatting, which Kubernetes uses for metav1.Duration.
TEST(FormatDuration, MatchesGo) {
  const std::vector<std::pair<std::chrono::nanoseconds, std::string>> cases = {
      {0ns, "0s"},
      {1ns, "1ns"},
      {1100ns, "1.1\xC2\xB5s"},
      {2200us, "2.2ms"},
      {500ms, "500ms"},
      {1s + 500ms, "1.5s"},
      {90s, "1m30s"},
      {90min, "1h30m0s"},
      {-90s, "-1m30s"},
      {std::chrono::nanoseconds::max(), "2562047h47m16.854775807s"},
      {std::chrono::nanoseconds::min(), "-2562047h47m16.854775808s"},
  };
  for (const auto& [d, want] : cases) EXPECT_EQ(formatDuration(d), want);
}

// Verifies that formatting and parsing are inverse for non-negative durations.
TEST(FormatDuration, RoundTrips) {
  for (std::chrono::nanoseconds d :
       std::vector<std::chrono::nanoseconds>{1ns, 999ns, 1234567ns, 59s, 61min + 1ns, 100h}) {
    Result<std::chrono::nanoseconds> back = parseDuration(formatDuration(d));
    ASSERT_TRUE(back.isOk()) << formatDuration(d);
    EXPECT_EQ(back->count(), d.count());
  }
}

}  // namespace
}  // namespace hetbench::common
