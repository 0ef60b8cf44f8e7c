// operator_bench: applies many BenchmarkRuns at once to a kubesim process and runs the
// operator's Manager (as hetbench-operator wires it) in this process, then prints how long
// until every run's workload exists, the API requests per run, the reconcile latency and this
// process's peak memory, which is the operator's: kubesim runs in a child process.
#include <prometheus/metric_family.h>
#include <signal.h>
#include <spawn.h>
#include <spdlog/spdlog.h>
#include <sys/wait.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <thread>

#include "bench_util.h"
#include "hetbench/common/clock.h"
#include "hetbench/common/ids.h"
#include "hetbench/controller/manager.h"
#include "hetbench/kube/config.h"
#include "hetbench/kube/events.h"
#include "hetbench/kube/rest_client.h"
#include "hetbench/logs/collector.h"
#include "testing/harness.h"

extern char** environ;

namespace common = hetbench::common;
namespace controller = hetbench::controller;
namespace kube = hetbench::kube;
namespace metrics = hetbench::metrics;
namespace bench = hetbench::bench;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

/// The peak resident memory of this process (VmHWM), in KiB.
long peakKiB() {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

/// kubesim as a child process; killed and reaped on destruction.
class Kubesim {
 public:
  Kubesim(const std::filesystem::path& dir, int nodes) : kubeconfig_(dir / "kubeconfig") {
    std::ofstream config(dir / "cluster.yaml");
    config << "nodes:\n";
    for (int i = 0; i < nodes; ++i) {
      config << "- name: bench-" << i
             << "\n  capacity: {cpu: \"512\", memory: 2Ti, pods: \"500\"}\n";
    }
    config.close();
    const std::string configPath = (dir / "cluster.yaml").string();
    const std::string kubeconfigPath = kubeconfig_.string();
    const std::string workDir = (dir / "kubesim").string();
    std::vector<std::string> args = {HETBENCH_KUBESIM_BIN,
                                     "--config",
                                     configPath,
                                     "--write-kubeconfig",
                                     kubeconfigPath,
                                     "--work-dir",
                                     workDir,
                                     "--log-level",
                                     "warn"};
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    if (posix_spawn(&pid_, argv[0], nullptr, nullptr, argv.data(), environ) != 0) pid_ = -1;
  }
  ~Kubesim() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGTERM);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
  bool waitReady(std::chrono::seconds timeout) const {
    const auto deadline = bench::Clock::now() + timeout;
    while (bench::Clock::now() < deadline) {
      std::error_code ec;
      if (pid_ > 0 && std::filesystem::file_size(kubeconfig_, ec) > 0 && !ec) return true;
      std::this_thread::sleep_for(50ms);
    }
    return false;
  }
  const std::filesystem::path& kubeconfig() const { return kubeconfig_; }

 private:
  std::filesystem::path kubeconfig_;
  pid_t pid_ = -1;
};

/// Quantile q of a Prometheus histogram by linear interpolation inside its bucket, as PromQL's
/// histogram_quantile does.
double histogramQuantile(const prometheus::ClientMetric::Histogram& h, double q) {
  const double total = static_cast<double>(h.sample_count);
  if (total == 0) return std::nan("");
  const double rank = q * total;
  double lowerBound = 0;
  double lowerCount = 0;
  for (const auto& bucket : h.bucket) {
    const double count = static_cast<double>(bucket.cumulative_count);
    if (count >= rank) {
      if (std::isinf(bucket.upper_bound)) return lowerBound;
      return lowerBound + (bucket.upper_bound - lowerBound) * (rank - lowerCount) /
                              std::max(count - lowerCount, 1.0);
    }
    lowerBound = bucket.upper_bound;
    lowerCount = count;
  }
  return lowerBound;
}

json runObject(int i) {
  return {
      {"apiVersion", "hetbench.io/v1alpha1"},
      {"kind", "BenchmarkRun"},
      {"metadata", {{"name", "bench-" + std::to_string(i)}}},
      {"spec",
       {{"benchmark", "custom"},
        {"system", "bench"},
        {"workload",
         {{"kind", "Pod"}, {"image", "busybox"}, {"command", json::array({"sleep", "120"})}}}}}};
}

}  // namespace

