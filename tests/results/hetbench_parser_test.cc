#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "hetbench/results/parser.h"
#include "printers.h"

namespace hetbench::results {
namespace {

ParsedLog parse(const std::vector<Line>& lines) { return feed(*makeHetbenchParser(), lines); }

std::string runStart(int rank, int worldSize) {
  return R"(:::HETBENCH {"v":1,"event":"run_start","benchmark":"resnet50","model":"resnet50-v1.5",)"
         R"("world_size":)" +
         std::to_string(worldSize) + R"(,"rank":)" + std::to_string(rank) +
         R"(,"global_batch_size":256,"precision":"bf16","device":"cuda",)"
         R"("accelerator":{"name":"NVIDIA A100-SXM4-40GB","count":1}})";
}

std::string epoch(int rank, std::int64_t index, const std::string& extra = "") {
  return R"(:::HETBENCH {"v":1,"event":"epoch","epoch":)" + std::to_string(index) + R"(,"rank":)" +
         std::to_string(rank) +
         R"(,"samples":1000,"wall_seconds":10.5,"io_seconds":2.5,"compute_seconds":8)" + extra +
         "}";
}

std::string runEnd(int rank) {
  return R"(:::HETBENCH {"v":1,"event":"run_end","rank":)" + std::to_string(rank) +
         R"(,"status":"ok"})";
}

// Verifies a two-rank log read from two pods whose lines interleave, with everything the
// events carry.
TEST(HetbenchParser, TwoRanksInterleaved) {
  const ParsedLog log = parse({
      {"w0", runStart(0, 2)},
      {"w1", "some unrelated output"},
      {"w1", runStart(1, 2)},
      {"w0", epoch(0, 0, R"(,"warmup":true,"energy_joules":1500.5)")},
      {"w1", epoch(1, 0, R"(,"warmup":true)")},
      {"w1", epoch(1, 1)},
      {"w0", epoch(0, 1)},
      {"w0", runEnd(0)},
      {"w1", runEnd(1)},
  });
  EXPECT_TRUE(log.errors.empty()) << logStatus(log).toString();
  ASSERT_TRUE(log.run.has_value());
  const RunInfo want{"resnet50", "resnet50-v1.5",         2, 256, "bf16",
                     "cuda",     "NVIDIA A100-SXM4-40GB", 1};
  EXPECT_EQ(*log.run, want);
  EXPECT_EQ(log.worldSize, 2);
  ASSERT_EQ(log.epochs.size(), 4u);
  EXPECT_EQ(log.epochs[0], (EpochSample{0, 0, 1000, 10.5, 2.5, 8.0, 1500.5, true}));
  EXPECT_EQ(log.epochs[1], (EpochSample{1, 0, 1000, 10.5, 2.5, 8.0, std::nullopt, true}));
  EXPECT_EQ(log.epochs[2], (EpochSample{1, 1, 1000, 10.5, 2.5, 8.0, std::nullopt, false}));
  EXPECT_EQ(log.epochs[3].rank, 0);
  EXPECT_TRUE(log.scalars.empty());
}

// Verifies that the marker is found behind kubelet timestamps and launcher prefixes, and that
// line endings and unknown fields do not matter.
TEST(HetbenchParser, LineForms) {
  const std::vector<std::string> forms = {
      epoch(0, 0),
      "2026-03-01T10:00:00.123456789Z " + epoch(0, 0),
      "2026-03-01T10:00:00Z " + epoch(0, 0),
      "[rank0]: " + epoch(0, 0),
      epoch(0, 0) + "\r",
      epoch(0, 0) + "\n",
      epoch(0, 0, R"(,"gpu_temperature":71,"extra":{"nested":[1,2]})"),
      epoch(0, 0) + "   ",
      // nlohmann::json, and so the reader, ends the object's text at a NUL byte.
      epoch(0, 0) + std::string("\0 trailing", 10),
  };
  for (const std::string& form : forms) {
    const ParsedLog log = parse({{"w0", runStart(0, 1)}, {"w0", form}});
    EXPECT_TRUE(log.errors.empty()) << form << ": " << logStatus(log).toString();
    ASSERT_EQ(log.epochs.size(), 1u) << form;
    EXPECT_EQ(log.epochs[0].samples, 1000) << form;
  }
}

// Verifies that lines without the marker are no business of this parser.
TEST(HetbenchParser, IgnoresOtherLines) {
  const ParsedLog log = parse({{"w0", ""},
                               {"w0", "Epoch 1: loss 0.5"},
                               {"w0", ":::MLLOG {\"key\": \"run_start\", \"time_ms\": 1}"},
                               {"w0", "HETBENCH without colons"}});
  EXPECT_TRUE(log.errors.empty());
  EXPECT_TRUE(log.epochs.empty());
  EXPECT_FALSE(log.worldSize.has_value());
  EXPECT_FALSE(log.run.has_value());
}

struct BadLineCase {
  std::string name;
  std::string line;
  std::string wantMessage;
};

// Verifies that each kind of bad line is an error naming its line, worded as documented.
TEST(HetbenchParser, BadLines) {
  const std::string m = ":::HETBENCH ";
  const std::vector<BadLineCase> cases = {
      {"invalid JSON", m + R"({"v":1,"event":)", "invalid JSON at byte 16 after the marker"},
      {"no space after the marker", ":::HETBENCH{\"v\":1}",
       ":::HETBENCH must be followed by one space and a JSON object"},
      {"nothing after the marker", ":::HETBENCH", ":::HETBENCH must be followed by one space"},
      {"not an object", m + "[1,2]", "not a JSON object"},
      {"a JSON string", m + "\"epoch\"", "not a JSON object"},
      {"trailing garbage", m + R"({"v":1} x)", "invalid JSON at byte"},
      {"deep brackets after a NUL", m + R"({"v":1})" + std::string(1, '\0') + std::string(40, '['),
       "the JSON object nests deeper than 32 levels"},
      {"NaN is not JSON", m + R"({"v":1,"event":"epoch","wall_seconds":NaN})", "invalid JSON"},
      {"unknown version", m + R"({"v":2,"event":"epoch"})",
       "unsupported version 2: this hetbench reads version 1"},
      {"version 0", m + R"({"v":0,"event":"epoch"})", "unsupported version 0"},
      {"no version", m + R"({"event":"epoch"})", "missing required field \"v\""},
      {"version as a string", m + R"({"v":"1","event":"epoch"})",
       "field \"v\" must be an integer, not string"},
      {"null version", m + R"({"v":null,"event":"epoch"})", "missing required field \"v\""},
      {"no event", m + R"({"v":1})", "missing required field \"event\""},
      {"unknown event", m + R"({"v":1,"event":"epoc"})",
       "unknown event \"epoc\": version 1 has run_start, epoch and run_end"},
      {"epoch without samples",
       m + R"({"v":1,"event":"epoch","epoch":0,"rank":0,"wall_seconds":1,"io_seconds":0,)"
           R"("compute_seconds":1})",
       "missing required field \"samples\""},
      {"fractional samples",
       m + R"({"v":1,"event":"epoch","epoch":0,"rank":0,"samples":1.5,"wall_seconds":1,)"
           R"("io_seconds":0,"compute_seconds":1})",
       "field \"samples\" must be an integer, not number"},
      {"zero wall time",
       m + R"({"v":1,"event":"epoch","epoch":0,"rank":0,"samples":1,"wall_seconds":0,)"
           R"("io_seconds":0,"compute_seconds":0})",
       "field \"wall_seconds\" must be greater than 0, not 0"},
      {"negative I/O time",
       m + R"({"v":1,"event":"epoch","epoch":0,"rank":0,"samples":1,"wall_seconds":1,)"
           R"("io_seconds":-1.5,"compute_seconds":1})",
       "field \"io_seconds\" must be at least 0, not -1.5"},
      {"negative epoch",
       m + R"({"v":1,"event":"epoch","epoch":-1,"rank":0,"samples":1,"wall_seconds":1,)"
           R"("io_seconds":0,"compute_seconds":1})",
       "field \"epoch\" must be at least 0, not -1"},
      {"energy as a string", epoch(0, 0, R"(,"energy_joules":"12")"),
       "field \"energy_joules\" must be a number, not string"},
      {"warmup as a string", epoch(0, 0, R"(,"warmup":"yes")"),
       "field \"warmup\" must be a boolean, not string"},
      {"gpus as an object", epoch(0, 0, R"(,"gpus":{"device":"GPU 0"})"),
       "field \"gpus\" must be an array, not object"},
      {"a gpu that is not an object", epoch(0, 0, R"(,"gpus":[{"device":"GPU 0"},7])"),
       "field \"gpus[1]\" must be an object, not integer"},
      {"a gpu without its device", epoch(0, 0, R"(,"gpus":[{"samples":3}])"),
       "missing required field \"gpus[0].device\""},
      {"a share above 1", epoch(0, 0, R"(,"gpus":[{"device":"G","throttled":{"thermal":1.5}}])"),
       "field \"gpus[0].throttled.thermal\" is a share: at most 1, not 1.5"},
      {"a negative share",
       epoch(0, 0, R"(,"gpus":[{"device":"G","throttled":{"power_cap":-0.1}}])"),
       "field \"gpus[0].throttled.power_cap\" must be at least 0, not -0.1"},
      {"an Xid that is not an integer", epoch(0, 0, R"(,"gpus":[{"device":"G","xids":[79,"x"]}])"),
       "field \"gpus[0].xids[1]\" must be an integer, not string"},
      {"rank beyond int64", m + R"({"v":1,"event":"epoch","epoch":0,"rank":18446744073709551615})",
       "field \"rank\" is out of range: 18446744073709551615"},
      {"run_start without an accelerator count",
       m + R"({"v":1,"event":"run_start","benchmark":"b","model":"m","world_size":1,"rank":0,)"
           R"("global_batch_size":8,"precision":"fp32","device":"cpu","accelerator":{"name":"x"}})",
       "missing required field \"accelerator.count\""},
      {"run_start with a string accelerator",
       m + R"({"v":1,"event":"run_start","benchmark":"b","model":"m","world_size":1,"rank":0,)"
           R"("global_batch_size":8,"precision":"fp32","device":"cpu","accelerator":"gpu"})",
       "field \"accelerator\" must be an object, not string"},
      {"run_start with world_size 0",
       m + R"({"v":1,"event":"run_start","benchmark":"b","model":"m","world_size":0,"rank":0,)"
           R"("global_batch_size":8,"precision":"fp32","device":"cpu",)"
           R"("accelerator":{"name":"x","count":0}})",
       "field \"world_size\" must be at least 1, not 0"},
      {"run_start with a rank beyond the world", runStart(2, 2),
       "rank 2 is not below world_size 2"},
      {"run_end with an unknown status",
       m + R"({"v":1,"event":"run_end","rank":0,"status":"fine"})",
       "field \"status\" must be \"ok\" or \"error\", not \"fine\""},
      {"run_end with an error",
       m + R"({"v":1,"event":"run_end","rank":1,"status":"error","message":"CUDA out of memory"})",
       "rank 1 ended with an error: \"CUDA out of memory\""},
      {"run_end with an error and no message",
       m + R"({"v":1,"event":"run_end","rank":0,"status":"error"})", "rank 0 ended with an error"},
  };
  for (const BadLineCase& c : cases) {
    const ParsedLog log = parse({{"w0", runStart(0, 2)}, {"w0", "text"}, {"w0", c.line}});
    ASSERT_EQ(log.errors.size(), 1u) << c.name << ": " << logStatus(log).toString();
    EXPECT_EQ(log.errors[0].source, "w0") << c.name;
    EXPECT_EQ(log.errors[0].line, 3) << c.name;
    EXPECT_EQ(log.errors[0].message.rfind(c.wantMessage, 0), 0u)
        << c.name << ": " << log.errors[0].message;
  }
}

// Verifies that each GPU of an epoch is read with what the judge needs, and that the other
// figures hetbench-train reports (clocks, temperature) are ignored.
TEST(HetbenchParser, ReadsTheGpusOfAnEpoch) {
  const ParsedLog log = parse({
      {"w0", runStart(0, 1)},
      {"w0",
       epoch(0, 0,
             R"j(,"gpus":[{"device":"GPU 0 (NVIDIA H200)","samples":24,)j"
             R"j("sm_clock_mhz":{"mean":1958.6,"min":1920},"sm_clock_max_mhz":1980,)j"
             R"j("throttled":{"power_cap":0.915,"thermal":0.0,"hardware":0.01},)j"
             R"j("temperature_max_c":54,"power_limit_w":700.0,"default_power_limit_w":700.0,)j"
             R"j("ecc_errors":{"corrected":3,"uncorrected":1},"xids":[48,79]},)j"
             R"j({"device":"GPU 1 (Old)","samples":2,"error":"GPU is lost"}])j")},
  });
  ASSERT_TRUE(log.errors.empty()) << logStatus(log).toString();
  ASSERT_EQ(log.epochs.size(), 1u);
  const GpuEpoch full{"GPU 0 (NVIDIA H200)", 0.915, 0.0, 0.01, 700.0, 700.0, 1, {48, 79}};
  const GpuEpoch bare{"GPU 1 (Old)", {}, {}, {}, {}, {}, {}, {}};
  EXPECT_EQ(log.epochs[0].gpus, (std::vector<GpuEpoch>{full, bare}));
}

// Verifies what only the log as a whole can tell: repeated events, disagreeing world sizes,
// ranks beyond the world and epochs without a run_start.
TEST(HetbenchParser, LogErrors) {
  struct Case {
    std::string name;
    std::vector<Line> lines;
    LineError want;
  };
  const std::vector<Case> cases = {
      {"an epoch logged twice",
       {{"a", runStart(0, 1)}, {"a", epoch(0, 3)}, {"b", epoch(0, 3)}},
       {"b", 1, "rank 0 logged epoch 3 twice"}},
      {"run_start twice",
       {{"a", runStart(0, 2)}, {"a", runStart(0, 2)}},
       {"a", 2, "rank 0 logged run_start twice"}},
      {"run_end twice",
       {{"a", runEnd(0)}, {"a", runEnd(0)}},
       {"a", 2, "rank 0 logged run_end twice"}},
      {"world sizes disagree",
       {{"a", runStart(0, 2)}, {"b", runStart(1, 4)}},
       {"b", 1, "world_size 4 differs from 2 in an earlier run_start"}},
      {"an epoch of a rank beyond the world",
       {{"a", epoch(5, 0)}, {"b", runStart(0, 2)}},
       {"a", 1, "rank 5 is not below world_size 2"}},
      {"epochs without run_start",
       {{"a", epoch(0, 0)}},
       {"", 0, "epochs without a run_start event: the world size is unknown"}},
  };
  for (const Case& c : cases) {
    const ParsedLog log = parse(c.lines);
    ASSERT_EQ(log.errors.size(), 1u) << c.name << ": " << logStatus(log).toString();
    EXPECT_EQ(log.errors[0], c.want) << c.name;
  }
}

// Verifies that each rank's epoch is taken once and a repeat is an error, whatever order the
// epochs come in (runs of epochs that grow at either end, join, or stay apart), up to the
// largest epoch number.
TEST(HetbenchParser, EpochsInAnyOrder) {
  constexpr std::int64_t kLast = 9223372036854775807;
  std::vector<std::pair<int, std::int64_t>> events;
  for (int rank = 0; rank < 3; ++rank) {
    for (std::int64_t e : {std::int64_t{0}, std::int64_t{1}, std::int64_t{2}, std::int64_t{3},
                           std::int64_t{5}, std::int64_t{6}, std::int64_t{9}, kLast - 1, kLast}) {
      events.emplace_back(rank, e);
      if ((e % 3 + rank) % 3 == 0) events.emplace_back(rank, e);
    }
  }
  std::shuffle(events.begin(), events.end(), std::mt19937(20261122));
  std::vector<Line> lines = {{"w", runStart(0, 3)}, {"w", runStart(1, 3)}, {"w", runStart(2, 3)}};
  std::set<std::pair<int, std::int64_t>> seen;
  std::vector<LineError> want;
  for (const auto& [rank, e] : events) {
    lines.push_back({"w", epoch(rank, e)});
    if (!seen.emplace(rank, e).second) {
      want.push_back(
          {"w", static_cast<std::int64_t>(lines.size()),
           "rank " + std::to_string(rank) + " logged epoch " + std::to_string(e) + " twice"});
    }
  }
  const ParsedLog log = parse(lines);
  EXPECT_EQ(log.errors, want);
  EXPECT_EQ(log.epochs.size(), seen.size());
}

// Verifies that result() describes the lines so far and that consuming goes on after it.
TEST(HetbenchParser, ResultWhileConsuming) {
  const auto parser = makeHetbenchParser();
  parser->consume("w0", runStart(0, 1));
  parser->consume("w0", epoch(0, 0));
  EXPECT_EQ(parser->result().epochs.size(), 1u);
  parser->consume("w0", epoch(0, 1));
  parser->consume("w0", "not json :::HETBENCH {");
  const ParsedLog log = parser->result();
  EXPECT_EQ(log.epochs.size(), 2u);
  ASSERT_EQ(log.errors.size(), 1u);
  EXPECT_EQ(log.errors[0].line, 4);
}

// Verifies the wording of errors and of the log's status, and that errors beyond
// kMaxLineErrors are counted rather than kept.
TEST(HetbenchParser, ErrorReporting) {
  EXPECT_EQ(toString(LineError{"w0", 12, "bad"}), "w0 line 12: bad");
  EXPECT_EQ(toString(LineError{"", 12, "bad"}), "line 12: bad");
  EXPECT_EQ(toString(LineError{"w0", 0, "bad"}), "w0: bad");
  EXPECT_EQ(toString(LineError{"", 0, "bad"}), "bad");

  EXPECT_TRUE(logStatus(ParsedLog{}).isOk());
  ParsedLog one;
  one.errors = {{"w0", 3, "not a JSON object"}};
  EXPECT_EQ(logStatus(one),
            common::invalidError("1 error in the log: w0 line 3: not a JSON object"));

  std::vector<Line> lines;
  for (int i = 0; i < 150; ++i) lines.push_back({"w0", ":::HETBENCH []"});
  const ParsedLog many = parse(lines);
  EXPECT_EQ(many.errors.size(), kMaxLineErrors);
  EXPECT_EQ(many.errorsOmitted, 50);
  EXPECT_EQ(many.errors.back().line, 100);
  const common::Status status = logStatus(many);
  EXPECT_TRUE(status.isInvalid());
  EXPECT_EQ(status.message(),
            "150 errors in the log: w0 line 1: not a JSON object; w0 line 2: not a JSON object; "
            "w0 line 3: not a JSON object; w0 line 4: not a JSON object; w0 line 5: not a JSON "
            "object; and 145 more");
}

}  // namespace
}  // namespace hetbench::results
