#include "hetbench/train/options.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <system_error>

namespace hetbench::train {
namespace {

/// Sets an option from a flag's text; returns why the text is refused, or "" when taken.
using Setter = std::function<std::string(TrainOptions&, std::string_view)>;

struct Flag {
  std::string name;
  std::string valueName;  // empty for booleans
  std::string help;
  Setter set;
};

std::string quoted(std::string_view text) { return "'" + std::string(text) + "'"; }

template <typename T>
std::optional<T> parseNumber(std::string_view text) {
  T value{};
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end) {
    return std::nullopt;
  }
  return value;
}

/// An integer flag of at least `min`.
Setter integer(int64_t TrainOptions::*field, int64_t min) {
  return [field, min](TrainOptions& options, std::string_view text) -> std::string {
    const auto value = parseNumber<int64_t>(text);
    if (!value) {
      return quoted(text) + " is not an integer";
    }
    if (*value < min) {
      return "must be at least " + std::to_string(min) + ", not " + std::string(text);
    }
    options.*field = *value;
    return "";
  };
}

Setter optionalInteger(std::optional<int64_t> TrainOptions::*field) {
  return [field](TrainOptions& options, std::string_view text) -> std::string {
    const auto value = parseNumber<int64_t>(text);
    if (!value) {
      return quoted(text) + " is not an integer";
    }
    if (*value < 1) {
      return "must be at least 1, not " + std::string(text);
    }
    options.*field = *value;
    return "";
  };
}

/// A finite number above 0, or at least 0 when `zeroAllowed`.
Setter number(std::optional<double> TrainOptions::*field, bool zeroAllowed) {
  return [=](TrainOptions& options, std::string_view text) -> std::string {
    const auto value = parseNumber<double>(text);
    if (!value || !std::isfinite(*value)) {
      return quoted(text) + " is not a finite number";
    }
    if (zeroAllowed ? *value < 0 : *value <= 0) {
      return std::string("must be ") + (zeroAllowed ? "at least 0" : "above 0") + ", not " +
             std::string(text);
    }
    options.*field = *value;
    return "";
  };
}

Setter boolean(bool TrainOptions::*field) {
  return [field](TrainOptions& options, std::string_view text) -> std::string {
    if (text == "true") {
      options.*field = true;
    } else if (text == "false") {
      options.*field = false;
    } else {
      return quoted(text) + " is not true or false";
    }
    return "";
  };
}

/// One of the listed words, each mapped to a value.
template <typename T>
Setter choice(T TrainOptions::*field, std::vector<std::pair<std::string, T>> words) {
  return [field, words](TrainOptions& options, std::string_view text) -> std::string {
    std::string known;
    for (const auto& [word, value] : words) {
      if (text == word) {
        options.*field = value;
        return "";
      }
      known += (known.empty() ? "" : ", ") + word;
    }
    return quoted(text) + " is not one of " + known;
  };
}

/// The models' names in the descriptors' order, the last two joined by `last`.
std::string modelNames(std::string_view last) {
  const auto& all = models::allModels();
  std::string names;
  for (size_t i = 0; i < all.size(); ++i) {
    if (i > 0) {
      names += i + 1 < all.size() ? std::string(", ") : std::string(last);
    }
    names += all[i].name;
  }
  return names;
}

std::string setModel(TrainOptions& options, std::string_view text) {
  const std::optional<models::ModelKind> model = models::modelNamed(text);
  if (!model) {
    return quoted(text) + " is not one of " + modelNames(", ");
  }
  options.model = *model;
  return "";
}

std::string setSampleSize(TrainOptions& options, std::string_view text) {
  std::vector<int64_t> size;
  std::string_view rest = text;
  while (true) {
    const auto comma = rest.find(',');
    const auto side = parseNumber<int64_t>(rest.substr(0, comma));
    if (!side || *side < 1) {
      return quoted(text) + " is not one or two positive integers separated by a comma";
    }
    size.push_back(*side);
    if (comma == std::string_view::npos) {
      break;
    }
    rest.remove_prefix(comma + 1);
  }
  if (size.size() > 2) {
    return quoted(text) + " is not one or two positive integers separated by a comma";
  }
  options.sampleSize = size;
  return "";
}

std::string setSeed(TrainOptions& options, std::string_view text) {
  const auto value = parseNumber<uint64_t>(text);
  if (!value) {
    return quoted(text) + " is not an integer from 0 to 18446744073709551615";
  }
  options.seed = *value;
  return "";
}

std::string setProcsPerNode(TrainOptions& options, std::string_view text) {
  if (text == "auto") {
    options.procsPerNode.reset();
    return "";
  }
  constexpr int64_t kMostProcesses = 1024;
  const auto value = parseNumber<int64_t>(text);
  if (!value) {
    return quoted(text) + " is neither auto nor an integer";
  }
  if (*value < 1 || *value > kMostProcesses) {
    return "must be from 1 to " + std::to_string(kMostProcesses) + ", not " + std::string(text);
  }
  options.procsPerNode = *value;
  return "";
}

std::string setData(TrainOptions& options, std::string_view text) {
  if (text.empty()) {
    return "must be 'synthetic' or a dataset's directory, not empty";
  }
  options.data = text;
  return "";
}

std::string setProfile(TrainOptions& options, std::string_view text) {
  if (text.empty()) {
    return "must be a file's path, not empty";
  }
  options.profile = text;
  return "";
}

const std::vector<Flag>& flags() {
  static const std::vector<Flag> table = {
      {"model", "NAME", "the benchmark: " + modelNames(" or ") + " (required)", setModel},
      {"batch-size", "N", "global batch size, divided among the ranks",
       optionalInteger(&TrainOptions::batchSize)},
      {"batch-size-per-rank", "N", "batch size of each rank (instead of --batch-size)",
       optionalInteger(&TrainOptions::batchSizePerRank)},
      {"epochs", "N", "epochs to train, warm-up ones included (default 2)",
       integer(&TrainOptions::epochs, 1)},
      {"steps-per-epoch", "N",
       "steps per epoch; 0 (default) is a whole pass over the data, which synthetic data lacks",
       integer(&TrainOptions::stepsPerEpoch, 0)},
      {"warmup-epochs", "N", "first epochs reported as warm-up, not measured (default 1)",
       integer(&TrainOptions::warmupEpochs, 0)},
      {"data", "synthetic|PATH",
       "one random batch made once on the device (default), or a dataset's directory", setData},
      {"sample-size", "A[,B]", "reduced sample size (one side, or height and width)",
       setSampleSize},
      {"precision", "P", "fp32 (default), bf16 (autocast) or fp16 (autocast, loss scaling)",
       choice<Precision>(
           &TrainOptions::precision,
           {{"fp32", Precision::kFp32}, {"bf16", Precision::kBf16}, {"fp16", Precision::kFp16}})},
      {"channels-last", "", "NHWC / NDHWC layout for the model and its inputs",
       boolean(&TrainOptions::channelsLast)},
      {"cuda-graphs", "", "replay the forward and backward pass as a captured CUDA graph",
       boolean(&TrainOptions::cudaGraphs)},
      {"batch-norm", "K",
       "resnet50's batch norms: aten (default, LibTorch's, as PyTorch's eager mode) or cudnn "
       "(cuDNN's, with the ReLU and the residual sum fused in; CUDA, bf16 or fp16, channels-last)",
       choice<models::BatchNormKernels>(&TrainOptions::batchNorm,
                                        {{"aten", models::BatchNormKernels::kAten},
                                         {"cudnn", models::BatchNormKernels::kCudnn}})},
      {"loader-threads", "N", "threads that read and decode samples (default 4)",
       integer(&TrainOptions::loaderThreads, 1)},
      {"seed", "N", "seeds the weights, the synthetic batch and the data order (default 0)",
       setSeed},
      {"device", "D", "cuda, cpu or auto (default: cuda when available)",
       choice<DeviceChoice>(&TrainOptions::device, {{"auto", DeviceChoice::kAuto},
                                                    {"cpu", DeviceChoice::kCpu},
                                                    {"cuda", DeviceChoice::kCuda}})},
      {"eval", "", "an evaluation pass after each epoch", boolean(&TrainOptions::eval)},
      {"optimizer", "O", "sgd, adam or adamw (default: the reference's for the model)",
       choice<std::optional<OptimizerKind>>(&TrainOptions::optimizer,
                                            {{"sgd", OptimizerKind::kSgd},
                                             {"adam", OptimizerKind::kAdam},
                                             {"adamw", OptimizerKind::kAdamW}})},
      {"lr", "X", "learning rate (default: the reference's for the model and batch size)",
       number(&TrainOptions::lr, false)},
      {"momentum", "X", "SGD momentum (default 0.9)", number(&TrainOptions::momentum, true)},
      {"weight-decay", "X", "weight decay (default: the reference's for the model)",
       number(&TrainOptions::weightDecay, true)},
      {"zero-init-residual", "", "resnet50: start each residual branch's last BN scale at 0",
       boolean(&TrainOptions::zeroInitResidual)},
      {"mllog", "", "also print MLPerf :::MLLOG lines", boolean(&TrainOptions::mllog)},
      {"threads", "N", "intra-op CPU threads (default 0: LibTorch's choice)",
       integer(&TrainOptions::threads, 0)},
      {"procs-per-node", "N|auto",
       "ranks to start on this node when no launcher did (LOCAL_RANK unset); auto (default): "
       "one per visible GPU, one on the CPU",
       setProcsPerNode},
      {"profile", "PATH",
       "profile the last epoch (operators and CUDA kernels) into PATH, PATH.rankN with several "
       "ranks; that epoch's times include the profiler's overhead",
       setProfile},
  };
  return table;
}

/// The checks that involve more than one flag; "" when the options hang together.
std::string checkCombination(const TrainOptions& options) {
  if (options.batchSize.has_value() == options.batchSizePerRank.has_value()) {
    return "give exactly one of --batch-size and --batch-size-per-rank";
  }
  if (options.synthetic() && options.stepsPerEpoch == 0) {
    return "--steps-per-epoch must be above 0 with --data synthetic, which has no whole pass";
  }
  if (options.warmupEpochs >= options.epochs) {
    return "--warmup-epochs (" + std::to_string(options.warmupEpochs) +
           ") must be less than --epochs (" + std::to_string(options.epochs) +
           "), so that an epoch is measured";
  }
  if (options.zeroInitResidual && !models::descriptor(options.model).zeroInitResidual) {
    return "--zero-init-residual applies to resnet50 only";
  }
  if (options.momentum && options.momentum >= 1.0) {
    return "--momentum must be below 1";
  }
  if (options.momentum && resolveHyperparameters(options, 1).optimizer != OptimizerKind::kSgd) {
    return "--momentum applies to the sgd optimizer only";
  }
  if (options.batchNorm == models::BatchNormKernels::kCudnn) {
    if (options.model != models::ModelKind::kResnet50) {
      return "--batch-norm cudnn applies to resnet50 only";
    }
    if (!models::cudnnBatchNormBuilt()) {
      return "--batch-norm cudnn needs a build with cuDNN's headers and library, which this one "
             "lacks (see docs/workloads.md)";
    }
    if (options.device == DeviceChoice::kCpu || options.precision == Precision::kFp32 ||
        !options.channelsLast) {
      return "--batch-norm cudnn needs a CUDA device, --precision bf16 or fp16 and "
             "--channels-last";
    }
  }
  if (options.cudaGraphs && options.device == DeviceChoice::kCpu) {
    return "--cuda-graphs needs a CUDA device, not --device cpu";
  }
  return "";
}

}  // namespace

