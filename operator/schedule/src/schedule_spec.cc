#include "hetbench/schedule/schedule_spec.h"

#include "hetbench/benchmark/validate.h"
#include "hetbench/common/spec_reader.h"

namespace hetbench::schedule {
namespace {

using common::StatusCause;
using nlohmann::json;

constexpr ConcurrencyPolicy kPolicies[] = {ConcurrencyPolicy::kAllow, ConcurrencyPolicy::kForbid,
                                           ConcurrencyPolicy::kReplace};

const json* member(const json& object, const char* key) {
  return common::presentMember(object, key);
}

/// An object whose values are strings (labels, annotations).
void readStrings(common::SpecReader& r, const std::string& field, const json& v, json& out) {
  const json* object = r.object(field, v);
  if (object == nullptr) return;
  for (const auto& [key, value] : object->items()) {
    if (r.string(field + "." + key, value)) out[key] = value;
  }
}

/// The uid of the run a template's dry run renders, for the names and labels that derive from it.
constexpr const char* kDryRunUid = "00000000-0000-0000-0000-000000000000";

void readRunTemplate(common::SpecReader& r, const json& spec, const SystemLookup& systems,
                     ScheduleSpec& out) {
  const json* templ = member(spec, "runTemplate");
  if (templ == nullptr) {
    r.add(common::requiredCause("spec.runTemplate"));
    return;
  }
  if (r.object("spec.runTemplate", *templ) == nullptr) return;
  if (const json* metadata = member(*templ, "metadata");
      metadata != nullptr && r.object("spec.runTemplate.metadata", *metadata) != nullptr) {
    if (const json* labels = member(*metadata, "labels"))
      readStrings(r, "spec.runTemplate.metadata.labels", *labels, out.runLabels);
    if (const json* annotations = member(*metadata, "annotations"))
      readStrings(r, "spec.runTemplate.metadata.annotations", *annotations, out.runAnnotations);
  }
  const json* runSpec = member(*templ, "spec");
  if (runSpec == nullptr) {
    r.add(common::requiredCause("spec.runTemplate.spec"));
    return;
  }
  // Validated as the run controller will validate each run it creates, so that a template no run
  // could pass is refused here, once, instead of in every run.
  json placed = *runSpec;
  const json* system = member(*runSpec, "system");
  std::optional<benchmark::SystemSpec> found;
  if (systems && system != nullptr && system->is_string())
    found = systems(system->get<std::string>());
  common::Result<benchmark::AcceptedRun> parsed = common::invalidError("not validated");
  if (found) {
    common::Result<json> onSystem =
        benchmark::placeOnSystem(placed, system->get<std::string>(), *found);
    if (onSystem.isOk()) placed = std::move(onSystem).value();
    parsed = onSystem.isOk()
                 ? benchmark::validateRun({"default", "schedule-dry-run", kDryRunUid}, placed)
                 : common::Result<benchmark::AcceptedRun>(onSystem.status());
  } else {
    parsed = benchmark::validateRun({"default", "schedule-dry-run", kDryRunUid}, placed);
  }
  if (!parsed.isOk()) {
    // The run's causes name fields from its own `spec`: put them under the template.
    const common::Status status = parsed.status();  // by value: causes() refers into it
    for (StatusCause cause : status.causes()) {
      cause.field = "spec.runTemplate." + cause.field;
      r.add(std::move(cause));
    }
    if (status.causes().empty())
      r.add({"spec.runTemplate.spec", "FieldValueInvalid", status.message()});
    return;
  }
  out.runSpec = *runSpec;
}

}  // namespace

std::string toString(ConcurrencyPolicy policy) {
  switch (policy) {
    case ConcurrencyPolicy::kAllow:
      return "Allow";
    case ConcurrencyPolicy::kForbid:
      return "Forbid";
    case ConcurrencyPolicy::kReplace:
      return "Replace";
  }
  return "Allow";
}

common::Result<ScheduleSpec> parseScheduleSpec(const json& spec, const SystemLookup& systems) {
  common::SpecReader r;
  if (spec.is_null()) {
    r.add(common::requiredCause("spec"));
    return common::invalidStatus(std::move(r.causes()));
  }
  if (r.object("spec", spec) == nullptr) return common::invalidStatus(std::move(r.causes()));

  ScheduleSpec out;
  if (const json* v = member(spec, "schedule")) {
    if (std::optional<std::string> text = r.string("spec.schedule", *v)) {
      common::Result<CronSchedule> cron = parseCron(*text);
      if (cron.isOk()) {
        out.schedule = *text;
        out.cron = cron.value();
      } else {
        r.add(common::invalidCause("spec.schedule", *text, cron.status().message()));
      }
    }
  } else {
    r.add(common::requiredCause("spec.schedule"));
  }
  if (const json* v = member(spec, "timeZone")) {
    if (std::optional<std::string> name = r.string("spec.timeZone", *v)) {
      common::Result<TimeZone> zone = TimeZone::load(*name);
      if (zone.isOk()) {
        out.timeZone = zone.value();
      } else {
        r.add(common::invalidCause("spec.timeZone", *name, zone.status().message()));
      }
    }
  }
  if (const json* v = member(spec, "concurrencyPolicy")) {
    out.concurrencyPolicy =
        r.oneOf("spec.concurrencyPolicy", *v, kPolicies).value_or(out.concurrencyPolicy);
  }
  if (const json* v = member(spec, "startingDeadlineSeconds")) {
    if (std::optional<std::int64_t> s = r.integerIn("spec.startingDeadlineSeconds", *v, 0))
      out.startingDeadline = std::chrono::seconds(*s);
  }
  if (const json* v = member(spec, "suspend")) {
    out.suspend = r.boolean("spec.suspend", *v).value_or(false);
  }
  if (const json* v = member(spec, "successfulRunsHistoryLimit")) {
    out.successfulRunsHistoryLimit = r.integerIn("spec.successfulRunsHistoryLimit", *v, 0)
                                         .value_or(out.successfulRunsHistoryLimit);
  }
  if (const json* v = member(spec, "failedRunsHistoryLimit")) {
    out.failedRunsHistoryLimit =
        r.integerIn("spec.failedRunsHistoryLimit", *v, 0).value_or(out.failedRunsHistoryLimit);
  }
  readRunTemplate(r, spec, systems, out);
  if (!r.causes().empty()) return common::invalidStatus(std::move(r.causes()));
  return out;
}

}  // namespace hetbench::schedule
