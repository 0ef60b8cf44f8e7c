// MLPerf logging (mlperf_logging's mllog): `:::MLLOG {"key": ..., "value": ..., "time_ms": ...,
// "metadata": {...}}`. The loggers write global figures once (rank 0), so every epoch is
// rank 0 of a world of one. docs/metrics.md lists the keys read here and how.

#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "event_fields.h"
#include "hetbench/results/parser.h"
#include "log_text.h"

namespace hetbench::results {
namespace {

using internal::EventFields;

struct OpenEpoch {
  std::int64_t epoch = 0;
  double startMs = 0;
};

struct ClosedEpoch {
  std::int64_t epoch = 0;
  double wallSeconds = 0;
  std::string source;
  std::int64_t line = 0;
};

struct Throughput {
  double sum = 0;
  std::int64_t count = 0;
};

class MlperfParser final : public LogParser {
 public:
  void consume(std::string_view source, std::string_view line) override {
    const std::int64_t number = lines_.next(source).line;
    std::optional<std::string> error = json_.read(internal::logText(line));
    if (!error) return;
    if (error->empty()) *error = readEvent(json_.object(), source, number);
    if (!error->empty()) errors_.add(source, number, std::move(*error));
  }

  ParsedLog result() const override {
    ParsedLog out;
    internal::ErrorList errors = errors_;
    out.worldSize = 1;
    for (const ClosedEpoch& closed : closed_) {
      const std::optional<double> samples = epochSamples(closed);
      if (!samples) {
        errors.add(closed.source, closed.line,
                   "epoch " + std::to_string(closed.epoch) +
                       " has no sample count: log train_samples, or tracked_stats with "
                       "value.throughput");
        continue;
      }
      if (!std::isfinite(*samples)) {
        errors.add(closed.source, closed.line,
                   "epoch " + std::to_string(closed.epoch) +
                       ": its tracked throughput times its wall time is beyond the range of a "
                       "double");
        continue;
      }
      EpochSample sample;
      sample.epoch = closed.epoch;
      sample.samples = *samples;
      sample.wallSeconds = closed.wallSeconds;
      out.epochs.push_back(sample);
    }
    if (runStartMs_ && runStopMs_ && runSucceeded_ && *runStopMs_ > *runStartMs_) {
      out.scalars[std::string(kTimeToTrainSeconds)] = (*runStopMs_ - *runStartMs_) / 1000;
    }
    std::move(errors).moveInto(out);
    return out;
  }

 private:
  // Whole global batches of train_samples (the reference loaders drop a last partial batch);
  // else the epoch's mean tracked throughput over its wall time.
  std::optional<double> epochSamples(const ClosedEpoch& closed) const {
    if (trainSamples_) {
      const std::int64_t batch = globalBatchSize_.value_or(1);
      return static_cast<double>(*trainSamples_ / batch * batch);
    }
    const auto it = throughput_.find(closed.epoch);
    if (it == throughput_.end()) return std::nullopt;
    return it->second.sum / static_cast<double>(it->second.count) * closed.wallSeconds;
  }

  // The line's error, or "" when it was taken (or is of a key not read).
  std::string readEvent(internal::FlatObject object, std::string_view source, std::int64_t line) {
    EventFields fields(object);
    const std::string_view key = fields.string("key");
    const double timeMs = fields.number("time_ms", 0);
    EventFields metadata = fields.child("metadata", false);
    if (!fields.ok()) return fields.error();
    if (key == "global_batch_size") return setOnce(globalBatchSize_, fields, key);
    if (key == "train_samples") return setOnce(trainSamples_, fields, key);
    if (key == "epoch_start") return epochStart(metadata, source, timeMs);
    if (key == "epoch_stop") return epochStop(metadata, source, line, timeMs);
    if (key == "tracked_stats") return trackedStats(fields, metadata, source);
    if (key == "run_start") return runStart(timeMs);
    if (key == "run_stop") return runStop(metadata, timeMs);
    return {};
  }

