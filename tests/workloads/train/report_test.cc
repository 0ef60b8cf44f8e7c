#include "hetbench/train/report.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "hetbench/results/aggregate.h"
#include "log_reading.h"

namespace hetbench::train {
namespace {

using testing_support::readHetbench;
using testing_support::readMlperf;

RunDescription cpuRun() {
  RunDescription run;
  run.benchmark = models::ModelKind::kResnet50;
  run.worldSize = 1;
  run.rank = 0;
  run.globalBatchSize = 8;
  run.precision = "bf16";
  run.device = "cpu";
  run.acceleratorName = "AMD EPYC";
  run.acceleratorCount = 0;
  run.sampleShape = {3, 64, 64};
  run.data = "synthetic";
  run.stepsPerEpoch = 4;
  run.optimizer = "sgd";
  run.lr = 0.003125;
  run.seed = 7;
  return run;
}

EpochFigures epochFigures(int64_t epoch, bool warmup, std::optional<EvalTotals> eval) {
  EpochFigures f;
  f.epoch = epoch;
  f.samples = 32;
  f.steps = 4;
  f.wallSeconds = 2.0;
  f.ioSeconds = 0.5;
  f.computeSeconds = 1.5;
  f.warmup = warmup;
  f.lossSum = 8;
  f.energyJoules = 300.0;
  f.eval = eval;
  return f;
}

/// A reporter whose wall clock advances one second per MLLOG line.
struct Reported {
  std::ostringstream out;
  double nowMs = 1.7e12;
  Reporter reporter;

