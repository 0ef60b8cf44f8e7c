#include "hetbench/train/report.h"

#include <chrono>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace hetbench::train {
namespace {

using Json = nlohmann::ordered_json;

/// Invalid UTF-8 (a message quoting a file name, say) is replaced rather than thrown on.
std::string dump(const Json& json) {
  return json.dump(-1, ' ', false, Json::error_handler_t::replace);
}

/// One GPU's epoch as the epoch event's "gpus" entry (docs/hetbench-jsonl.schema.json): only
/// what the GPU reported.
Json toJson(const energy::DeviceWindow& device) {
  // Rounded to what the readings resolve: a clock to 0.1 MHz, a share to 0.01%.
  const auto rounded = [](double value, double step) { return std::round(value / step) * step; };
  Json gpu = {{"device", device.device}, {"samples", device.samples}};
  if (device.smClockMeanMhz) {
    gpu["sm_clock_mhz"] = {{"mean", rounded(*device.smClockMeanMhz, 0.1)},
                           {"min", *device.smClockMinMhz}};
  }
  if (device.smClockMaxMhz) gpu["sm_clock_max_mhz"] = *device.smClockMaxMhz;
  if (device.throttled) {
    gpu["throttled"] = {{"power_cap", rounded(device.throttled->powerCap, 1e-4)},
                        {"thermal", rounded(device.throttled->thermal, 1e-4)},
                        {"hardware", rounded(device.throttled->hardware, 1e-4)}};
  }
  if (device.temperatureMaxC) gpu["temperature_max_c"] = *device.temperatureMaxC;
  if (device.powerLimitWatts) {
    gpu["power_limit_w"] = *device.powerLimitWatts;
    gpu["default_power_limit_w"] = *device.defaultPowerLimitWatts;
  }
  if (device.eccCorrected) {
    gpu["ecc_errors"] = {{"corrected", *device.eccCorrected},
                         {"uncorrected", *device.eccUncorrected}};
  }
  if (device.xids) gpu["xids"] = *device.xids;
  if (!device.error.empty()) gpu["error"] = device.error;
  return gpu;
}

std::string epochMetadata(int64_t epoch) {
  // MLPerf's references count epochs from 1.
  return dump(Json{{"epoch_num", epoch + 1}});
}

}  // namespace

bool reachesTarget(models::ModelKind benchmark, const EvalTotals& eval) {
  if (eval.samples <= 0) {
    return false;
  }
  const models::EvalMetric& metric = models::descriptor(benchmark).metric;
  const double mean = eval.metricSum / static_cast<double>(eval.samples);
  return metric.lowerIsBetter ? mean <= metric.target : mean >= metric.target;
}

std::string cpuModelName(std::string_view procCpuinfo) {
  std::string_view rest = procCpuinfo;
  while (!rest.empty()) {
    const auto end = rest.find('\n');
    std::string_view line = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) {
      continue;
    }
    std::string_view key = line.substr(0, colon);
    while (!key.empty() && (key.back() == ' ' || key.back() == '\t')) {
      key.remove_suffix(1);
    }
    if (key != "model name") {
      continue;
    }
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && value.front() == ' ') {
      value.remove_prefix(1);
    }
    while (!value.empty() && (value.back() == ' ' || value.back() == '\r')) {
      value.remove_suffix(1);
    }
    if (!value.empty()) {
      return std::string(value);
    }
  }
  return "unknown CPU";
}

std::string thisCpuModelName() {
  std::ifstream file("/proc/cpuinfo");
  std::stringstream text;
  text << file.rdbuf();
  return cpuModelName(text.str());
}

Reporter::WallClock systemWallClock() {
  return [] {
    return std::chrono::duration<double, std::milli>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  };
}

Reporter::Reporter(std::ostream& out, int64_t rank, bool mllog, WallClock wallClock)
    : out_(out), rank_(rank), mllog_(mllog && rank == 0), wallClock_(std::move(wallClock)) {}

void Reporter::mllog(std::string_view key, std::string_view eventType, const std::string& valueJson,
                     const std::string& metadataJson) {
  if (!mllog_) {
    return;
  }
  // Time with microseconds: epochs of a small run may be shorter than a millisecond.
  const double timeMs = std::round(wallClock_() * 1000) / 1000;
  out_ << ":::MLLOG {\"namespace\": \"\", \"time_ms\": " << dump(Json(timeMs))
       << ", \"event_type\": \"" << eventType << "\", \"key\": \"" << key
       << "\", \"value\": " << valueJson << ", \"metadata\": " << metadataJson << "}" << std::endl;
}