int main(int argc, char** argv) {
  std::int64_t runs = 1000;
  std::int64_t workers = 4;
  double qps = 500;
  std::int64_t burst = 1000;
  common::FlagSet flags("operator_bench",
                        "Applies BenchmarkRuns at once; prints how the operator copes.");
  flags.addInt("runs", &runs, "BenchmarkRuns to apply.", 1, 100000);
  flags.addInt("workers", &workers, "--max-concurrent-reconciles of the operator.", 1, 64);
  flags.addDouble("qps", &qps, "--kube-api-qps of the operator.", 1, 100000);
  flags.addInt("burst", &burst, "--kube-api-burst of the operator.", 1, 100000);
  if (auto code = bench::parseFlags(flags, argc, argv)) return *code;
  spdlog::set_level(spdlog::level::warn);

  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("hetbench-operator-bench-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  int rc = 0;
  {
    Kubesim kubesim(dir, static_cast<int>((runs + 399) / 400));
    if (!kubesim.waitReady(30s)) {
      std::fprintf(stderr, "kubesim did not start\n");
      return 1;
    }
    common::SystemClock clock;
    common::SystemRandom random;
    const kube::RestConfig config =
        kube::loadKubeconfig({kubesim.kubeconfig().string(), "", "", ""}).value();
    kube::RestClientOptions fast;
    fast.qps = 100000;
    fast.burst = 100000;
    std::unique_ptr<kube::KubeClient> tester = kube::makeRestClient(config, fast, clock).value();
    (void)tester->create({"apiextensions.k8s.io", "v1", "customresourcedefinitions", false}, "",
                         hetbench::kubesim::testing::readManifest(HETBENCH_CRD_FILE));
    std::this_thread::sleep_for(500ms);  // the CRD becomes Established

    metrics::ControllerMetrics metrics;
    std::atomic<std::uint64_t> requests{0};
    kube::RequestObserver forward = metrics.requestObserver();
    kube::RestClientOptions operatorOptions;
    operatorOptions.qps = qps;
    operatorOptions.burst = static_cast<int>(burst);
    std::unique_ptr<kube::KubeClient> client =
        kube::makeRestClient(config, operatorOptions, clock,
                             [&](std::string_view verb, int code, std::chrono::nanoseconds d) {
                               ++requests;
                               forward(verb, code, d);
                             })
            .value();
    kube::KubeEventRecorder events(*client, clock, random, "hetbench-operator");
    hetbench::logs::LogCollector collector(*client, {dir / "logs"});
    controller::ManagerOptions options;
    options.workers = static_cast<int>(workers);
    options.reconciler.logDir = dir / "logs";
    options.logs = &collector;
    const long baselineKiB = bench::residentKiB();
    controller::Manager manager(*client, clock, random, events, metrics, options);
    manager.start();
    while (!manager.ready()) std::this_thread::sleep_for(10ms);
    const std::uint64_t requestsBefore = requests.load();

    kube::WatchOptions podsOfRuns;
    podsOfRuns.labelSelector = "hetbench.io/run";
    std::unique_ptr<kube::WatchStream> watch =
        tester->watch(kube::resources::kPods, "default", podsOfRuns).value();
    std::set<std::string> seen;
    const auto start = bench::Clock::now();
    std::thread creator([&] {
      for (int i = 0; i < runs; ++i)
        (void)tester->create(controller::kBenchmarkRuns, "default", runObject(i));
    });
    auto lastPod = start;
    const auto deadline = start + 600s;
    while (static_cast<std::int64_t>(seen.size()) < runs && bench::Clock::now() < deadline) {
      auto event = watch->next();
      if (!event.isOk() || !event.value()) break;
      if (event.value()->type == kube::WatchEvent::Type::kAdded) {
        seen.insert(event.value()->object["metadata"]["name"].get<std::string>());
        lastPod = bench::Clock::now();
      }
    }
    creator.join();
    const double allExist = bench::seconds(lastPod - start);
    watch->cancel();

    // Let the status writes that follow the creations land before counting.
    std::this_thread::sleep_for(3s);
    const std::uint64_t used = requests.load() - requestsBefore;
    // The run controller's series: the schedule controller has one of its own.
    std::optional<prometheus::ClientMetric> reconcileTime;
    for (const prometheus::MetricFamily& family : metrics.registry()->Collect()) {
      if (family.name != "controller_runtime_reconcile_time_seconds") continue;
      for (const prometheus::ClientMetric& metric : family.metric) {
        const bool runController =
            std::any_of(metric.label.begin(), metric.label.end(), [](const auto& label) {
              return label.name == "controller" && label.value == metrics::kRunController;
            });
        if (runController) reconcileTime = metric;
      }
    }
    // A figure the bench cannot take fails it rather than printing nan.
    const bool timed = reconcileTime && reconcileTime->histogram.sample_count > 0;
    const double p50 = timed ? histogramQuantile(reconcileTime->histogram, 0.50) : 0;
    const double p99 = timed ? histogramQuantile(reconcileTime->histogram, 0.99) : 0;
    std::printf("operator_bench: %lld runs, %lld workers, client qps %.0f burst %lld\n",
                static_cast<long long>(runs), static_cast<long long>(workers), qps,
                static_cast<long long>(burst));
    std::printf("  workloads existing:  %zu of %lld\n", seen.size(), static_cast<long long>(runs));
    std::printf("  time until all exist: %.2f s (from the first create)\n", allExist);
    std::printf("  API requests per run: %.2f (%llu in all, watches and lists included)\n",
                static_cast<double>(used) / static_cast<double>(runs),
                static_cast<unsigned long long>(used));
    if (timed) {
      std::printf("  reconcile latency:    p50 %.1f ms, p99 %.1f ms (histogram buckets)\n",
                  p50 * 1e3, p99 * 1e3);
    } else {
      std::fprintf(stderr, "operator_bench: the run controller recorded no reconcile\n");
      rc = 1;
    }
    std::printf("  operator memory:      peak %ld KiB, %ld KiB before the manager started\n",
                peakKiB(), baselineKiB);
    if (static_cast<std::int64_t>(seen.size()) < runs) rc = 1;
    manager.stop();
    collector.stop();
  }
  std::filesystem::remove_all(dir);
  return rc;
}
