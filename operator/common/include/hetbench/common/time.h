#pragma once

#include <string>
#include <string_view>

#include "hetbench/common/clock.h"
#include "hetbench/common/status.h"

namespace hetbench::common {

/// Sub-second digits written by formatRfc3339.
enum class TimePrecision {
  kSeconds,     // metav1.Time: "2026-11-22T07:16:00Z"
  kMicros,      // metav1.MicroTime (Lease, Event): "2026-11-22T07:16:00.000000Z"
  kNanos,       // RFC3339Nano (CRI log files): "2026-11-22T07:16:00.12345Z", trailing zeros dropped
  kNanosFixed,  // kubelet's log output: always nine digits, "2026-11-22T07:16:00.123450000Z"
};

/// Formats a time in UTC with a 'Z' suffix; sub-second digits are truncated, not rounded.
std::string formatRfc3339(WallTime t, TimePrecision precision = TimePrecision::kSeconds);

/// Parses RFC 3339 ("2026-11-22T07:16:00Z", "...T07:16:00.5+01:00"): a fraction of up to nine
/// digits, 'Z' or a numeric offset. Calendar-invalid dates, out-of-range fields, trailing
/// characters and years outside 1678..2261 are Invalid with a message that quotes the input.
Result<WallTime> parseRfc3339(std::string_view text);

}  // namespace hetbench::common
