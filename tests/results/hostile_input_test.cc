// Logs and specs written to hurt: huge lines, deep JSON, bytes that are not UTF-8, regular
// expressions that backtracking engines take exponential time on. Only correctness is
// asserted; RE2 keeps the pathological cases linear.

#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "hetbench/results/aggregate.h"
#include "hetbench/results/parser.h"
#include "printers.h"

namespace hetbench::results {
namespace {

using nlohmann::json;

std::vector<std::unique_ptr<LogParser>> jsonParsers() {
  std::vector<std::unique_ptr<LogParser>> parsers;
  parsers.push_back(makeHetbenchParser());
  parsers.push_back(makeMlperfParser());
  return parsers;
}

const std::vector<std::string> kMarkers = {std::string(kHetbenchMarker), std::string(kMllogMarker)};

// Verifies that a metrics line beyond kMaxMetricsLineBytes is an error, and that an
// equally long line without a marker is simply not a metrics line.
TEST(HostileInput, HugeLines) {
  const std::string huge(kMaxMetricsLineBytes, 'x');
  const std::vector<std::unique_ptr<LogParser>> parsers = jsonParsers();
  for (std::size_t i = 0; i < kMarkers.size(); ++i) {
    parsers[i]->consume("w0", huge + huge);
    parsers[i]->consume("w0", kMarkers[i] + R"( {"key": ")" + huge + R"("})");
    const ParsedLog log = parsers[i]->result();
    ASSERT_EQ(log.errors.size(), 1u) << kMarkers[i];
    EXPECT_EQ(log.errors[0], (LineError{"w0", 2, "the JSON object is longer than 65536 bytes"}));
  }
}

// Verifies that JSON nested beyond kMaxJsonDepth is refused before it is parsed, however
// deep, while brackets inside strings do not count.
TEST(HostileInput, DeepJson) {
  const std::string deep(60'000, '[');
  const std::string nested = std::string(40, '[') + std::string(40, ']');
  const std::string inString = "\"" + std::string(1000, '[') + "\\\"{\"";
  const std::vector<std::unique_ptr<LogParser>> parsers = jsonParsers();
  for (std::size_t i = 0; i < kMarkers.size(); ++i) {
    parsers[i]->consume("w0", kMarkers[i] + " " + deep);
    parsers[i]->consume(
        "w0", kMarkers[i] + R"( {"key": "run_start", "time_ms": 1, "x": )" + nested + "}");
    parsers[i]->consume("w0",
                        kMarkers[i] + R"( {"key": "x", "time_ms": 1, "x": )" + inString + "}");
    std::vector<LineError> want = {{"w0", 1, "the JSON object nests deeper than 32 levels"},
                                   {"w0", 2, "the JSON object nests deeper than 32 levels"}};
    // Line 3 is valid JSON: an unknown key to the MLPerf parser, an event without "v" to
    // hetbench's.
    if (kMarkers[i] == kHetbenchMarker) want.push_back({"w0", 3, "missing required field \"v\""});
    EXPECT_EQ(parsers[i]->result().errors, want) << kMarkers[i];
  }
}

// Verifies that bytes that are not UTF-8, and numbers beyond a double, are errors whose
// messages are valid UTF-8 (they end up in a JSON status).
TEST(HostileInput, BadBytesAndNumbers) {
  const std::vector<std::string> lines = {
      std::string(kHetbenchMarker) + " {\"v\":1,\"event\":\"\xff\xfe\"}",
      std::string(kHetbenchMarker) + " {\"v\":1e400}",
      std::string(kHetbenchMarker) + " {\"v\":1,\"event\":\"epoch\xc3\"}",
      std::string(kHetbenchMarker) + " {\"v\":1,\"event\":\"\xe2\x80\x8b\xf0\x9f\x92\xa5\"}",
  };
  const auto parser = makeHetbenchParser();
  for (const std::string& line : lines) parser->consume("w\xff", line);
  const ParsedLog log = parser->result();
  ASSERT_EQ(log.errors.size(), lines.size());
  for (const LineError& error : log.errors) {
    EXPECT_NO_THROW(json(error.message).dump()) << error.message;
  }
  EXPECT_EQ(log.errors[0].message.rfind("invalid JSON", 0), 0u) << log.errors[0].message;
  EXPECT_EQ(log.errors[1].message.rfind("invalid JSON", 0), 0u) << log.errors[1].message;
  EXPECT_EQ(log.errors[2].message.rfind("invalid JSON", 0), 0u) << log.errors[2].message;
  EXPECT_EQ(log.errors[3].message.rfind("unknown event", 0), 0u) << log.errors[3].message;
}

// Verifies patterns that backtracking engines explode on match correctly on long lines.
TEST(HostileInput, PathologicalPatterns) {
  const std::vector<MetricSpec> specs = {
      {"nested", "^x=([0-9]+)(a+)+$", "", Reduce::kLast, 1, true},
      {"never", "(a+)+$z([0-9])", "", Reduce::kLast, 1, true},
      {"alternation", "(x+x+)+y=([0-9]+)", "", Reduce::kLast, 2, true},
  };
  common::Result<std::unique_ptr<LogParser>> parser = makePatternParser(specs);
  ASSERT_TRUE(parser.isOk()) << parser.status().toString();
  const std::string as(200'000, 'a');
  const std::string xs(200'000, 'x');
  (*parser)->consume("w0", "x=42" + as);
  (*parser)->consume("w0", "x=43" + as + "b");
  (*parser)->consume("w0", as + "!");
  (*parser)->consume("w0", xs);
  (*parser)->consume("w0", xs + "y=7");
  const ParsedLog log = (*parser)->result();
  EXPECT_TRUE(log.errors.empty());
  EXPECT_EQ(log.scalars, (MetricValues{{"nested", 42}, {"alternation", 7}}));
}

// Verifies that patterns too big for RE2's limits (repetition sizes, the memory budget per
// pattern) are refused at validation.
TEST(HostileInput, PatternTooBig) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"(([0-9]{100}){100})", "\"invalid repetition size: {100}\""},
      {"(\\pL{1000})", "\"pattern too large - compile failed\""},
  };
  for (const auto& [pattern, error] : cases) {
    const common::Status status =
        validateMetricSpecs(json::array({{{"name", "m"}, {"pattern", pattern}}}));
    ASSERT_EQ(status.causes().size(), 1u) << pattern;
    EXPECT_EQ(status.causes()[0].field, "spec.metrics[0].pattern");
    EXPECT_EQ(status.causes()[0].message,
              "Invalid value: " + json(pattern).dump() + ": does not compile: " + error);
  }
}

// Verifies that random bytes, with and without markers, never throw out of a parser and that
// every result aggregates to a value or an error.
TEST(HostileInput, RandomBytesNeverThrow) {
  std::mt19937 random(20260301);
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_int_distribution<int> length(0, 200);
  const std::string valid =
      R"({"v":1,"event":"epoch","epoch":0,"rank":0,"samples":8,"wall_seconds":1,)"
      R"("io_seconds":0,"compute_seconds":1,"key":"epoch_start","time_ms":5,)"
      R"("metadata":{"epoch_num":1}})";
  std::vector<std::unique_ptr<LogParser>> parsers = jsonParsers();
  common::Result<std::unique_ptr<LogParser>> patterns =
      makePatternParser({{"m", "([0-9.eE+-]+)", "", Reduce::kMean, 1, false}});
  ASSERT_TRUE(patterns.isOk());
  parsers.push_back(std::move(patterns).value());
  for (int i = 0; i < 3000; ++i) {
    std::string line;
    if (i % 3 == 0) line = kMarkers[i % 2] + " ";
    if (i % 5 == 0) {
      line += valid;
      line[std::uniform_int_distribution<std::size_t>(0, line.size() - 1)(random)] =
          static_cast<char>(byte(random));
    } else {
      for (int n = length(random); n > 0; --n) line += static_cast<char>(byte(random));
    }
    const std::string source = "w" + std::to_string(i % 4);
    for (const auto& parser : parsers) EXPECT_NO_THROW(parser->consume(source, line));
  }
  for (const auto& parser : parsers) {
    const ParsedLog log = parser->result();
    EXPECT_NO_THROW((void)aggregateRepetition(log));
    for (const LineError& error : log.errors) EXPECT_NO_THROW(json(error.message).dump());
  }
}

}  // namespace
}  // namespace hetbench::results