std::string_view toString(Precision precision) {
  switch (precision) {
    case Precision::kFp32:
      return "fp32";
    case Precision::kBf16:
      return "bf16";
    case Precision::kFp16:
      return "fp16";
  }
  return "?";
}

std::string_view toString(OptimizerKind kind) {
  switch (kind) {
    case OptimizerKind::kSgd:
      return "sgd";
    case OptimizerKind::kAdam:
      return "adam";
    case OptimizerKind::kAdamW:
      return "adamw";
  }
  return "?";
}

ParsedArgs parseTrainArgs(const std::vector<std::string>& args) {
  ParsedArgs result;
  TrainOptions options;
  std::set<std::string, std::less<>> seen;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string_view arg = args[i];
    if (arg == "--help" || arg == "-h") {
      result.help = true;
      return result;
    }
    if (arg.size() < 3 || arg.substr(0, 2) != "--") {
      result.error = "unexpected argument " + quoted(arg) + " (flags start with --)";
      return result;
    }
    const auto equals = arg.find('=');
    const std::string_view name =
        arg.substr(2, equals == std::string_view::npos ? arg.npos : equals - 2);
    const Flag* flag = nullptr;
    for (const Flag& candidate : flags()) {
      if (candidate.name == name) {
        flag = &candidate;
      }
    }
    if (flag == nullptr) {
      result.error = "unknown flag --" + std::string(name);
      return result;
    }
    if (!seen.insert(flag->name).second) {
      result.error = "flag --" + flag->name + " is given twice";
      return result;
    }
    std::string_view value;
    if (equals != std::string_view::npos) {
      value = arg.substr(equals + 1);
    } else if (flag->valueName.empty()) {
      value = "true";
    } else if (i + 1 < args.size()) {
      value = args[++i];
    } else {
      result.error = "flag --" + flag->name + " needs a value (" + flag->valueName + ")";
      return result;
    }
    if (const std::string why = flag->set(options, value); !why.empty()) {
      result.error = "flag --" + flag->name + ": " + why;
      return result;
    }
  }
  if (!seen.contains("model")) {
    result.error = "--model is required (" + modelNames(" or ") + ")";
    return result;
  }
  if (std::string why = checkCombination(options); !why.empty()) {
    result.error = std::move(why);
    return result;
  }
  result.options = std::move(options);
  return result;
}

