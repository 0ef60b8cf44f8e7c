#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hetbench/results/parser.h"
#include "printers.h"

namespace hetbench::results {
namespace {

ParsedLog parse(const std::vector<Line>& lines) { return feed(*makeMlperfParser(), lines); }

// An MLLOG line as mlperf_logging writes it.
std::string mllog(const std::string& key, long long timeMs, const std::string& value = "null",
                  const std::string& metadata = "{}") {
  return R"(:::MLLOG {"namespace": "", "time_ms": )" + std::to_string(timeMs) +
         R"(, "event_type": "POINT_IN_TIME", "key": ")" + key + R"(", "value": )" + value +
         R"(, "metadata": )" + metadata + "}";
}

std::string epochMeta(int epoch) {
  return R"({"file": "train.py", "lineno": 210, "epoch_num": )" + std::to_string(epoch) + "}";
}

// Verifies a CosmoFlow-like reference log: whole global batches of train_samples per epoch,
// wall times from epoch_start/epoch_stop, and the time to train of a successful run.
TEST(MlperfParser, ReferenceLog) {
  const ParsedLog log = parse({
      {"w0",
       ":::MLLOG {\"namespace\": \"\", \"time_ms\": 1000, \"event_type\": \"POINT_IN_TIME\", "
       "\"key\": \"submission_benchmark\", \"value\": \"cosmoflow\", \"metadata\": {}}"},
      {"w0", mllog("global_batch_size", 1000, "512")},
      {"w0", mllog("train_samples", 1000, "524800")},
      {"w0", mllog("run_start", 2000)},
      {"w0", mllog("epoch_start", 2000, "null", epochMeta(1))},
      {"w0", mllog("eval_start", 60000, "null", epochMeta(1))},
      {"w0", mllog("epoch_stop", 64500, "null", epochMeta(1))},
      {"w0", mllog("epoch_start", 64500, "null", epochMeta(2))},
      {"w0", mllog("epoch_stop", 124500, "null", epochMeta(2))},
      {"w0", mllog("run_stop", 130000, "null", R"({"status": "success"})")},
  });
  EXPECT_TRUE(log.errors.empty()) << logStatus(log).toString();
  EXPECT_EQ(log.worldSize, 1);
  EXPECT_FALSE(log.run.has_value());
  // 524800 / 512 = 1025 whole batches = 524800 samples.
  const std::vector<EpochSample> want = {{0, 1, 524800, 62.5, {}, {}, {}, false},
                                         {0, 2, 524800, 60, {}, {}, {}, false}};
  EXPECT_EQ(log.epochs, want);
  EXPECT_EQ(log.scalars, (MetricValues{{"time_to_train_seconds", 128}}));
}

// Verifies how an epoch's samples are found: whole global batches of train_samples (a last
// partial batch dropped), train_samples alone, else the mean tracked throughput over the wall
// time, by epoch_num or by the epoch open in that source.
TEST(MlperfParser, SampleCounts) {
  struct Case {
    std::string name;
    std::vector<std::string> before;  // lines before the epoch
    std::vector<std::string> inside;  // lines between epoch_start and epoch_stop
    std::vector<std::string> after;   // lines after the epoch
    double wantSamples;
  };
  const std::vector<Case> cases = {
      {"partial batch dropped",
       {mllog("global_batch_size", 0, "256"), mllog("train_samples", 0, "1000")},
       {},
       {},
       768},
      {"train_samples after the epoch", {}, {}, {mllog("train_samples", 0, "1000")}, 1000},
      {"train_samples first, tracked throughput ignored",
       {mllog("train_samples", 0, "1000")},
       {mllog("tracked_stats", 0, R"({"throughput": 5.0})", R"({"step": 3})")},
       {},
       1000},
      {"tracked throughput of the open epoch",
       {},
       {mllog("tracked_stats", 0, R"({"throughput": 90.0, "loss": 0.2})", R"({"step": 10})"),
        mllog("tracked_stats", 0, R"({"throughput": 110.0})", R"({"step": 20})")},
       {},
       100 * 4.0},
      {"tracked throughput by epoch_num after the epoch",
       {},
       {},
       {mllog("tracked_stats", 0, R"({"throughput": 50})", R"({"epoch_num": 1})")},
       50 * 4.0},
      {"tracked statistics without throughput",
       {mllog("train_samples", 0, "64")},
       {mllog("tracked_stats", 0, R"({"staging_duration": 5})", R"({"step": 0})")},
       {},
       64},
  };
  for (const Case& c : cases) {
    std::vector<Line> lines;
    for (const std::string& l : c.before) lines.push_back({"w0", l});
    lines.push_back({"w0", mllog("epoch_start", 10000, "null", epochMeta(1))});
    for (const std::string& l : c.inside) lines.push_back({"w0", l});
    lines.push_back({"w0", mllog("epoch_stop", 14000, "null", epochMeta(1))});
    for (const std::string& l : c.after) lines.push_back({"w0", l});
    const ParsedLog log = parse(lines);
    EXPECT_TRUE(log.errors.empty()) << c.name << ": " << logStatus(log).toString();
    ASSERT_EQ(log.epochs.size(), 1u) << c.name;
    EXPECT_DOUBLE_EQ(log.epochs[0].samples, c.wantSamples) << c.name;
    EXPECT_DOUBLE_EQ(log.epochs[0].wallSeconds, 4) << c.name;
  }
}

// Verifies that the time to train needs both ends of the run and a successful status.
TEST(MlperfParser, TimeToTrain) {
  EXPECT_TRUE(parse({{"w0", mllog("run_start", 0)},
                     {"w0", mllog("run_stop", 5000, "null", R"({"status": "aborted"})")}})
                  .scalars.empty());
  EXPECT_TRUE(parse({{"w0", mllog("run_start", 0)}}).scalars.empty());
  EXPECT_TRUE(
      parse({{"w0", mllog("run_stop", 5000, "null", R"({"status": "success"})")}}).scalars.empty());
  EXPECT_TRUE(
      parse({{"w0", mllog("run_start", 0)}, {"w0", mllog("run_stop", 5000)}}).scalars.empty());
  EXPECT_EQ(parse({{"w0", "2026-03-01T10:00:00Z " + mllog("run_start", 1000)},
                   {"w0", "[1,0]<stdout>:" +
                              mllog("run_stop", 3500, "null", R"({"status": "success"})")}})
                .scalars,
            (MetricValues{{"time_to_train_seconds", 2.5}}));
}

// Verifies that each bad line is an error naming its line.
TEST(MlperfParser, BadLines) {
  struct Case {
    std::string name;
    std::vector<std::string> lines;
    LineError want;
  };
  const std::vector<Case> cases = {
      {"invalid JSON",
       {":::MLLOG {\"key\": "},
       {"w0", 1, "invalid JSON at byte 9 after the marker"}},
      {"no key", {R"(:::MLLOG {"time_ms": 5})"}, {"w0", 1, "missing required field \"key\""}},
      {"no time",
       {R"(:::MLLOG {"key": "epoch_start"})"},
       {"w0", 1, "missing required field \"time_ms\""}},
      {"time as a string",
       {R"(:::MLLOG {"key": "run_start", "time_ms": "5"})"},
       {"w0", 1, "field \"time_ms\" must be a number, not string"}},
      {"metadata not an object",
       {R"(:::MLLOG {"key": "run_start", "time_ms": 5, "metadata": 3})"},
       {"w0", 1, "field \"metadata\" must be an object, not integer"}},
      {"epoch_start without epoch_num",
       {mllog("epoch_start", 0)},
       {"w0", 1, "missing required field \"metadata.epoch_num\""}},
      {"epoch_num as a string",
       {mllog("epoch_start", 0, "null", R"({"epoch_num": "1"})")},
       {"w0", 1, "field \"metadata.epoch_num\" must be an integer, not string"}},
      {"global_batch_size 0",
       {mllog("global_batch_size", 0, "0")},
       {"w0", 1, "field \"value\" must be at least 1, not 0"}},
      {"train_samples changes",
       {mllog("train_samples", 0, "100"), mllog("train_samples", 0, "200")},
       {"w0", 2, "train_samples 200 differs from 100 logged before"}},
      {"epoch_stop without epoch_start",
       {mllog("epoch_stop", 0, "null", epochMeta(1))},
       {"w0", 1, "epoch_stop of epoch 1 without its epoch_start"}},
      {"epoch_stop of another epoch",
       {mllog("epoch_start", 0, "null", epochMeta(1)),
        mllog("epoch_stop", 9, "null", epochMeta(2))},
       {"w0", 2, "epoch_stop of epoch 2 without its epoch_start"}},
      {"epoch_start while one is open",
       {mllog("epoch_start", 0, "null", epochMeta(1)),
        mllog("epoch_start", 9, "null", epochMeta(2))},
       {"w0", 2, "epoch_start of epoch 2 while epoch 1 is open"}},
      {"an epoch that takes no time",
       {mllog("epoch_start", 500, "null", epochMeta(1)),
        mllog("epoch_stop", 500, "null", epochMeta(1))},
       {"w0", 2, "epoch 1 stops no later than it starts"}},
      {"an epoch started again",
       {mllog("train_samples", 0, "8"), mllog("epoch_start", 0, "null", epochMeta(1)),
        mllog("epoch_stop", 9, "null", epochMeta(1)),
        mllog("epoch_start", 10, "null", epochMeta(1))},
       {"w0", 4, "epoch 1 started again"}},
      {"tracked_stats without a value",
       {mllog("tracked_stats", 0)},
       {"w0", 1, "missing required field \"value\""}},
      {"throughput as a string",
       {mllog("tracked_stats", 0, R"({"throughput": "fast"})")},
       {"w0", 1, "field \"value.throughput\" must be a number, not string"}},
      {"run_start twice",
       {mllog("run_start", 0), mllog("run_start", 1)},
       {"w0", 2, "run_start logged twice"}},
      {"run_stop twice",
       {mllog("run_stop", 0), mllog("run_stop", 1)},
       {"w0", 2, "run_stop logged twice"}},
      {"no sample count",
       {mllog("epoch_start", 0, "null", epochMeta(7)),
        mllog("epoch_stop", 10, "null", epochMeta(7))},
       {"w0", 2,
        "epoch 7 has no sample count: log train_samples, or tracked_stats with value.throughput"}},
      // A finite throughput over a finite wall time made an infinite sample count.
      {"samples beyond a double",
       {mllog("epoch_start", 0, "null", epochMeta(3)),
        mllog("tracked_stats", 5, R"({"throughput": 1e308})"),
        mllog("epoch_stop", 10000, "null", epochMeta(3))},
       {"w0", 3,
        "epoch 3: its tracked throughput times its wall time is beyond the range of a double"}},
  };
  for (const Case& c : cases) {
    std::vector<Line> lines;
    for (const std::string& l : c.lines) lines.push_back({"w0", l});
    const ParsedLog log = parse(lines);
    ASSERT_EQ(log.errors.size(), 1u) << c.name << ": " << logStatus(log).toString();
    EXPECT_EQ(log.errors[0], c.want) << c.name;
  }
}

// Verifies that sources keep their own open epochs and line numbers, and that an epoch
// logged by two sources (every rank logging) is an error rather than counted twice.
TEST(MlperfParser, Sources) {
  const ParsedLog log = parse({
      {"w0", mllog("train_samples", 0, "100")},
      {"w0", mllog("epoch_start", 0, "null", epochMeta(1))},
      {"w1", mllog("epoch_start", 0, "null", epochMeta(1))},
      {"w0", mllog("epoch_stop", 1000, "null", epochMeta(1))},
      {"w1", mllog("epoch_stop", 1000, "null", epochMeta(1))},
  });
  ASSERT_EQ(log.errors.size(), 1u);
  EXPECT_EQ(log.errors[0],
            (LineError{"w1", 2, "epoch 1 stopped twice (more than one source logs it)"}));
  EXPECT_EQ(log.epochs.size(), 1u);
}

}  // namespace
}  // namespace hetbench::results
