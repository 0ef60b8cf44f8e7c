// hetbench's own metrics lines: `:::HETBENCH {"v":1,"event":...}` (docs/metrics.md).

#include <cstdint>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "event_fields.h"
#include "hetbench/common/field_errors.h"
#include "hetbench/results/parser.h"
#include "log_text.h"

namespace hetbench::results {
namespace {

using internal::EventFields;

constexpr std::int64_t kVersion = 1;

// The (rank, epoch) pairs seen, as runs of consecutive epochs per rank: (rank, first epoch) to
// the last. A rank's epochs usually come in order, so that a log of any length keeps about one
// run per rank and a new epoch extends its run without allocating; any order stays O(log n).
class EpochsSeen {
 public:
  // False when (rank, epoch) was seen before.
  bool insert(std::int64_t rank, std::int64_t epoch) {
    constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
    auto next = runs_.upper_bound({rank, epoch});
    const bool nextAdjoins = next != runs_.end() && next->first.first == rank && epoch < kMax &&
                             next->first.second == epoch + 1;
    if (next != runs_.begin()) {
      const auto previous = std::prev(next);
      if (previous->first.first == rank && epoch <= previous->second) return false;
      if (previous->first.first == rank && previous->second == epoch - 1) {
        previous->second = nextAdjoins ? next->second : epoch;
        if (nextAdjoins) runs_.erase(next);
        return true;
      }
    }
    if (nextAdjoins) {
      auto node = runs_.extract(next);
      node.key().second = epoch;
      runs_.insert(std::move(node));
      return true;
    }
    runs_.emplace(std::pair(rank, epoch), epoch);
    return true;
  }

 private:
  std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t> runs_;
};

class HetbenchParser final : public LogParser {
 public:
  void consume(std::string_view source, std::string_view line) override {
    const internal::LineNumber where = lines_.next(source);
    std::optional<std::string> error = json_.read(internal::logText(line));
    if (!error) return;
    if (error->empty()) *error = readEvent(json_.object(), where);
    if (!error->empty()) errors_.add(source, where.line, std::move(*error));
  }

  ParsedLog result() const override {
    ParsedLog out;
    internal::ErrorList errors = errors_;
    out.run = run_;
    out.worldSize = worldSize_;
    out.epochs.reserve(epochs_.size());
    for (const auto& [sample, where] : epochs_) {
      if (worldSize_ && sample.rank >= *worldSize_) {
        errors.add(lines_.source(where.source), where.line, rankBeyond(sample.rank, *worldSize_));
      }
      out.epochs.push_back(sample);
    }
    if (!epochs_.empty() && !worldSize_) {
      errors.add({}, 0, "epochs without a run_start event: the world size is unknown");
    }
    std::move(errors).moveInto(out);
    return out;
  }

 private:
  static std::string rankBeyond(std::int64_t rank, std::int64_t worldSize) {
    return "rank " + std::to_string(rank) + " is not below world_size " + std::to_string(worldSize);
  }

  // The line's error, or "" when the event was taken.
  std::string readEvent(internal::FlatObject object, const internal::LineNumber& where) {
    EventFields fields(object);
    const std::int64_t version = fields.integer("v", 0);
    if (fields.ok() && version != kVersion) {
      return "unsupported version " + std::to_string(version) + ": this hetbench reads version " +
             std::to_string(kVersion);
    }
    const std::string_view event = fields.string("event");
    if (!fields.ok()) return fields.error();
    if (event == "run_start") return runStart(fields);
    if (event == "epoch") return epoch(fields, where);
    if (event == "run_end") return runEnd(fields);
    return "unknown event " + common::quote(event) + ": version 1 has run_start, epoch and run_end";
  }

