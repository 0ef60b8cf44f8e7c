#include "hetbench/common/time.h"

#include <gtest/gtest.h>

namespace hetbench::common {
namespace {

using namespace std::chrono_literals;

WallTime at(std::int64_t unixSeconds, std::int64_t nanos = 0) {
  return WallTime(std::chrono::duration_cast<WallTime::duration>(std::chrono::seconds(unixSeconds) +
                                                                 std::chrono::nanoseconds(nanos)));
}

// Verifies parsing of the RFC 3339 forms Kubernetes writes and accepts.
TEST(ParseRfc3339, AcceptsValidTimes) {
  const std::vector<std::pair<std::string, WallTime>> cases = {
      {"1970-01-01T00:00:00Z", at(0)},
      {"2026-11-22T07:16:00Z", at(1795331760)},
      {"2026-11-22t07:16:00z", at(1795331760)},
      {"2026-11-22T08:16:00+01:00", at(1795331760)},
      {"2026-11-22T02:46:00-04:30", at(1795331760)},
      {"2026-11-22T07:16:00.5Z", at(1795331760, 500'000'000)},
      {"2026-11-22T07:16:00.123456789Z", at(1795331760, 123'456'789)},
      {"2024-02-29T00:00:00Z", at(1709164800)},
      {"1969-12-31T23:59:59Z", at(-1)},
  };
  for (const auto& [input, want] : cases) {
    Result<WallTime> got = parseRfc3339(input);
    ASSERT_TRUE(got.isOk()) << input << ": " << got.status().toString();
    EXPECT_EQ(got->time_since_epoch().count(), want.time_since_epoch().count()) << input;
  }
}

// Verifies that malformed times are Invalid with a message naming the input and the problem.
TEST(ParseRfc3339, RejectsMalformedInput) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "empty string"},
      {"2026-11-22", "expected 'T'"},
      {"2026-11-22 07:16:00Z", "expected 'T'"},
      {"2026-11-22T07:16Z", "expected a time"},
      {"2026-11-22T07:16:00", "missing time zone"},
      {"2026-13-01T00:00:00Z", "month out of range"},
      {"2026-00-01T00:00:00Z", "month out of range"},
      {"2025-02-29T00:00:00Z", "day out of range"},
      {"2026-04-31T00:00:00Z", "day out of range"},
      {"2026-11-22T24:00:00Z", "hour out of range"},
      {"2026-11-22T07:60:00Z", "minute out of range"},
      {"2026-11-22T07:16:60Z", "second out of range"},
      {"2026-11-22T07:16:00.Z", "needs fractional digits"},
      {"2026-11-22T07:16:00.1234567891Z", "more than nine"},
      {"2026-11-22T07:16:00+1:00", "zone offset"},
      {"2026-11-22T07:16:00+24:00", "zone offset out of range"},
      {"2026-11-22T07:16:00ZZ", "trailing"},
      {"2026-11-22T07:16:00X", "expected 'Z'"},
      {"9999-01-01T00:00:00Z", "year out of the supported range"},
      {"0001-01-01T00:00:00Z", "year out of the supported range"},
      {"2O26-11-22T07:16:00Z", "expected a date"},
  };
  for (const auto& [input, part] : cases) {
    Result<WallTime> got = parseRfc3339(input);
    ASSERT_FALSE(got.isOk()) << input;
    EXPECT_TRUE(got.status().isInvalid());
    EXPECT_NE(got.status().message().find("\"" + input + "\""), std::string::npos);
    EXPECT_NE(got.status().message().find(part), std::string::npos)
        << input << " -> " << got.status().message();
  }
}

// Verifies the precisions of metav1.Time, metav1.MicroTime, CRI log files and kubelet output.
TEST(FormatRfc3339, WritesEachPrecision) {
  const WallTime t = at(1795331760, 123'456'789);
  EXPECT_EQ(formatRfc3339(t), "2026-11-22T07:16:00Z");
  EXPECT_EQ(formatRfc3339(t, TimePrecision::kMicros), "2026-11-22T07:16:00.123456Z");
  EXPECT_EQ(formatRfc3339(t, TimePrecision::kNanos), "2026-11-22T07:16:00.123456789Z");
  EXPECT_EQ(formatRfc3339(at(0), TimePrecision::kNanos), "1970-01-01T00:00:00Z");
  EXPECT_EQ(formatRfc3339(at(0, 450'000'000), TimePrecision::kNanosFixed),
            "1970-01-01T00:00:00.450000000Z");
  EXPECT_EQ(formatRfc3339(at(0), TimePrecision::kNanosFixed), "1970-01-01T00:00:00.000000000Z");
  EXPECT_EQ(formatRfc3339(at(0, 500'000'000), TimePrecision::kNanos), "1970-01-01T00:00:00.5Z");
  EXPECT_EQ(formatRfc3339(at(-1, 250'000'000), TimePrecision::kMicros),
            "1969-12-31T23:59:59.250000Z");
}

// Verifies that nanosecond formatting round-trips through the parser.
TEST(FormatRfc3339, RoundTrips) {
  for (WallTime t : {at(0), at(1795331760, 1), at(4102444799, 999'999'999), at(-86400 * 365)}) {
    Result<WallTime> back = parseRfc3339(formatRfc3339(t, TimePrecision::kNanos));
    ASSERT_TRUE(back.isOk());
    EXPECT_EQ(back->time_since_epoch().count(), t.time_since_epoch().count());
  }
}

}  // namespace
}  // namespace hetbench::common
