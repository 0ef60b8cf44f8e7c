#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "hetbench/common/status.h"

namespace hetbench::common {

/// Parses a Kubernetes (Go) duration: a sequence of decimal numbers, each with an optional
/// fraction and a unit among ns, us (or µs), ms, s, m, h, e.g. "90s", "1h30m", "1.5h", "500ms".
/// "0" alone is zero. Negative durations, a missing unit, unknown units and values beyond
/// about 292 years are Invalid, with a message that quotes the input.
Result<std::chrono::nanoseconds> parseDuration(std::string_view text);

/// Formats as Go does: "1h30m0s", "1.5s", "500ms", "0s".
std::string formatDuration(std::chrono::nanoseconds d);

}  // namespace hetbench::common
