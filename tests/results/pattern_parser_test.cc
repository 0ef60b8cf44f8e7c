#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "hetbench/results/parser.h"
#include "printers.h"

namespace hetbench::results {
namespace {

std::unique_ptr<LogParser> parserFor(const std::vector<MetricSpec>& specs) {
  common::Result<std::unique_ptr<LogParser>> parser = makePatternParser(specs);
  EXPECT_TRUE(parser.isOk()) << parser.status().toString();
  return std::move(parser).value();
}

ParsedLog parse(const std::vector<MetricSpec>& specs, const std::vector<std::string>& lines) {
  const auto parser = parserFor(specs);
  for (const std::string& line : lines) parser->consume("w0", line);
  return parser->result();
}

MetricSpec spec(std::string name, std::string pattern, Reduce reduce = Reduce::kMean,
                int group = 1) {
  return {std::move(name), std::move(pattern), "", reduce, group, true};
}

// The output of EPCC's PyTorch benchmark scripts, as the ReFrame tests read it.
const std::vector<std::string> kEpccLog = {
    "Epoch 0", "Processing Speed: 151.2", "Total IO Time: 14.9",
    "Epoch 1", "Processing Speed: 179.7", "Total IO Time: 12.3",
    "Epoch 2", "Processing Speed: 180.3", "Total IO Time: 12.1",
};

// Verifies each reduction over the matches of one log.
TEST(PatternParser, Reductions) {
  struct Case {
    Reduce reduce;
    double want;
  };
  const std::vector<Case> cases = {
      {Reduce::kFirst, 151.2}, {Reduce::kLast, 180.3}, {Reduce::kMin, 151.2},
      {Reduce::kMax, 180.3},   {Reduce::kSum, 511.2},  {Reduce::kMean, 511.2 / 3},
  };
  for (const Case& c : cases) {
    const ParsedLog log =
        parse({spec("speed", R"(Processing Speed: ([0-9.]+))", c.reduce)}, kEpccLog);
    EXPECT_TRUE(log.errors.empty()) << toString(c.reduce);
    ASSERT_EQ(log.scalars.count("speed"), 1u) << toString(c.reduce);
    EXPECT_DOUBLE_EQ(log.scalars.at("speed"), c.want) << toString(c.reduce);
  }
}

// Verifies the EPCC and Graphcore outputs read as their ReFrame tests read them, with epochs,
// kubelet timestamps and anchored patterns.
TEST(PatternParser, EpccAndGraphcore) {
  const ParsedLog epcc =
      parse({spec("effective_throughput", R"(^Processing Speed: ([0-9.]+)$)", Reduce::kLast),
             spec("io_seconds", R"(^Total IO Time: ([0-9.]+))", Reduce::kSum)},
            kEpccLog);
  EXPECT_TRUE(epcc.errors.empty());
  ASSERT_EQ(epcc.scalars.size(), 2u);
  EXPECT_DOUBLE_EQ(epcc.scalars.at("effective_throughput"), 180.3);
  EXPECT_DOUBLE_EQ(epcc.scalars.at("io_seconds"), 39.3);
  EXPECT_TRUE(epcc.epochs.empty());
  EXPECT_FALSE(epcc.worldSize.has_value());

  const ParsedLog graphcore = parse(
      {spec("throughput", R"(throughput: ([0-9.]+) samples/sec)", Reduce::kMean)},
      {"2026-03-01T10:00:00.000000001Z Graph compilation: 100%|##########| 100/100",
       "2026-03-01T10:05:00.5Z Epoch 1/2: 100%|###| 1251/1251 [02:10, throughput: 17692.1 "
       "samples/sec, loss: 6.2]",
       "2026-03-01T10:07:10.2+01:00 Epoch 2/2: 100%|###| 1251/1251 [02:09, throughput: 17812.3 "
       "samples/sec, loss: 5.1]"});
  EXPECT_TRUE(graphcore.errors.empty());
  EXPECT_DOUBLE_EQ(graphcore.scalars.at("throughput"), (17692.1 + 17812.3) / 2);
}

// Verifies capture groups other than 1, numbers in every form from_chars reads, and lines
// whose capture is not a number (an error naming the line).
TEST(PatternParser, GroupsAndNumbers) {
  const ParsedLog log = parse({spec("second", R"((\w+)=(\S+))", Reduce::kLast, 2),
                               spec("whole", R"(-?[0-9]+e[0-9]+)", Reduce::kMax, 0)},
                              {"a=1", "b=-3.5", "c=2e3", "d=abc", "e=inf", "x 12e2 y", "z 3e1"});
  EXPECT_EQ(log.scalars.at("second"), 2000);
  EXPECT_EQ(log.scalars.at("whole"), 2000);
  ASSERT_EQ(log.errors.size(), 2u);
  EXPECT_EQ(log.errors[0], (LineError{"w0", 4, "metric second: \"abc\" is not a number"}));
  EXPECT_EQ(log.errors[1], (LineError{"w0", 5, "metric second: \"inf\" is not a number"}));
}

// Verifies that a sum or mean whose matches add up beyond a double is an error of the log,
// not an infinite metric, while the other reductions of the same matches stand (found by
// fuzz_patterns).
TEST(PatternParser, SumBeyondADouble) {
  const std::string big = "Total IO Time: 1" + std::string(308, '0');
  const ParsedLog log = parse({spec("sum", R"(^Total IO Time: ([0-9.]+))", Reduce::kSum),
                               spec("mean", R"(^Total IO Time: ([0-9.]+))", Reduce::kMean),
                               spec("max", R"(^Total IO Time: ([0-9.]+))", Reduce::kMax)},
                              {big, big});
  EXPECT_EQ(log.scalars, (MetricValues{{"max", 1e308}}));
  EXPECT_EQ(log.errors,
            (std::vector<LineError>{
                {"", 0, "metric sum: its matches add up beyond the range of a double"},
                {"", 0, "metric mean: its matches add up beyond the range of a double"}}));
}

// Verifies that a metric no line matches is absent (judgeTrial makes a required one
// MetricMissing), and that an optional group that did not take part is not a number.
TEST(PatternParser, Absent) {
  const ParsedLog log =
      parse({spec("speed", R"(Speed: ([0-9.]+))"), spec("maybe", R"(Value:( [0-9]+)?)")},
            {"nothing here", "Value:"});
  EXPECT_EQ(log.scalars.count("speed"), 0u);
  ASSERT_EQ(log.errors.size(), 1u);
  EXPECT_EQ(log.errors[0].message, "metric maybe: \"\" is not a number");
}

// Verifies that specs that were never validated are refused as parseMetricSpecs refuses them.
TEST(PatternParser, RefusesBadSpecs) {
  const common::Result<std::unique_ptr<LogParser>> parser = makePatternParser(
      {spec("ok", "a([0-9]+)"), spec("bad", "a(([0-9]+)"), spec("g", "a", Reduce::kMean, 1)});
  ASSERT_FALSE(parser.isOk());
  const common::Status status = parser.status();
  ASSERT_EQ(status.causes().size(), 2u);
  EXPECT_EQ(status.causes()[0].field, "spec.metrics[1].pattern");
  EXPECT_EQ(status.causes()[0].message,
            "Invalid value: \"a(([0-9]+)\": does not compile: \"missing ): a(([0-9]+)\"");
  EXPECT_EQ(status.causes()[1].field, "spec.metrics[2].pattern");
  EXPECT_EQ(status.causes()[1].message,
            "Invalid value: \"a\": has 0 capture groups, so no group 1");
}

}  // namespace
}  // namespace hetbench::results
