// Runs the built hetbench-train as a child process and reads its output as the operator does.
#include "hetbench/train/program.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <malloc.h>
#include <sys/wait.h>
#include <torch/cuda.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "hetbench/results/aggregate.h"
#include "log_reading.h"
#include "support/temp_dir.h"

namespace hetbench::train {
namespace {

using hetbench::testing_support::TempDir;
using testing_support::readHetbench;
using testing_support::readMlperf;

struct ChildRun {
  int status = -1;  // the exit status; -1 when it did not exit normally
  std::string out;
  std::string err;
};

std::string slurp(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

/// Runs `program` with `args`, its stdout and stderr going to files of `dir`.
ChildRun runProgram(const TempDir& dir, const std::string& program,
                    const std::vector<std::string>& args) {
  const std::string outPath = dir.file("stdout");
  const std::string errPath = dir.file("stderr");
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(program.c_str()));
  for (const std::string& arg : args) {
    argv.push_back(const_cast<char*>(arg.c_str()));
  }
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int out = ::open(outPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = ::open(errPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0 || err < 0 || ::dup2(out, 1) < 0 || ::dup2(err, 2) < 0) {
      ::_exit(126);
    }
    ::execv(program.c_str(), argv.data());
    ::_exit(127);
  }
  ChildRun run;
  int status = 0;
  if (pid < 0 || ::waitpid(pid, &status, 0) != pid) {
    return run;
  }
  run.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.out = slurp(outPath);
  run.err = slurp(errPath);
  return run;
}

ChildRun runTrain(const TempDir& dir, const std::vector<std::string>& args) {
  return runProgram(dir, HETBENCH_TRAIN_BIN, args);
}

struct ModelRun {
  std::string name;
  int epochs;
  int steps;
  std::vector<std::string> args;
};

void PrintTo(const ModelRun& run, std::ostream* os) { *os << run.name; }

class ProgramRuns : public ::testing::TestWithParam<ModelRun> {};

// Verifies a whole run of each model at a reduced size: it exits 0; the operator's hetbench
// reader takes every line and derives the metrics from the measured epochs; each epoch's I/O
// and compute add up to its wall time; every JSON line fits docs/hetbench-jsonl.schema.json;
// and the operator's MLPerf reader reads the MLLOG lines.
TEST_P(ProgramRuns, ReportWhatTheOperatorReads) {
  const TempDir dir("train_program");
  const ModelRun& model = GetParam();
  std::vector<std::string> args = model.args;
  // One intra-op thread: on a shared machine a team of threads waits for its slowest member.
  for (const std::string& common :
       {std::string("--epochs"), std::to_string(model.epochs), std::string("--steps-per-epoch"),
        std::to_string(model.steps), std::string("--eval"), std::string("--mllog"),
        std::string("--threads"), std::string("1")}) {
    args.push_back(common);
  }
  const ChildRun run = runTrain(dir, args);
  ASSERT_EQ(run.status, 0) << run.err;
  const std::string last = std::to_string(model.epochs);
  EXPECT_NE(
      run.err.find("epoch " + last + "/" + last + ": " + std::to_string(model.steps) + " steps"),
      std::string::npos)
      << run.err;

  const results::ParsedLog log = readHetbench(run.out);
  ASSERT_TRUE(log.errors.empty()) << results::logStatus(log).toString() << "\n" << run.out;
  ASSERT_TRUE(log.run.has_value());
  EXPECT_EQ(log.run->benchmark, model.name);
  EXPECT_EQ(log.run->worldSize, 1);
  EXPECT_EQ(log.run->globalBatchSize, 2);
  EXPECT_EQ(log.run->device, "cpu");
  EXPECT_EQ(log.run->acceleratorCount, 0);
  ASSERT_EQ(log.epochs.size(), static_cast<size_t>(model.epochs));
  for (const results::EpochSample& epoch : log.epochs) {
    EXPECT_EQ(epoch.samples, 2 * model.steps);
    EXPECT_EQ(epoch.warmup, epoch.epoch == 0);
    ASSERT_TRUE(epoch.ioSeconds && epoch.computeSeconds);
    EXPECT_NEAR(*epoch.ioSeconds + *epoch.computeSeconds, epoch.wallSeconds,
                0.01 * epoch.wallSeconds)
        << "epoch " << epoch.epoch;
  }
  const auto metrics = results::aggregateRepetition(log);
  ASSERT_TRUE(metrics.isOk()) << metrics.status().toString();
  EXPECT_EQ(metrics->epochsMeasured, model.epochs - 1);
  EXPECT_GT(metrics->values.at("effective_throughput"), 0);
  EXPECT_DOUBLE_EQ(metrics->values.at("compute_fraction"), 1.0);  // synthetic: no I/O
  EXPECT_NE(run.out.find("\"eval_samples\":2,"), std::string::npos) << run.out;

  const results::ParsedLog mllog = readMlperf(run.out);
  ASSERT_TRUE(mllog.errors.empty()) << results::logStatus(mllog).toString() << "\n" << run.out;
  EXPECT_EQ(mllog.epochs.size(), static_cast<size_t>(model.epochs));
  for (const results::EpochSample& epoch : mllog.epochs) {
    EXPECT_NEAR(epoch.samples, 2 * model.steps, 0.2 * model.steps) << "epoch " << epoch.epoch;
  }

  const std::string logFile = dir.write("run.log", run.out);
  const ChildRun check =
      runProgram(dir, HETBENCH_PYTHON, {HETBENCH_JSONL_CHECK, HETBENCH_JSONL_SCHEMA, logFile});
  if (check.status == 3) {
    GTEST_SKIP() << "not validated against the schema: " << check.out
                 << "(scripts/setup installs python3-jsonschema)";
  }
  EXPECT_EQ(check.status, 0) << check.out << check.err;
  // run_start, the epochs, run_end.
  EXPECT_EQ(check.out, std::to_string(model.epochs + 2) + " lines valid\n");
}

INSTANTIATE_TEST_SUITE_P(
    Models, ProgramRuns,
    ::testing::Values(ModelRun{"resnet50",
                               3,
                               2,
                               {"--model", "resnet50", "--batch-size", "2", "--sample-size", "32",
                                "--zero-init-residual"}},
                      ModelRun{"cosmoflow",
                               3,
                               2,
                               {"--model", "cosmoflow", "--batch-size-per-rank", "2",
                                "--sample-size", "32", "--precision", "bf16", "--channels-last"}},
                      ModelRun{"deepcam",
                               2,
                               1,
                               {"--model", "deepcam", "--batch-size", "2", "--sample-size", "32,48",
                                "--optimizer", "adamw"}}),
    [](const ::testing::TestParamInfo<ModelRun>& param) { return param.param.name; });

// Verifies that bad flags exit with status 2 and one line on stderr naming the problem, before
// anything is trained or printed on stdout.
TEST(Program, BadFlagsExitTwo) {
  const TempDir dir("train_flags");
  struct Case {
    std::vector<std::string> args;
    std::string err;
  };
  const std::vector<Case> cases = {
      {{"--model", "resnet50", "--bogus"}, "hetbench-train: unknown flag --bogus (see --help)\n"},
      {{"--model", "resnet50", "--batch-size"},
       "hetbench-train: flag --batch-size needs a value (N) (see --help)\n"},
      {{"--model", "resnet50", "--batch-size", "-3"},
       "hetbench-train: flag --batch-size: must be at least 1, not -3 (see --help)\n"},
      {{"--model", "resnet50", "--batch-size", "4"},
       "hetbench-train: --steps-per-epoch must be above 0 with --data synthetic, which has no "
       "whole pass (see --help)\n"},
  };
  for (const Case& c : cases) {
    const ChildRun run = runTrain(dir, c.args);
    EXPECT_EQ(run.status, 2) << c.err;
    EXPECT_EQ(run.err, c.err);
    EXPECT_EQ(run.out, "");
  }
  const ChildRun help = runTrain(dir, {"--help"});
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("--batch-size-per-rank N"), std::string::npos) << help.out;
}

// Verifies that what this CPU machine cannot run fails at start with a clear message on
// stderr, status 1, and a run_end error that the operator reads as the log's error.
TEST(Program, RefusesCudaOnACpuMachine) {
  if (torch::cuda::is_available()) {
    GTEST_SKIP() << "this machine has a CUDA device";
  }
  const TempDir dir("train_cuda");
  const std::vector<std::string> base = {"--model",           "resnet50", "--batch-size",  "2",
                                         "--steps-per-epoch", "1",        "--sample-size", "32"};
  struct Case {
    std::vector<std::string> extra;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"--device", "cuda"}, "--device cuda: "},
      {{"--cuda-graphs"}, "CUDA graphs need a CUDA device, and this run is on the CPU"},
      {{"--precision", "fp16"},
       "fp16 needs a CUDA device: on the CPU LibTorch 1.13 autocasts to bf16 only"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = base;
    args.insert(args.end(), c.extra.begin(), c.extra.end());
    const ChildRun run = runTrain(dir, args);
    EXPECT_EQ(run.status, 1) << c.message;
    EXPECT_NE(run.err.find("hetbench-train: " + c.message), std::string::npos) << run.err;
    const results::ParsedLog log = readHetbench(run.out);
    ASSERT_FALSE(log.errors.empty()) << run.out;
    EXPECT_NE(results::toString(log.errors.back()).find(c.message), std::string::npos)
        << results::toString(log.errors.back());
  }
}