  // An integer `value` that must not change once logged.
  static std::string setOnce(std::optional<std::int64_t>& slot, EventFields& fields,
                             std::string_view key) {
    const std::int64_t value = fields.integer("value", 1);
    if (!fields.ok()) return fields.error();
    if (slot && *slot != value) {
      return std::string(key) + " " + std::to_string(value) + " differs from " +
             std::to_string(*slot) + " logged before";
    }
    slot = value;
    return {};
  }

  std::string epochStart(EventFields& metadata, std::string_view source, double timeMs) {
    const std::int64_t epoch = metadata.integer("epoch_num", 0);
    if (!metadata.ok()) return metadata.error();
    auto it = open_.find(source);
    if (it != open_.end()) {
      return "epoch_start of epoch " + std::to_string(epoch) + " while epoch " +
             std::to_string(it->second.epoch) + " is open";
    }
    if (done_.count(epoch) > 0) return "epoch " + std::to_string(epoch) + " started again";
    open_.emplace(std::string(source), OpenEpoch{epoch, timeMs});
    return {};
  }

  std::string epochStop(EventFields& metadata, std::string_view source, std::int64_t line,
                        double timeMs) {
    const std::int64_t epoch = metadata.integer("epoch_num", 0);
    if (!metadata.ok()) return metadata.error();
    auto it = open_.find(source);
    if (it == open_.end() || it->second.epoch != epoch) {
      return "epoch_stop of epoch " + std::to_string(epoch) + " without its epoch_start";
    }
    const double wallSeconds = (timeMs - it->second.startMs) / 1000;
    open_.erase(it);
    if (done_.count(epoch) > 0) {
      return "epoch " + std::to_string(epoch) + " stopped twice (more than one source logs it)";
    }
    if (wallSeconds <= 0) {
      return "epoch " + std::to_string(epoch) + " stops no later than it starts";
    }
    done_.insert(epoch);
    closed_.push_back({epoch, wallSeconds, std::string(source), line});
    return {};
  }

  // value.throughput counts towards metadata.epoch_num, else towards the source's open epoch;
  // other tracked statistics, and throughput outside any epoch, are not metrics of an epoch.
  std::string trackedStats(EventFields& fields, EventFields& metadata, std::string_view source) {
    EventFields value = fields.child("value", true);
    const std::optional<double> throughput = value.optionalNumber("throughput", 0);
    std::optional<std::int64_t> epoch = metadata.optionalInteger("epoch_num", 0);
    if (!fields.ok()) return fields.error();
    if (!metadata.ok()) return metadata.error();
    if (!throughput) return {};
    if (!epoch) {
      const auto it = open_.find(source);
      if (it == open_.end()) return {};
      epoch = it->second.epoch;
    }
    Throughput& sum = throughput_[*epoch];
    sum.sum += *throughput;
    ++sum.count;
    return {};
  }

  std::string runStart(double timeMs) {
    if (runStartMs_) return "run_start logged twice";
    runStartMs_ = timeMs;
    return {};
  }

  std::string runStop(EventFields& metadata, double timeMs) {
    const std::optional<std::string_view> status = metadata.optionalString("status");
    if (!metadata.ok()) return metadata.error();
    if (runStopMs_) return "run_stop logged twice";
    runStopMs_ = timeMs;
    runSucceeded_ = status == "success";
    return {};
  }

  internal::LineCounter lines_;
  internal::MarkedJsonReader json_{kMllogMarker};
  internal::ErrorList errors_;
  std::optional<std::int64_t> globalBatchSize_;
  std::optional<std::int64_t> trainSamples_;
  std::map<std::string, OpenEpoch, std::less<>> open_;  // by source
  std::set<std::int64_t> done_;
  std::vector<ClosedEpoch> closed_;
  std::map<std::int64_t, Throughput> throughput_;  // by epoch
  std::optional<double> runStartMs_;
  std::optional<double> runStopMs_;
  bool runSucceeded_ = false;
};

}  // namespace

std::unique_ptr<LogParser> makeMlperfParser() { return std::make_unique<MlperfParser>(); }

}  // namespace hetbench::results
