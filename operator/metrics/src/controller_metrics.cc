#include "hetbench/metrics/controller_metrics.h"

#include <string>

namespace hetbench::metrics {
namespace {

const prometheus::Histogram::BucketBoundaries& latencyBuckets() {
  static const prometheus::Histogram::BucketBoundaries kBuckets = {
      0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};
  return kBuckets;
}

double seconds(std::chrono::nanoseconds d) { return std::chrono::duration<double>(d).count(); }

}  // namespace

ControllerMetrics::ControllerMetrics()
    : registry_(std::make_shared<prometheus::Registry>()),
      reconcileTotal_(prometheus::BuildCounter()
                          .Name("controller_runtime_reconcile_total")
                          .Help("Reconciles by controller and result.")
                          .Register(*registry_)),
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
  auto& errors = prometheus::BuildCounter()
                     .Name("controller_runtime_reconcile_errors_total")
                     .Help("Reconciles that returned an error.")
                     .Register(*registry_);
  auto& reconcileTime = prometheus::BuildHistogram()
                            .Name("controller_runtime_reconcile_time_seconds")
                            .Help("Time a reconcile of one object took.")
                            .Register(*registry_);
  auto& depth = prometheus::BuildGauge()
                    .Name("workqueue_depth")
                    .Help("Keys waiting in the work queue.")
                    .Register(*registry_);
  auto& adds = prometheus::BuildCounter()
                   .Name("workqueue_adds_total")
                   .Help("Keys added to the work queue.")
                   .Register(*registry_);
  auto& queueDuration = prometheus::BuildHistogram()
                            .Name("workqueue_queue_duration_seconds")
                            .Help("Time a key waited in the work queue before a worker took it.")
                            .Register(*registry_);
  auto& workDuration = prometheus::BuildHistogram()
                           .Name("workqueue_work_duration_seconds")
                           .Help("Time a worker spent on a key.")
                           .Register(*registry_);
  auto& retries = prometheus::BuildCounter()
                      .Name("workqueue_retries_total")
                      .Help("Keys re-added after an error.")
                      .Register(*registry_);
  for (std::string_view name :
       {kRunController, kScheduleController, kSeriesController, kSlurmClusterController}) {
    const prometheus::Labels controller = {{"controller", std::string(name)}};
    const prometheus::Labels queue = {{"name", std::string(name)}};
    for (const char* result : {"success", "error", "requeue_after"}) {
      prometheus::Labels labels = controller;
      labels["result"] = result;
      reconcileTotal_.Add(labels);
    }
    series_.emplace(
        std::string(name),
        Series{&errors.Add(controller), &reconcileTime.Add(controller, latencyBuckets()),
               &depth.Add(queue), &adds.Add(queue), &queueDuration.Add(queue, latencyBuckets()),
               &workDuration.Add(queue, latencyBuckets()), &retries.Add(queue)});
  }
}

ControllerMetrics::Series& ControllerMetrics::series(std::string_view controller) {
  return series_.find(controller)->second;
}

void ControllerMetrics::reconciled(std::string_view controller, std::string_view result,
                                   std::chrono::nanoseconds took) {
  Series& s = series(controller);
  reconcileTotal_.Add({{"controller", std::string(controller)}, {"result", std::string(result)}})
      .Increment();
  if (result == "error") s.errors->Increment();
  s.reconcileTime->Observe(seconds(took));
}

void ControllerMetrics::runFinished(const std::string& phase) {
  runsFinished_.Add({{"phase", phase}}).Increment();
}

void ControllerMetrics::leader(bool leading) { leader_.Set(leading ? 1 : 0); }

bool ControllerMetrics::leading() const { return leader_.Value() == 1; }

kube::WorkQueueObserver ControllerMetrics::workQueueObserver(std::string_view controller) {
  Series* s = &series(controller);
  kube::WorkQueueObserver o;
  o.depth = [s](std::size_t depth) { s->depth->Set(static_cast<double>(depth)); };
  o.added = [s] { s->adds->Increment(); };
  o.queued = [s](std::chrono::nanoseconds d) { s->queueDuration->Observe(seconds(d)); };
  o.worked = [s](std::chrono::nanoseconds d) { s->workDuration->Observe(seconds(d)); };
  o.retried = [s] { s->retries->Increment(); };
  return o;
}

kube::RequestObserver ControllerMetrics::requestObserver() {
  return [this](std::string_view verb, int code, std::chrono::nanoseconds latency) {
    requests_.Add({{"method", std::string(verb)}, {"code", std::to_string(code)}}).Increment();
    requestLatency_.Add({{"verb", std::string(verb)}}, latencyBuckets()).Observe(seconds(latency));
  };
}

}  // namespace hetbench::metrics
