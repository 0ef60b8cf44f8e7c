// hetbench's own metrics lines: `:::HETBENCH {"v":1,"event":...}` (docs/metrics.md).

#include <cstdint>
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

struct Where {
  std::string source;
  std::int64_t line = 0;
};

class HetbenchParser final : public LogParser {
 public:
  void consume(std::string_view source, std::string_view line) override {
    const std::int64_t number = lines_.next(source);
    const std::optional<internal::MarkedJson> marked =
        internal::findMarkedJson(internal::logText(line), kHetbenchMarker);
    if (!marked) return;
    std::string error = marked->error.empty()
                            ? readEvent(marked->object, {std::string(source), number})
                            : marked->error;
    if (!error.empty()) errors_.add(source, number, std::move(error));
  }

  ParsedLog result() const override {
    ParsedLog out;
    internal::ErrorList errors = errors_;
    out.run = run_;
    out.worldSize = worldSize_;
    out.epochs.reserve(epochs_.size());
    for (const auto& [sample, where] : epochs_) {
      if (worldSize_ && sample.rank >= *worldSize_) {
        errors.add(where.source, where.line, rankBeyond(sample.rank, *worldSize_));
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
  std::string readEvent(const nlohmann::json& object, const Where& where) {
    EventFields fields(object);
    const std::int64_t version = fields.integer("v", 0);
    if (fields.ok() && version != kVersion) {
      return "unsupported version " + std::to_string(version) + ": this hetbench reads version " +
             std::to_string(kVersion);
    }
    const std::string event = fields.string("event");
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

  std::string epoch(EventFields& fields, const Where& where) {
    EpochSample sample;
    sample.epoch = fields.integer("epoch", 0);
    sample.rank = fields.integer("rank", 0);
    sample.samples = static_cast<double>(fields.integer("samples", 0));
    sample.wallSeconds = fields.number("wall_seconds", 0, true);
    sample.ioSeconds = fields.number("io_seconds", 0);
    sample.computeSeconds = fields.number("compute_seconds", 0);
    sample.energyJoules = fields.optionalNumber("energy_joules", 0);
    sample.warmup = fields.optionalBoolean("warmup").value_or(false);
    if (!fields.ok()) return fields.error();
    if (!reported_.emplace(sample.rank, sample.epoch).second) {
      return "rank " + std::to_string(sample.rank) + " logged epoch " +
             std::to_string(sample.epoch) + " twice";
    }
    epochs_.emplace_back(sample, where);
    return {};
  }

  std::string runEnd(EventFields& fields) {
    const std::int64_t rank = fields.integer("rank", 0);
    const std::string status = fields.string("status");
    const std::string message = fields.optionalString("message").value_or(std::string());
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
  internal::ErrorList errors_;
  std::optional<RunInfo> run_;
  std::optional<std::int64_t> worldSize_;
  std::set<std::int64_t> started_;
  std::set<std::int64_t> ended_;
  std::set<std::pair<std::int64_t, std::int64_t>> reported_;  // (rank, epoch)
  std::vector<std::pair<EpochSample, Where>> epochs_;
};

}  // namespace

std::unique_ptr<LogParser> makeHetbenchParser() { return std::make_unique<HetbenchParser>(); }

}  // namespace hetbench::results
