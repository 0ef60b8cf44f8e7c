#include "hetbench/controller/metrics.h"

#include <string>

namespace hetbench::controller {
namespace {

const prometheus::Histogram::BucketBoundaries& latencyBuckets() {
  static const prometheus::Histogram::BucketBoundaries kBuckets = {
      0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};
  return kBuckets;
}

double seconds(std::chrono::nanoseconds d) { return std::chrono::duration<double>(d).count(); }

const prometheus::Labels kController = {{"controller", "benchmarkrun"}};
const prometheus::Labels kQueue = {{"name", "benchmarkrun"}};

}  // namespace

ControllerMetrics::ControllerMetrics()
    : registry_(std::make_shared<prometheus::Registry>()),
      reconcileTotal_(prometheus::BuildCounter()
                          .Name("controller_runtime_reconcile_total")
                          .Help("Reconciles of BenchmarkRuns by result.")
                          .Register(*registry_)),
      reconcileErrors_(prometheus::BuildCounter()
                           .Name("controller_runtime_reconcile_errors_total")
                           .Help("Reconciles that returned an error.")
                           .Register(*registry_)
                           .Add(kController)),
      reconcileTime_(prometheus::BuildHistogram()
                         .Name("controller_runtime_reconcile_time_seconds")
                         .Help("Time a reconcile of one BenchmarkRun took.")
                         .Register(*registry_)
                         .Add(kController, latencyBuckets())),
      depth_(prometheus::BuildGauge()
                 .Name("workqueue_depth")
                 .Help("Keys waiting in the work queue.")
                 .Register(*registry_)
                 .Add(kQueue)),
      adds_(prometheus::BuildCounter()
                .Name("workqueue_adds_total")
                .Help("Keys added to the work queue.")
                .Register(*registry_)
                .Add(kQueue)),
      queueDuration_(prometheus::BuildHistogram()
                         .Name("workqueue_queue_duration_seconds")
                         .Help("Time a key waited in the work queue before a worker took it.")
                         .Register(*registry_)
                         .Add(kQueue, latencyBuckets())),
      workDuration_(prometheus::BuildHistogram()
                        .Name("workqueue_work_duration_seconds")
                        .Help("Time a worker spent on a key.")
                        .Register(*registry_)
                        .Add(kQueue, latencyBuckets())),
      retries_(prometheus::BuildCounter()
                   .Name("workqueue_retries_total")
                   .Help("Keys re-added after an error.")
                   .Register(*registry_)
                   .Add(kQueue)),
      requests_(prometheus::BuildCounter()
                    .Name("rest_client_requests_total")
                    .Help("Kubernetes API requests by verb and HTTP code (0: no response).")
                    .Register(*registry_)),
      requestLatency_(prometheus::BuildHistogram()
                          .Name("rest_client_request_duration_seconds")
                          .Help("Kubernetes API request latency by verb.")
                          .Register(*registry_)),
      leader_(prometheus::BuildGauge()
                  .Name("leader_election_master_status")
                  .Help("1 while this replica leads (or runs without leader election).")
                  .Register(*registry_)
                  .Add({{"name", "hetbench-operator"}})),
      runsFinished_(prometheus::BuildCounter()
                        .Name("hetbench_runs_finished_total")
                        .Help("BenchmarkRuns that reached a final phase, by phase.")
                        .Register(*registry_)) {
  for (const char* result : {"success", "error", "requeue_after"}) {
    prometheus::Labels labels = kController;
    labels["result"] = result;
    reconcileTotal_.Add(labels);
  }
}

void ControllerMetrics::reconciled(std::string_view result, std::chrono::nanoseconds took) {
  prometheus::Labels labels = kController;
  labels["result"] = std::string(result);
  reconcileTotal_.Add(labels).Increment();
  if (result == "error") reconcileErrors_.Increment();
  reconcileTime_.Observe(seconds(took));
}

void ControllerMetrics::runFinished(const std::string& phase) {
  runsFinished_.Add({{"phase", phase}}).Increment();
}

void ControllerMetrics::leader(bool leading) { leader_.Set(leading ? 1 : 0); }

bool ControllerMetrics::leading() const { return leader_.Value() == 1; }

kube::WorkQueueObserver ControllerMetrics::workQueueObserver() {
  kube::WorkQueueObserver o;
  o.depth = [this](std::size_t depth) { depth_.Set(static_cast<double>(depth)); };
  o.added = [this] { adds_.Increment(); };
  o.queued = [this](std::chrono::nanoseconds d) { queueDuration_.Observe(seconds(d)); };
  o.worked = [this](std::chrono::nanoseconds d) { workDuration_.Observe(seconds(d)); };
  o.retried = [this] { retries_.Increment(); };
  return o;
}

kube::RequestObserver ControllerMetrics::requestObserver() {
  return [this](std::string_view verb, int code, std::chrono::nanoseconds latency) {
    requests_.Add({{"method", std::string(verb)}, {"code", std::to_string(code)}}).Increment();
    requestLatency_.Add({{"verb", std::string(verb)}}, latencyBuckets()).Observe(seconds(latency));
  };
}

}  // namespace hetbench::controller