  Reported(int64_t rank, bool mllog)
      : reporter(out, rank, mllog, [this] { return nowMs += 1000; }) {}
};

/// A whole run: two epochs, the second evaluated.
void reportRun(Reporter& reporter, const RunDescription& run) {
  reporter.runStart(run);
  for (int64_t epoch = 0; epoch < 2; ++epoch) {
    reporter.epochStart(epoch);
    reporter.epochStop(epoch);
    std::optional<EvalTotals> eval;
    if (epoch == 1) {
      reporter.evalStart(epoch);
      reporter.evalStop(epoch);
      eval = EvalTotals{10, 5.0, 8.0, 0.25};
    }
    const EpochFigures mine = epochFigures(epoch, epoch == 0, eval);
    reporter.epoch(mine, mine);
  }
  reporter.runEnd(true);
}

// Verifies that the operator's hetbench reader takes the run as reported: run_start's fields,
// each epoch's figures, and the metrics derived from the measured epoch.
TEST(Reporter, WritesTheHetbenchEventsTheOperatorReads) {
  Reported reported(0, false);
  reportRun(reported.reporter, cpuRun());
  const std::string log = reported.out.str();
  EXPECT_EQ(log.find(":::MLLOG"), std::string::npos);

  const results::ParsedLog parsed = readHetbench(log);
  ASSERT_TRUE(parsed.errors.empty()) << results::logStatus(parsed).toString();
  ASSERT_TRUE(parsed.run.has_value());
  const results::RunInfo want{"resnet50", "resnet50-v1.5", 1, 8, "bf16", "cpu", "AMD EPYC", 0};
  EXPECT_EQ(*parsed.run, want);
  const std::vector<results::EpochSample> epochs = {{0, 0, 32, 2.0, 0.5, 1.5, 300.0, true},
                                                    {0, 1, 32, 2.0, 0.5, 1.5, 300.0, false}};
  EXPECT_EQ(parsed.epochs, epochs);
  const auto metrics = results::aggregateRepetition(parsed);
  ASSERT_TRUE(metrics.isOk()) << metrics.status().toString();
  EXPECT_EQ(metrics->epochsMeasured, 1);
  EXPECT_DOUBLE_EQ(metrics->values.at("effective_throughput"), 16);
  EXPECT_DOUBLE_EQ(metrics->values.at("compute_throughput"), 32 / 1.5);
  EXPECT_DOUBLE_EQ(metrics->values.at("samples_per_wh"), 32 / (300.0 / 3600));

  // The extra fields of the evaluated epoch.
  EXPECT_NE(log.find(R"("steps":4,"train_loss":2.0,"eval_samples":10,"eval_seconds":0.25,)"
                     R"("eval_loss":0.5,"eval_accuracy":0.8})"),
            std::string::npos)
      << log;
}

// Verifies that each GPU's epoch is written with what it reported and without what it did not,
// in the epoch event of the rank it belongs to.
TEST(Reporter, WritesEachGpuOfTheRank) {
  Reported reported(1, false);
  EpochFigures mine = epochFigures(0, false, std::nullopt);
  energy::DeviceWindow full;
  full.device = "GPU 0 (NVIDIA H100 80GB HBM3)";
  full.samples = 20;
  full.smClockMeanMhz = 1755.4999;
  full.smClockMinMhz = 1410;
  full.smClockMaxMhz = 1980;
  full.throttled = energy::ThrottleShares{0.250001, 0, 0.5};
  full.temperatureMaxC = 71;
  full.powerLimitWatts = 700;
  full.defaultPowerLimitWatts = 700;
  full.eccCorrected = 0;
  full.eccUncorrected = 1;
  full.xids = std::vector<uint64_t>{48};
  energy::DeviceWindow bare;
  bare.device = "GPU 1 (Old)";
  bare.samples = 3;
  bare.error = "nvmlDeviceGetClockInfo on GPU 1 (Old): GPU is lost";
  mine.devices = {full, bare};
  reported.reporter.epoch(mine, combineRanks({mine}));
  EXPECT_NE(
      reported.out.str().find(
          R"j("gpus":[{"device":"GPU 0 (NVIDIA H100 80GB HBM3)","samples":20,)j"
          R"j("sm_clock_mhz":{"mean":1755.5,"min":1410},"sm_clock_max_mhz":1980,)j"
          R"j("throttled":{"power_cap":0.25,"thermal":0.0,"hardware":0.5},"temperature_max_c":71,)j"
          R"j("power_limit_w":700.0,"default_power_limit_w":700.0,)j"
          R"j("ecc_errors":{"corrected":0,"uncorrected":1},"xids":[48]},)j"
          R"j({"device":"GPU 1 (Old)","samples":3,)j"
          R"j("error":"nvmlDeviceGetClockInfo on GPU 1 (Old): GPU is lost"}])j"),
      std::string::npos)
      << reported.out.str();
}

// Verifies the MLLOG lines: the operator's MLPerf reader finds each epoch with its wall time
// from epoch_start/epoch_stop and its samples from the tracked throughput, and a run that
// reached its target has a time to train.
TEST(Reporter, WritesMllogLinesTheOperatorReads) {
  Reported reported(0, true);
  reportRun(reported.reporter, cpuRun());
  const std::string log = reported.out.str();
  const results::ParsedLog parsed = readMlperf(log);
  ASSERT_TRUE(parsed.errors.empty()) << results::logStatus(parsed).toString();
  ASSERT_EQ(parsed.epochs.size(), 2u);
  // One MLLOG line per second: epoch_start and epoch_stop are one second apart; the tracked
  // throughput of 32 samples in 2 s over that second makes 16 samples.
  EXPECT_EQ(parsed.epochs[0].epoch, 1);
  EXPECT_DOUBLE_EQ(parsed.epochs[0].wallSeconds, 1);
  EXPECT_DOUBLE_EQ(parsed.epochs[0].samples, 16);
  EXPECT_EQ(parsed.epochs[1].epoch, 2);
  ASSERT_EQ(parsed.scalars.count("time_to_train_seconds"), 1u);
  EXPECT_GT(parsed.scalars.at("time_to_train_seconds"), 0);
  EXPECT_NE(log.find(R"("key": "eval_accuracy", "value": 0.8, "metadata": {"epoch_num":2})"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find(R"("key": "run_stop", "value": null, "metadata": {"status":"success"})"),
            std::string::npos);
  // The hetbench reader ignores the MLLOG lines.
  EXPECT_TRUE(readHetbench(log).errors.empty());
}

// Verifies that each run is reported under its benchmark's names: run_start's benchmark and
// model, MLLOG's submission_benchmark, and cosmoflow's mean absolute error as eval_mae (MLLOG's
// eval_error) where the others report eval_accuracy.
TEST(Reporter, NamesEachBenchmarksRunAndMetric) {
  struct Case {
    models::ModelKind benchmark;
    std::string name;
    std::string model;
    std::string field;
    std::string mllogKey;
  };
  const std::vector<Case> cases = {
      {models::ModelKind::kResnet50, "resnet50", "resnet50-v1.5", "eval_accuracy", "eval_accuracy"},
      {models::ModelKind::kCosmoflow, "cosmoflow", "cosmoflow", "eval_mae", "eval_error"},
      {models::ModelKind::kDeepcam, "deepcam", "deepcam-deeplabv3plus", "eval_accuracy",
       "eval_accuracy"},
  };
  for (const Case& c : cases) {
    Reported reported(0, true);
    RunDescription run = cpuRun();
    run.benchmark = c.benchmark;
    reportRun(reported.reporter, run);
    const std::string log = reported.out.str();
    const auto has = [&](const std::string& text) {
      EXPECT_NE(log.find(text), std::string::npos) << text << " not in\n" << log;
    };
    has(R"("benchmark":")" + c.name + R"(","model":")" + c.model + R"(",)");
    has(R"("key": "submission_benchmark", "value": ")" + c.name + R"(",)");
    has(R"(")" + c.field + R"(":0.8})");
    has(R"("key": ")" + c.mllogKey + R"(", "value": 0.8,)");
  }
}

// Verifies that only rank 0 writes MLLOG lines, as MLPerf loggers do, and that every rank writes
// its own events.
TEST(Reporter, OnlyRankZeroWritesMllog) {
  Reported reported(1, true);
  RunDescription run = cpuRun();
  run.worldSize = 2;
  run.rank = 1;
  reportRun(reported.reporter, run);
  const std::string log = reported.out.str();
  EXPECT_EQ(log.find(":::MLLOG"), std::string::npos);
  EXPECT_NE(log.find(R"("event":"epoch","epoch":1,"rank":1,)"), std::string::npos) << log;
}

// Verifies a failed run: run_end with status error and the message (escaped, invalid UTF-8
// replaced), which the operator reads as an error of the log, and MLLOG's run_stop aborted.
TEST(Reporter, ReportsAFailure) {
  Reported reported(0, true);
  reported.reporter.runStart(cpuRun());
  reported.reporter.runFailed("out of \"memory\"\n\xff");
  const std::string log = reported.out.str();
  EXPECT_NE(log.find(R"(:::HETBENCH {"v":1,"event":"run_end","rank":0,"status":"error",)"
                     "\"message\":\"out of \\\"memory\\\"\\n\xef\xbf\xbd\"}"),
            std::string::npos)
      << log;
  const results::ParsedLog parsed = readHetbench(log);
  ASSERT_EQ(parsed.errors.size(), 1u);
  EXPECT_NE(parsed.errors[0].message.find("ended with an error"), std::string::npos)
      << results::toString(parsed.errors[0]);
  EXPECT_NE(log.find(R"("metadata": {"status":"aborted"})"), std::string::npos);
}

// Verifies the CPU's name as /proc/cpuinfo gives it, and the fallback without one.
TEST(Reporter, ReadsTheCpuModelName) {
  EXPECT_EQ(cpuModelName("processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC "
                         "7B13 64-Core Processor  \nflags\t\t: fpu\n"),
            "AMD EPYC 7B13 64-Core Processor");
  EXPECT_EQ(cpuModelName("model name: Intel(R) Xeon(R) Platinum 8480+\r\n"),
            "Intel(R) Xeon(R) Platinum 8480+");
  EXPECT_EQ(cpuModelName("processor\t: 0\nBogoMIPS\t: 50.00\nCPU part\t: 0xd0c\n"), "unknown CPU");
  EXPECT_EQ(cpuModelName("model name\t:\n"), "unknown CPU");
  EXPECT_EQ(cpuModelName(""), "unknown CPU");
  EXPECT_FALSE(thisCpuModelName().empty());
}

// Verifies the MLPerf quality targets, on both sides of each.
TEST(Reporter, KnowsTheQualityTargets) {
  using models::ModelKind;
  struct Case {
    ModelKind benchmark;
    double metric;  // per sample
    bool reached;
  };
  const std::vector<Case> cases = {
      {ModelKind::kResnet50, 0.76, true},  {ModelKind::kResnet50, 0.75, false},
      {ModelKind::kCosmoflow, 0.12, true}, {ModelKind::kCosmoflow, 0.2, false},
      {ModelKind::kDeepcam, 0.83, true},   {ModelKind::kDeepcam, 0.81, false},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(reachesTarget(c.benchmark, EvalTotals{1000, 0, c.metric * 1000, 0}), c.reached)
        << models::descriptor(c.benchmark).name << " " << c.metric;
  }
  EXPECT_FALSE(reachesTarget(ModelKind::kResnet50, EvalTotals{}));
}

}  // namespace
}  // namespace hetbench::train
