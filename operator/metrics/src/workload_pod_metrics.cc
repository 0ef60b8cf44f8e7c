#include "hetbench/metrics/workload_pod_metrics.h"

#include <charconv>
#include <string_view>

#include "exposition.h"
#include "hetbench/benchmark/constants.h"
#include "hetbench/benchmark/render.h"
#include "hetbench/benchmark/run.h"
#include "hetbench/benchmark/validate.h"
#include "hetbench/common/json_fields.h"

namespace hetbench::metrics {
namespace {

using common::member;
using common::stringMember;
using nlohmann::json;

std::optional<std::int64_t> index(const std::string& text) {
  std::int64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end || value < 0) return std::nullopt;
  return value;
}

std::pair<std::string, std::string> keyOf(const json& object) {
  const json& meta = member(object, "metadata");
  return {stringMember(meta, "namespace"), stringMember(meta, "name")};
}

}  // namespace

std::optional<WorkloadPod> workloadPod(const json& pod) {
  const json& meta = member(pod, "metadata");
  const json& labels = member(meta, "labels");
  WorkloadPod out;
  out.ns = stringMember(meta, "namespace");
  out.name = stringMember(meta, "name");
  out.run = stringMember(labels, benchmark::kRunLabel);
  out.runId = stringMember(labels, benchmark::kIdLabel);
  const std::optional<std::int64_t> trial = index(stringMember(labels, benchmark::kTrialLabel));
  const std::optional<std::int64_t> repetition =
      index(stringMember(labels, benchmark::kRepetitionLabel));
  if (out.ns.empty() || out.name.empty() || out.run.empty() || out.runId.empty() || !trial ||
      !repetition) {
    return std::nullopt;
  }
  out.trial = *trial;
  out.repetition = *repetition;
  return out;
}

void WorkloadPodMetrics::observeRun(const json& object) {
  const std::pair<std::string, std::string> key = keyOf(object);
  const std::string uid = stringMember(member(object, "metadata"), "uid");
  if (uid.empty()) return;
  {
    // The accepted spec never changes, so a run is read once it has been accepted: the status
    // writes that follow cost a look at its metadata only.
    std::lock_guard lock(mu_);
    auto known = runs_.find(key);
    if (known != runs_.end() && known->second.uid == uid && !known->second.byTrial.empty()) {
      return;
    }
  }
  const benchmark::Run run = benchmark::readRun(object);
  const std::optional<benchmark::AcceptedRun> accepted = benchmark::acceptedRun(run);
  RunConfigurations entry{run.ref.uid, benchmark::runId(run.ref.uid),
                          accepted ? benchmark::trialConfigurations(run.ref.ns, *accepted)
                                   : std::vector<benchmark::Configuration>{}};
  std::lock_guard lock(mu_);
  runs_[key] = std::move(entry);
}

void WorkloadPodMetrics::forgetRun(const json& object) {
  const std::pair<std::string, std::string> key = keyOf(object);
  const std::string uid = stringMember(member(object, "metadata"), "uid");
  std::lock_guard lock(mu_);
  auto known = runs_.find(key);
  if (known != runs_.end() && known->second.uid == uid) runs_.erase(known);
}

void WorkloadPodMetrics::observePod(const json& object) {
  std::optional<WorkloadPod> pod = workloadPod(object);
  std::lock_guard lock(mu_);
  if (!pod) {
    pods_.erase(keyOf(object));  // its labels were edited away
    return;
  }
  std::pair<std::string, std::string> key{pod->ns, pod->name};
  pods_[std::move(key)] = std::move(*pod);
}

void WorkloadPodMetrics::forgetPod(const json& object) {
  std::lock_guard lock(mu_);
  pods_.erase(keyOf(object));
}

std::vector<prometheus::MetricFamily> WorkloadPodMetrics::Collect() const {
  if (exporting_ && !exporting_()) return {};
  prometheus::MetricFamily info = detail::family(
      "hetbench_workload_pod_info",
      "1 for each pod of a BenchmarkRun: its run, trial and repetition and its trial's "
      "configuration, to join per-pod series of other exporters on namespace and pod.",
      prometheus::MetricType::Gauge);
  std::lock_guard lock(mu_);
  for (const auto& [key, pod] : pods_) {
    auto run = runs_.find({pod.ns, pod.run});
    if (run == runs_.end() || run->second.runId != pod.runId) continue;
    const std::vector<benchmark::Configuration>& byTrial = run->second.byTrial;
    if (pod.trial >= static_cast<std::int64_t>(byTrial.size())) continue;
    std::vector<prometheus::ClientMetric::Label> labels =
        detail::configurationLabels(byTrial[static_cast<std::size_t>(pod.trial)]);
    labels.push_back({"pod", pod.name});
    labels.push_back({"run", pod.run});
    labels.push_back({"trial", std::to_string(pod.trial)});
    labels.push_back({"repetition", std::to_string(pod.repetition)});
    info.metric.push_back(detail::sample(1, std::move(labels)));
  }
  return {std::move(info)};
}

}  // namespace hetbench::metrics