void Reporter::runStart(const RunDescription& run) {
  benchmark_ = run.benchmark;
  const models::ModelDescriptor& benchmark = models::descriptor(run.benchmark);
  const Json event = {
      {"v", 1},
      {"event", "run_start"},
      {"benchmark", benchmark.name},
      {"model", benchmark.modelName},
      {"world_size", run.worldSize},
      {"rank", run.rank},
      {"global_batch_size", run.globalBatchSize},
      {"precision", run.precision},
      {"device", run.device},
      {"accelerator", {{"name", run.acceleratorName}, {"count", run.acceleratorCount}}},
      {"sample_shape", run.sampleShape},
      {"data", run.data},
      {"steps_per_epoch", run.stepsPerEpoch},
      {"optimizer", run.optimizer},
      {"lr", run.lr},
      {"channels_last", run.channelsLast},
      {"cuda_graphs", run.cudaGraphs},
      {"batch_norm", models::toString(run.batchNorm)},
      {"seed", run.seed},
  };
  out_ << ":::HETBENCH " << dump(event) << std::endl;
  const std::string none = "null";
  const std::string noMetadata = "{}";
  mllog("submission_benchmark", "POINT_IN_TIME", dump(Json(benchmark.name)), noMetadata);
  mllog("global_batch_size", "POINT_IN_TIME", dump(Json(run.globalBatchSize)), noMetadata);
  mllog("opt_name", "POINT_IN_TIME", dump(Json(run.optimizer)), noMetadata);
  mllog("opt_base_learning_rate", "POINT_IN_TIME", dump(Json(run.lr)), noMetadata);
  mllog("seed", "POINT_IN_TIME", dump(Json(run.seed)), noMetadata);
  mllog("run_start", "INTERVAL_START", none, noMetadata);
}

void Reporter::epochStart(int64_t epoch) {
  mllog("epoch_start", "INTERVAL_START", "null", epochMetadata(epoch));
}

void Reporter::epochStop(int64_t epoch) {
  mllog("epoch_stop", "INTERVAL_END", "null", epochMetadata(epoch));
}

void Reporter::evalStart(int64_t epoch) {
  mllog("eval_start", "INTERVAL_START", "null", epochMetadata(epoch));
}

void Reporter::evalStop(int64_t epoch) {
  mllog("eval_stop", "INTERVAL_END", "null", epochMetadata(epoch));
}

void Reporter::epoch(const EpochFigures& mine, const EpochFigures& all) {
  Json event = {
      {"v", 1},
      {"event", "epoch"},
      {"epoch", mine.epoch},
      {"rank", rank_},
      {"samples", mine.samples},
      {"wall_seconds", mine.wallSeconds},
      {"io_seconds", mine.ioSeconds},
      {"compute_seconds", mine.computeSeconds},
  };
  if (mine.energyJoules) {
    event["energy_joules"] = *mine.energyJoules;
  }
  if (!mine.devices.empty()) {
    Json gpus = Json::array();
    for (const energy::DeviceWindow& device : mine.devices) gpus.push_back(toJson(device));
    event["gpus"] = std::move(gpus);
  }
  event["warmup"] = mine.warmup;
  if (mine.profiled) {
    event["profiled"] = true;
  }
  event["steps"] = mine.steps;
  if (mine.steps > 0) {
    event["train_loss"] = mine.lossSum / static_cast<double>(mine.steps);
  }
  if (all.eval && all.eval->samples > 0) {
    const auto samples = static_cast<double>(all.eval->samples);
    event["eval_samples"] = all.eval->samples;
    event["eval_seconds"] = all.eval->seconds;
    event["eval_loss"] = all.eval->lossSum / samples;
    event[models::descriptor(benchmark_).metric.eventField] = all.eval->metricSum / samples;
  }
  out_ << ":::HETBENCH " << dump(event) << std::endl;

  if (all.wallSeconds > 0) {
    const double throughput = static_cast<double>(all.samples) / all.wallSeconds;
    mllog("tracked_stats", "POINT_IN_TIME", dump(Json{{"throughput", throughput}}),
          dump(Json{{"epoch_num", all.epoch + 1}, {"step", mine.steps}}));
  }
  if (all.eval && all.eval->samples > 0) {
    const double metric = all.eval->metricSum / static_cast<double>(all.eval->samples);
    mllog(models::descriptor(benchmark_).metric.mllogKey, "POINT_IN_TIME", dump(Json(metric)),
          epochMetadata(all.epoch));
  }
}

void Reporter::runEnd(bool targetReached) {
  out_ << ":::HETBENCH "
       << dump(Json{{"v", 1}, {"event", "run_end"}, {"rank", rank_}, {"status", "ok"}})
       << std::endl;
  mllog("run_stop", "INTERVAL_END", "null",
        dump(Json{{"status", targetReached ? "success" : "aborted"}}));
}

void Reporter::runFailed(std::string_view message) {
  out_ << ":::HETBENCH "
       << dump(Json{{"v", 1},
                    {"event", "run_end"},
                    {"rank", rank_},
                    {"status", "error"},
                    {"message", std::string(message)}})
       << std::endl;
  mllog("run_stop", "INTERVAL_END", "null", dump(Json{{"status", "aborted"}}));
}

}  // namespace hetbench::train