// Verifies that after keepFreedMemory a large block comes from malloc's heap rather than from
// an mmap of its own, which glibc would hand back to the kernel on free.
// Verifies --profile: the last epoch, and only it, runs under the profiler and says so; the
// profile names the model's operators with their calls; an unwritable path fails the run before
// any training.
TEST(Program, ProfilesTheLastEpoch) {
  const TempDir dir("train_profile");
  const std::vector<std::string> base = {"--model",           "resnet50", "--batch-size", "2",
                                         "--sample-size",     "32",       "--epochs",     "2",
                                         "--steps-per-epoch", "1",        "--threads",    "1"};
  std::vector<std::string> args = base;
  args.insert(args.end(), {"--profile", dir.file("profile.json")});
  const ChildRun run = runTrain(dir, args);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.err.find("epoch 2/2 (profiled): 1 steps"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("epoch 1/2 (warm-up): 1 steps"), std::string::npos) << run.err;
  EXPECT_NE(run.out.find("\"epoch\":1,\"rank\":0"), std::string::npos);
  EXPECT_EQ(run.out.find("\"profiled\":true"), run.out.rfind("\"profiled\":true")) << run.out;
  EXPECT_GT(run.out.find("\"profiled\":true"), run.out.find("\"epoch\":1,\"rank\":0")) << run.out;

  const auto profile = nlohmann::json::parse(slurp(dir.file("profile.json")));
  EXPECT_EQ(profile.at("v"), 1);
  EXPECT_EQ(profile.at("epoch"), 1);
  EXPECT_EQ(profile.at("rank"), 0);
  EXPECT_EQ(profile.at("steps"), 1);
  EXPECT_EQ(profile.at("device"), "cpu");
  EXPECT_GT(profile.at("wall_seconds").get<double>(), 0);
  const auto& entries = profile.at("entries");
  ASSERT_FALSE(entries.empty());
  int64_t convolutions = 0;
  double previous = entries.front().at("total_us").get<double>();
  for (const auto& entry : entries) {
    EXPECT_LE(entry.at("total_us").get<double>(), previous) << entry;
    previous = entry.at("total_us").get<double>();
    if (entry.at("name") == "aten::conv2d") {
      convolutions = entry.at("calls").get<int64_t>();
    }
  }
  EXPECT_EQ(convolutions, 53) << "ResNet-50's convolutions in one forward pass";

  args = base;
  args.insert(args.end(), {"--profile", dir.file("missing/profile.json")});
  const ChildRun refused = runTrain(dir, args);
  EXPECT_EQ(refused.status, 1);
  EXPECT_NE(refused.err.find("--profile: cannot write " + dir.file("missing/profile.json")),
            std::string::npos)
      << refused.err;
  EXPECT_EQ(refused.err.find("epoch 1/2"), std::string::npos) << refused.err;
}

TEST(Program, KeepsFreedMemoryInTheProcess) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "a sanitizer replaces glibc's malloc";
#else
  keepFreedMemory();
  const size_t mmappedBefore = mallinfo2().hblkhd;
  constexpr size_t kBytes = 64 << 20;
  auto* block = static_cast<volatile char*>(std::malloc(kBytes));
  ASSERT_NE(block, nullptr);
  block[kBytes - 1] = 1;
  EXPECT_EQ(mallinfo2().hblkhd, mmappedBefore);
  std::free(const_cast<char*>(block));
#endif
}

}  // namespace
}  // namespace hetbench::train
