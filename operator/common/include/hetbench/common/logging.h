#pragma once

#include <spdlog/formatter.h>
#include <spdlog/spdlog.h>

#include <memory>
#include <string_view>

#include "hetbench/common/flags.h"
#include "hetbench/common/status.h"

namespace hetbench::common {

enum class LogFormat { kText, kJson };

struct LogOptions {
  LogFormat format = LogFormat::kText;
  spdlog::level::level_enum level = spdlog::level::info;
};

/// "text" or "json".
Result<LogFormat> parseLogFormat(std::string_view text);
/// trace, debug, info, warn, error, critical or off.
Result<spdlog::level::level_enum> parseLogLevel(std::string_view text);

/// Registers --log-format and --log-level on a binary's flags.
void addLoggingFlags(FlagSet& flags, LogOptions* options);

/// One JSON object per line: {"ts":RFC 3339 with microseconds,"level","logger","msg"}.
std::unique_ptr<spdlog::formatter> makeJsonFormatter();

/// Makes the default logger write to stderr in the chosen format and level.
void setupLogging(const LogOptions& options);

}  // namespace hetbench::common