std::string trainUsage() {
  std::ostringstream text;
  text << "Usage: hetbench-train --model NAME (--batch-size N | --batch-size-per-rank N) "
          "[flags]\n\n"
          "Trains an MLPerf model and prints its per-epoch throughput as :::HETBENCH JSON lines\n"
          "on stdout (docs/metrics.md); progress goes to stderr.\n\nFlags:\n";
  for (const Flag& flag : flags()) {
    std::string left = "  --" + flag.name + (flag.valueName.empty() ? "" : " " + flag.valueName);
    left.resize(std::max<size_t>(left.size() + 2, 30), ' ');
    text << left << flag.help << "\n";
  }
  text << "  --help                      this text\n";
  return text.str();
}

BatchSizes resolveBatchSizes(const TrainOptions& options, int64_t worldSize) {
  if (worldSize < 1) {
    throw std::invalid_argument("the world size must be at least 1, not " +
                                std::to_string(worldSize));
  }
  if (options.batchSizePerRank) {
    return {*options.batchSizePerRank * worldSize, *options.batchSizePerRank};
  }
  const int64_t global = options.batchSize.value_or(0);
  if (global % worldSize != 0) {
    throw std::invalid_argument("--batch-size " + std::to_string(global) +
                                " does not divide among " + std::to_string(worldSize) + " ranks");
  }
  return {global, global / worldSize};
}

Hyperparameters resolveHyperparameters(const TrainOptions& options, int64_t globalBatchSize) {
  const models::ReferenceOptimizer& reference = models::descriptor(options.model).optimizer;
  Hyperparameters h;
  h.optimizer = reference.kind;
  h.lr = reference.lr;
  if (reference.lrBatch > 0) {
    h.lr = reference.lr * static_cast<double>(globalBatchSize) /
           static_cast<double>(reference.lrBatch);
  }
  h.momentum = reference.momentum;
  h.weightDecay = reference.weightDecay;
  h.eps = reference.eps;
  if (options.optimizer) {
    if (*options.optimizer != OptimizerKind::kSgd) {
      h.momentum = 0;
    } else if (h.optimizer != OptimizerKind::kSgd) {
      h.momentum = 0.9;
    }
    h.optimizer = *options.optimizer;
  }
  h.lr = options.lr.value_or(h.lr);
  h.momentum = options.momentum.value_or(h.momentum);
  h.weightDecay = options.weightDecay.value_or(h.weightDecay);
  return h;
}

}  // namespace hetbench::train
