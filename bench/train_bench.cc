// train_bench: ResNet-50 training steps on the CPU, hetbench-train's step (models::ResNet50,
// Trainer with the foreach SGD) against torchvision's resnet50 with torch.optim.SGD in Python,
// in the same run: same batch, image size, intra-op threads, SGD with momentum 0.9 and the
// reference's learning rate and weight decay, fp32, warm-up steps first. The Python side runs
// as a child process that waits between steps, and the two sides take turns step by step, so
// that a change in the machine's load (other builds on a shared machine) touches both alike.
#include <sys/wait.h>
#include <torch/torch.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench_util.h"
#include "hetbench/models/model.h"
#include "hetbench/train/program.h"
#include "hetbench/train/trainer.h"

namespace bench = hetbench::bench;
namespace common = hetbench::common;
namespace models = hetbench::models;
namespace train = hetbench::train;

namespace {

struct Settings {
  std::int64_t batch = 8;
  std::int64_t imageSize = 128;
  std::int64_t threads = 2;
  std::int64_t warmup = 2;
  std::int64_t steps = 10;
  std::string python = "/usr/bin/python3";
  bool each = false;
  bool glibcDefaults = false;
};

/// The Python side as a child process that runs one step per request.
class PythonSide {
 public:
  PythonSide(const Settings& s, const train::Hyperparameters& h) {
    int toChild[2];
    int fromChild[2];
    if (::pipe(toChild) != 0 || ::pipe(fromChild) != 0) {
      throw std::runtime_error("pipe failed");
    }
    const std::vector<std::string> args = {s.python,
                                           HETBENCH_TRAIN_BENCH_SCRIPT,
                                           std::to_string(s.batch),
                                           std::to_string(s.imageSize),
                                           std::to_string(s.threads),
                                           std::to_string(s.warmup),
                                           std::to_string(h.lr),
                                           std::to_string(h.weightDecay)};
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(toChild[0], 0);
      ::dup2(fromChild[1], 1);
      ::close(toChild[1]);
      ::close(fromChild[0]);
      std::vector<char*> argv;
      for (const std::string& arg : args) {
        argv.push_back(const_cast<char*>(arg.c_str()));
      }
      argv.push_back(nullptr);
      ::execv(s.python.c_str(), argv.data());
      ::_exit(127);
    }
    ::close(toChild[0]);
    ::close(fromChild[1]);
    in_ = ::fdopen(toChild[1], "w");
    out_ = ::fdopen(fromChild[0], "r");
    if (readLine() != "ready") {
      throw std::runtime_error("the Python side did not start (" + s.python +
                               " with torch and torchvision)");
    }
  }

  ~PythonSide() {
    std::fputs("quit\n", in_);
    std::fclose(in_);
    std::fclose(out_);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }

  PythonSide(const PythonSide&) = delete;
  PythonSide& operator=(const PythonSide&) = delete;

  /// Seconds of one Python step.
  double step() {
    std::fputs("step\n", in_);
    std::fflush(in_);
    return std::stod(readLine());
  }

 private:
  std::string readLine() {
    char line[256];
    if (std::fgets(line, sizeof(line), out_) == nullptr) {
      throw std::runtime_error("the Python side ended");
    }
    std::string text(line);
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) {
      text.pop_back();
    }
    return text;
  }

  pid_t pid_ = -1;
  FILE* in_ = nullptr;
  FILE* out_ = nullptr;
};

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t middle = values.size() / 2;
  return values.size() % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
  Settings s;
  common::FlagSet flags("train_bench",
                        "ResNet-50 training steps on the CPU: hetbench-train's C++ step against "
                        "torchvision's in Python, taking turns step by step.");
  flags.addInt("batch", &s.batch, "images per step", 1, 4096);
  flags.addInt("image-size", &s.imageSize, "image side", 32, 1024);
  flags.addInt("threads", &s.threads, "intra-op threads on both sides", 1, 1024);
  flags.addInt("warmup", &s.warmup, "untimed steps first, on each side", 0, 1000);
  flags.addInt("steps", &s.steps, "timed steps on each side", 1, 100000);
  flags.addString("python", &s.python, "a Python with torch and torchvision");
  flags.addBool("each", &s.each, "print the seconds of every pair of steps");
  flags.addBool("glibc-defaults", &s.glibcDefaults,
                "leave glibc's malloc as it is instead of train::keepFreedMemory()");
  if (const auto exit = bench::parseFlags(flags, argc, argv)) {
    return *exit;
  }
  // As hetbench-train's main does.
  if (!s.glibcDefaults) {
    train::keepFreedMemory();
  }
  std::printf(
      "ResNet-50, batch %lld, %lldx%lld images, %lld threads, fp32, SGD momentum 0.9; "
      "%lld warm-up and %lld timed steps per side, taking turns; %s\n",
      static_cast<long long>(s.batch), static_cast<long long>(s.imageSize),
      static_cast<long long>(s.imageSize), static_cast<long long>(s.threads),
      static_cast<long long>(s.warmup), static_cast<long long>(s.steps),
      s.glibcDefaults ? "glibc's malloc defaults" : "train::keepFreedMemory()");
  train::TrainOptions options;
  options.model = models::ModelKind::kResnet50;
  const train::Hyperparameters hyper = train::resolveHyperparameters(options, s.batch);

  torch::set_num_threads(static_cast<int>(s.threads));
  torch::manual_seed(0);
  const auto model = models::makeModel(models::ModelKind::kResnet50,
                                       models::ModelOptions().sampleSize({s.imageSize}));
  train::SingleProcess single;
  train::TrainerConfig config;
  config.hyper = hyper;
  train::Trainer trainer(*model, config, single);
  const models::Batch batch = trainer.toDevice(model->randomBatch(s.batch));
  for (std::int64_t i = 0; i < s.warmup; ++i) {
    trainer.step(batch).item<double>();
  }
  try {
    PythonSide python(s, hyper);
    double cppTotal = 0;
    double pythonTotal = 0;
    std::vector<double> ratios;
    for (std::int64_t i = 0; i < s.steps; ++i) {
      const auto start = bench::Clock::now();
      trainer.step(batch).item<double>();
      const double cpp = bench::seconds(bench::Clock::now() - start);
      const double py = python.step();
      cppTotal += cpp;
      pythonTotal += py;
      ratios.push_back(py / cpp);  // C++ steps/s over Python steps/s
      if (s.each) {
        std::printf("step %lld: C++ %.3f s, Python %.3f s\n", static_cast<long long>(i + 1), cpp,
                    py);
      }
    }
    const auto steps = static_cast<double>(s.steps);
    const auto images = static_cast<double>(s.batch);
    std::printf("C++:    %.3f steps/s, %.2f images/s (%.3f s per step)\n", steps / cppTotal,
                steps * images / cppTotal, cppTotal / steps);
    std::printf("Python: %.3f steps/s, %.2f images/s (%.3f s per step)\n", steps / pythonTotal,
                steps * images / pythonTotal, pythonTotal / steps);
    std::printf("C++/Python: %.3f (totals), %.3f (median of the step pairs)\n",
                pythonTotal / cppTotal, median(ratios));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "train_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
