#include "hetbench/common/logging.h"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_sinks.h>

#include <nlohmann/json.hpp>

#include "hetbench/common/time.h"

namespace hetbench::common {
namespace {

class JsonFormatter final : public spdlog::formatter {
 public:
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
    const nlohmann::json line = {
        {"ts", formatRfc3339(msg.time, TimePrecision::kMicros)},
        {"level", std::string(spdlog::level::to_string_view(msg.level).data(),
                              spdlog::level::to_string_view(msg.level).size())},
        {"logger", std::string(msg.logger_name.data(), msg.logger_name.size())},
        {"msg", std::string(msg.payload.data(), msg.payload.size())},
    };
    // Replacing invalid UTF-8 keeps one bad byte in a message from losing the whole line.
    const std::string text = line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    dest.append(text.data(), text.data() + text.size());
    dest.push_back('\n');
  }

  std::unique_ptr<spdlog::formatter> clone() const override {
    return std::make_unique<JsonFormatter>();
  }
};

}  // namespace

Result<LogFormat> parseLogFormat(std::string_view text) {
  if (text == "text") return LogFormat::kText;
  if (text == "json") return LogFormat::kJson;
  return invalidError("unknown log format \"" + std::string(text) + "\" (use text or json)");
}

Result<spdlog::level::level_enum> parseLogLevel(std::string_view text) {
  static constexpr std::pair<std::string_view, spdlog::level::level_enum> kLevels[] = {
      {"trace", spdlog::level::trace}, {"debug", spdlog::level::debug},
      {"info", spdlog::level::info},   {"warn", spdlog::level::warn},
      {"error", spdlog::level::err},   {"critical", spdlog::level::critical},
      {"off", spdlog::level::off},
  };
  for (const auto& [name, level] : kLevels) {
    if (name == text) return level;
  }
  return invalidError("unknown log level \"" + std::string(text) +
                      "\" (use trace, debug, info, warn, error, critical or off)");
}

void addLoggingFlags(FlagSet& flags, LogOptions* options) {
  flags.addCustom("log-format", "text|json", "Log line format.", "text",
                  [options](std::string_view v) {
                    Result<LogFormat> format = parseLogFormat(v);
                    if (!format.isOk()) return format.status();
                    options->format = *format;
                    return okStatus();
                  });
  flags.addCustom("log-level", "level", "Lowest level logged: trace, debug, info, warn, error.",
                  "info", [options](std::string_view v) {
                    Result<spdlog::level::level_enum> level = parseLogLevel(v);
                    if (!level.isOk()) return level.status();
                    options->level = *level;
                    return okStatus();
                  });
}

std::unique_ptr<spdlog::formatter> makeJsonFormatter() { return std::make_unique<JsonFormatter>(); }

void setupLogging(const LogOptions& options) {
  auto logger = std::make_shared<spdlog::logger>("hetbench",
                                                 std::make_shared<spdlog::sinks::stderr_sink_mt>());
  if (options.format == LogFormat::kJson) {
    logger->set_formatter(makeJsonFormatter());
  } else {
    logger->set_formatter(std::make_unique<spdlog::pattern_formatter>(
        "%Y-%m-%dT%H:%M:%S.%fZ %^%l%$ %v", spdlog::pattern_time_type::utc));
  }
  logger->set_level(options.level);
  logger->flush_on(spdlog::level::warn);
  spdlog::set_default_logger(std::move(logger));
}

}  // namespace hetbench::common
