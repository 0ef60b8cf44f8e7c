#include "hetbench/common/logging.h"

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "hetbench/common/time.h"

namespace hetbench::common {
namespace {

// Verifies the names accepted for --log-format and --log-level, and their errors.
TEST(Logging, ParsesFormatAndLevel) {
  EXPECT_EQ(*parseLogFormat("json"), LogFormat::kJson);
  EXPECT_EQ(*parseLogFormat("text"), LogFormat::kText);
  EXPECT_NE(parseLogFormat("xml").status().message().find("\"xml\""), std::string::npos);
  EXPECT_EQ(*parseLogLevel("debug"), spdlog::level::debug);
  EXPECT_EQ(*parseLogLevel("error"), spdlog::level::err);
  EXPECT_TRUE(parseLogLevel("verbose").status().isInvalid());
}

// Verifies that JSON output is one parseable object per line, even for hostile messages.
TEST(Logging, JsonFormatterWritesOneObjectPerLine) {
  std::ostringstream out;
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out);
  sink->set_formatter(makeJsonFormatter());
  spdlog::logger logger("test", sink);
  logger.info("trial finished run={} trial={}", "r1", 3);
  logger.warn("quote \" newline \n bad utf8 \xff end");

  std::istringstream lines(out.str());
  std::string line;
  std::vector<nlohmann::json> parsed;
  while (std::getline(lines, line)) parsed.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(parsed.size(), 2u);
  EXPECT_EQ(parsed[0]["msg"], "trial finished run=r1 trial=3");
  EXPECT_EQ(parsed[0]["level"], "info");
  EXPECT_EQ(parsed[0]["logger"], "test");
  EXPECT_TRUE(parseRfc3339(parsed[0]["ts"].get<std::string>()).isOk());
  EXPECT_EQ(parsed[1]["level"], "warning");
  EXPECT_NE(parsed[1]["msg"].get<std::string>().find("newline \n bad"), std::string::npos);
}

// Verifies that the registered flags set the options.
TEST(Logging, FlagsSetOptions) {
  FlagSet flags("prog", "test");
  LogOptions options;
  addLoggingFlags(flags, &options);
  const char* argv[] = {"prog", "--log-format=json", "--log-level", "debug"};
  ASSERT_TRUE(flags.parse(4, argv).isOk());
  EXPECT_EQ(options.format, LogFormat::kJson);
  EXPECT_EQ(options.level, spdlog::level::debug);
}

}  // namespace
}  // namespace hetbench::common
