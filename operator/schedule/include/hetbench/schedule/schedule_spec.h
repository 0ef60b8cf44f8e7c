#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "hetbench/benchmark/system.h"
#include "hetbench/common/status.h"
#include "hetbench/schedule/cron.h"

namespace hetbench::schedule {

/// What a schedule does when a slot comes while a run it created is still going, as CronJob's
/// concurrencyPolicy: Allow starts another, Forbid skips the slot, Replace deletes the running
/// run and starts the new one.
enum class ConcurrencyPolicy { kAllow, kForbid, kReplace };

/// "Allow", "Forbid", "Replace".
std::string toString(ConcurrencyPolicy policy);

/// Schedule names are at most this long, so that a run name (the schedule's, a dash and the
/// slot's minutes since the epoch) stays within the 63 characters a label value allows.
inline constexpr std::size_t kMaxScheduleNameLength = 52;

/// The spec of a BenchmarkSchedule.
struct ScheduleSpec {
  std::string schedule;  // as written
  CronSchedule cron;
  TimeZone timeZone;
  ConcurrencyPolicy concurrencyPolicy = ConcurrencyPolicy::kAllow;
  std::optional<std::chrono::seconds> startingDeadline;
  bool suspend = false;
  std::int64_t successfulRunsHistoryLimit = 3;
  std::int64_t failedRunsHistoryLimit = 1;
  /// runTemplate.metadata's labels and annotations (objects of strings), and its spec: a
  /// BenchmarkRun spec that parseRunSpec accepts.
  nlohmann::json runLabels = nlohmann::json::object();
  nlohmann::json runAnnotations = nlohmann::json::object();
  nlohmann::json runSpec;
};

/// Parses and validates a BenchmarkSchedule's spec: the schedule (parseCron's errors), the time
/// zone, the policy, the deadline and history limits (at least 0), and the run template, whose
/// spec must be a valid BenchmarkRun spec (its errors named under `spec.runTemplate.spec`).
/// Errors are Invalid, one cause per problem worded as the API server words field errors
/// (`spec.schedule: Invalid value: "61 * * * *": minute: 61 is above the maximum 59`). Never
/// throws.
/// The template is placed on the BenchmarkSystem its spec.system names, if `systems` knows one
/// (benchmark::placeOnSystem), as the run controller places each run, before it is validated.
using SystemLookup = std::function<std::optional<benchmark::SystemSpec>(const std::string& name)>;
common::Result<ScheduleSpec> parseScheduleSpec(const nlohmann::json& spec,
                                               const SystemLookup& systems = {});

}  // namespace hetbench::schedule