  std::string runStart(EventFields& fields) {
    RunInfo run;
    run.benchmark = fields.string("benchmark");
    run.model = fields.string("model");
    run.worldSize = fields.integer("world_size", 1);
    const std::int64_t rank = fields.integer("rank", 0);
    run.globalBatchSize = fields.integer("global_batch_size", 1);
    run.precision = fields.string("precision");
    run.device = fields.string("device");
    EventFields accelerator = fields.child("accelerator", true);
    run.acceleratorName = accelerator.string("name");
    run.acceleratorCount = accelerator.integer("count", 0);
    if (!fields.ok()) return fields.error();
    if (rank >= run.worldSize) return rankBeyond(rank, run.worldSize);
    if (worldSize_ && *worldSize_ != run.worldSize) {
      return "world_size " + std::to_string(run.worldSize) + " differs from " +
             std::to_string(*worldSize_) + " in an earlier run_start";
    }
    if (!started_.insert(rank).second) {
      return "rank " + std::to_string(rank) + " logged run_start twice";
    }
    worldSize_ = run.worldSize;
    if (!run_) run_ = std::move(run);
    return {};
  }

  std::string epoch(EventFields& fields, const internal::LineNumber& where) {
    EpochSample sample;
    sample.epoch = fields.integer("epoch", 0);
    sample.rank = fields.integer("rank", 0);
    sample.samples = static_cast<double>(fields.integer("samples", 0));
    sample.wallSeconds = fields.number("wall_seconds", 0, true);
    sample.ioSeconds = fields.number("io_seconds", 0);
    sample.computeSeconds = fields.number("compute_seconds", 0);
    sample.energyJoules = fields.optionalNumber("energy_joules", 0);
    sample.warmup = fields.optionalBoolean("warmup").value_or(false);
    fields.forEachObject("gpus", [&sample](EventFields& gpu) {
      GpuEpoch read;
      read.device = std::string(gpu.string("device"));
      EventFields throttled = gpu.child("throttled", false);
      read.powerCapShare = throttled.optionalShare("power_cap");
      read.thermalShare = throttled.optionalShare("thermal");
      read.hardwareShare = throttled.optionalShare("hardware");
      read.powerLimitWatts = gpu.optionalNumber("power_limit_w", 0);
      read.defaultPowerLimitWatts = gpu.optionalNumber("default_power_limit_w", 0);
      read.eccUncorrected = gpu.child("ecc_errors", false).optionalInteger("uncorrected", 0);
      read.xids = gpu.integers("xids", 0);
      sample.gpus.push_back(std::move(read));
    });
    if (!fields.ok()) return fields.error();
    if (!reported_.insert(sample.rank, sample.epoch)) {
      return "rank " + std::to_string(sample.rank) + " logged epoch " +
             std::to_string(sample.epoch) + " twice";
    }
    epochs_.emplace_back(sample, where);
    return {};
  }

  std::string runEnd(EventFields& fields) {
    const std::int64_t rank = fields.integer("rank", 0);
    const std::string_view status = fields.string("status");
    const std::string_view message = fields.optionalString("message").value_or("");
    if (!fields.ok()) return fields.error();
    if (status != "ok" && status != "error") {
      return "field \"status\" must be \"ok\" or \"error\", not " + common::quote(status);
    }
    if (!ended_.insert(rank).second) {
      return "rank " + std::to_string(rank) + " logged run_end twice";
    }
    if (status == "error") {
      return "rank " + std::to_string(rank) + " ended with an error" +
             (message.empty() ? std::string() : ": " + common::quote(message));
    }
    return {};
  }

  internal::LineCounter lines_;
  internal::MarkedJsonReader json_{kHetbenchMarker};
  internal::ErrorList errors_;
  std::optional<RunInfo> run_;
  std::optional<std::int64_t> worldSize_;
  std::set<std::int64_t> started_;
  std::set<std::int64_t> ended_;
  EpochsSeen reported_;
  std::vector<std::pair<EpochSample, internal::LineNumber>> epochs_;
};

}  // namespace

std::unique_ptr<LogParser> makeHetbenchParser() { return std::make_unique<HetbenchParser>(); }

}  // namespace hetbench::results
