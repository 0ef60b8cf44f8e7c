// hetbench-operator: the controller daemon. Only wiring lives here.
#include <prometheus/exposer.h>
#include <pthread.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "hetbench/common/clock.h"
#include "hetbench/common/flags.h"
#include "hetbench/common/ids.h"
#include "hetbench/common/logging.h"
#include "hetbench/metrics/benchmark_metrics.h"
#include "hetbench/controller/endpoints.h"
#include "hetbench/controller/manager.h"
#include "hetbench/metrics/controller_metrics.h"
#include "hetbench/kube/config.h"
#include "hetbench/kube/events.h"
#include "hetbench/kube/rest_client.h"
#include "hetbench/logs/collector.h"

namespace common = hetbench::common;
namespace controller = hetbench::controller;
namespace kube = hetbench::kube;
namespace metrics = hetbench::metrics;

namespace {

struct Flags {
  std::string kubeconfig;
  std::string context;
  std::vector<std::string> namespaces;
  std::string metricsAddress = ":8080";
  std::string probeAddress = ":8081";
  std::string logsAddress = ":8082";
  bool leaderElect = false;
  std::string leaderElectionNamespace;
  std::string leaderElectionId = "hetbench-operator";
  std::chrono::nanoseconds leaseDuration = std::chrono::seconds(15);
  std::chrono::nanoseconds renewDeadline = std::chrono::seconds(10);
  std::chrono::nanoseconds retryPeriod = std::chrono::seconds(2);
  std::string logDir = "/var/lib/hetbench/logs";
  std::int64_t workers = 1;
  double qps = 20;
  std::int64_t burst = 30;
  std::int64_t logMaxBytes = 256ll << 20;
  common::LogOptions logging;
};

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? "" : value;
}

common::Result<kube::RestConfig> restConfig(const Flags& flags) {
  if (flags.kubeconfig.empty() && env("KUBECONFIG").empty() &&
      !env("KUBERNETES_SERVICE_HOST").empty()) {
    std::map<std::string, std::string> environment = {
        {"KUBERNETES_SERVICE_HOST", env("KUBERNETES_SERVICE_HOST")},
        {"KUBERNETES_SERVICE_PORT", env("KUBERNETES_SERVICE_PORT")}};
    return kube::inClusterConfig(environment);
  }
  return kube::loadKubeconfig({flags.kubeconfig, env("KUBECONFIG"), env("HOME"), flags.context});
}

std::string hostname() {
  char buffer[256] = {};
  if (::gethostname(buffer, sizeof buffer - 1) != 0) return "hetbench-operator";
  return buffer;
}

int fail(const std::string& message) {
  spdlog::critical("{}", message);
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  Flags f;
  common::FlagSet flags("hetbench-operator",
                        "Watches BenchmarkRun resources and runs their benchmark workloads.");
  bool showVersion = false;
  flags.addBool("version", &showVersion, "Print the version and exit.");
  flags.addString("kubeconfig", &f.kubeconfig,
                  "Path to a kubeconfig (default: $KUBECONFIG, then the in-cluster service "
                  "account, then ~/.kube/config).");
  flags.addString("context", &f.context, "The kubeconfig context to use.");
  flags.addStringList("namespace", &f.namespaces,
                      "Namespaces to watch (repeat or separate with commas; default: all).");
  flags.addString("metrics-bind-address", &f.metricsAddress,
                  "Address of the Prometheus /metrics endpoint; 0 disables it.");
  flags.addString("health-probe-bind-address", &f.probeAddress,
                  "Address of /healthz and /readyz; 0 disables them.");
  flags.addString("logs-bind-address", &f.logsAddress,
                  "Address serving the kept logs read-only under /logs/; 0 disables it.");
  flags.addBool("leader-elect", &f.leaderElect,
                "Run as one of several replicas: only the holder of a Lease reconciles.");
  flags.addString("leader-election-namespace", &f.leaderElectionNamespace,
                  "Namespace of the Lease (default: $POD_NAMESPACE, else the context's).");
  flags.addString("leader-election-id", &f.leaderElectionId, "Name of the Lease.");
  flags.addDuration("leader-elect-lease-duration", &f.leaseDuration,
                    "How long a lease is valid without renewal (others wait this long).");
  flags.addDuration("leader-elect-renew-deadline", &f.renewDeadline,
                    "How long the leader keeps trying to renew before it gives up.");
  flags.addDuration("leader-elect-retry-period", &f.retryPeriod,
                    "How often replicas try to acquire or renew the lease.");
  flags.addString("log-dir", &f.logDir,
                  "Directory for the workloads' logs and rendered manifests.");
  flags.addInt("log-max-bytes", &f.logMaxBytes,
               "Size at which a container's kept log is truncated with a marker line.", 1024,
               std::int64_t{1} << 40);
  flags.addInt("max-concurrent-reconciles", &f.workers, "BenchmarkRuns reconciled at once.", 1, 64);
  flags.addDouble("kube-api-qps", &f.qps, "Steady rate of Kubernetes API requests.", 0.1, 10000);
  flags.addInt("kube-api-burst", &f.burst, "Burst of Kubernetes API requests.", 1, 100000);
  common::addLoggingFlags(flags, &f.logging);

  common::Result<std::vector<std::string>> args = flags.parse(argc, argv);
  if (!args.isOk()) {
    std::fprintf(stderr, "hetbench-operator: %s\n", args.status().message().c_str());
    return 2;
  }
  if (flags.helpRequested()) {
    std::fputs(flags.usage().c_str(), stdout);
    return 0;
  }
  if (showVersion) {
    std::puts("hetbench-operator " HETBENCH_VERSION);
    return 0;
  }
  if (!args.value().empty()) {
    std::fprintf(stderr, "hetbench-operator: unexpected argument \"%s\"\n",
                 args.value().front().c_str());
    return 2;
  }
  common::setupLogging(f.logging);

  auto metricsAddress = controller::parseBindAddress(f.metricsAddress, "metrics-bind-address");
  auto probeAddress = controller::parseBindAddress(f.probeAddress, "health-probe-bind-address");
  auto logsAddress = controller::parseBindAddress(f.logsAddress, "logs-bind-address");
  for (const common::Status& s :
       {metricsAddress.status(), probeAddress.status(), logsAddress.status()}) {
    if (!s.isOk()) {
      std::fprintf(stderr, "hetbench-operator: %s\n", s.message().c_str());
      return 2;
    }
  }
  std::error_code ec;
  std::filesystem::create_directories(f.logDir, ec);
  if (ec) return fail("--log-dir " + f.logDir + ": " + ec.message());

  // Signals go to a dedicated thread: block them before any other thread starts.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  common::Result<kube::RestConfig> config = restConfig(f);
  if (!config.isOk()) return fail(config.status().message());

  common::SystemClock clock;
  common::SystemRandom random;
  metrics::ControllerMetrics metrics;
  kube::RestClientOptions clientOptions;
  clientOptions.qps = f.qps;
  clientOptions.burst = static_cast<int>(f.burst);
  clientOptions.userAgent = "hetbench-operator/" HETBENCH_VERSION;
  auto client =
      kube::makeRestClient(config.value(), clientOptions, clock, metrics.requestObserver());
  if (!client.isOk()) return fail(client.status().message());
  kube::KubeEventRecorder events(*client.value(), clock, random, "hetbench-operator");

  hetbench::logs::CollectorOptions collectorOptions;
  collectorOptions.dir = f.logDir;
  collectorOptions.maxBytesPerContainer = static_cast<std::uint64_t>(f.logMaxBytes);
  hetbench::logs::LogCollector collector(*client.value(), collectorOptions);

  controller::ManagerOptions options;
  options.logs = &collector;
  options.namespaces = f.namespaces;
  options.workers = static_cast<int>(f.workers);
  options.leaderElect = f.leaderElect;
  options.leaderElection.leaseName = f.leaderElectionId;
  options.leaderElection.leaseNamespace =
      !f.leaderElectionNamespace.empty() ? f.leaderElectionNamespace
      : !env("POD_NAMESPACE").empty()    ? env("POD_NAMESPACE")
                                         : config.value().namespace_;
  options.leaderElection.identity = hostname() + "_" + common::shortId(random);
  options.leaderElection.leaseDuration = f.leaseDuration;
  options.leaderElection.renewDeadline = f.renewDeadline;
  options.leaderElection.retryPeriod = f.retryPeriod;
  if (!(f.retryPeriod < f.renewDeadline && f.renewDeadline < f.leaseDuration)) {
    std::fputs(
        "hetbench-operator: want --leader-elect-retry-period < "
        "--leader-elect-renew-deadline < --leader-elect-lease-duration\n",
        stderr);
    return 2;
  }
  options.reconciler.logDir = f.logDir;
  auto benchmarks =
      std::make_shared<metrics::BenchmarkMetrics>([&metrics] { return metrics.leading(); });
  options.runHandlers.onAdd = [&benchmarks](const nlohmann::json& run) {
    benchmarks->observe(run);
  };
  options.runHandlers.onUpdate = [&benchmarks](const nlohmann::json&, const nlohmann::json& run) {
    benchmarks->observe(run);
  };
  options.runHandlers.onDelete = [&benchmarks](const nlohmann::json& run) {
    benchmarks->forget(run);
  };
  controller::Manager manager(*client.value(), clock, random, events, metrics, options);
  metrics::StateMetrics::Sources state;
  state.watchRestarts = [&manager] { return manager.watchRestarts(); };
  state.logStreams = [&collector] { return collector.activeStreams(); };
  state.logBytes = [&collector] { return collector.bytesWritten(); };
  auto stateMetrics = std::make_shared<metrics::StateMetrics>(std::move(state));

  std::unique_ptr<prometheus::Exposer> exposer;
  if (metricsAddress.value()) {
    const controller::BindAddress& a = *metricsAddress.value();
    try {
      exposer = std::make_unique<prometheus::Exposer>(a.host + ":" + std::to_string(a.port));
    } catch (const std::exception& e) {
      return fail("--metrics-bind-address " + f.metricsAddress + ": " + e.what());
    }
    exposer->RegisterCollectable(metrics.registry());
    exposer->RegisterCollectable(benchmarks);
    exposer->RegisterCollectable(stateMetrics);
    spdlog::info("metrics listening on {}:{}", a.host, exposer->GetListeningPorts().front());
  }
  std::unique_ptr<hetbench::http::Server> probes;
  if (probeAddress.value()) {
    auto served = controller::serveProbes(
        *probeAddress.value(), [&manager] { return manager.healthy(); },
        [&manager] { return manager.ready(); });
    if (!served.isOk()) return fail("--health-probe-bind-address: " + served.status().message());
    probes = std::move(served).value();
    spdlog::info("health probes listening on {}:{}", probeAddress.value()->host, probes->port());
  }

  std::unique_ptr<hetbench::http::Server> logServer;
  if (logsAddress.value()) {
    auto served = controller::serveLogs(*logsAddress.value(), f.logDir);
    if (!served.isOk()) return fail("--logs-bind-address: " + served.status().message());
    logServer = std::move(served).value();
    spdlog::info("logs served on {}:{}", logsAddress.value()->host, logServer->port());
  }

  std::atomic<bool> signalled{false};
  std::thread signalThread([&] {
    int received = 0;
    sigwait(&signals, &received);
    signalled = true;
  });

  spdlog::info(
      "hetbench-operator {} starting (namespaces: {}, leader election: {})", HETBENCH_VERSION,
      f.namespaces.empty() ? "all" : fmt::format("{}", fmt::join(f.namespaces, ",")),
      f.leaderElect ? options.leaderElection.leaseNamespace + "/" + f.leaderElectionId : "off");
  manager.start();
  while (!signalled && manager.healthy())
    std::this_thread::sleep_for(std::chrono::milliseconds(100));

  const bool lost = !manager.healthy();
  spdlog::info("shutting down: {}", lost ? "lost the leader lease" : "signal received");
  manager.stop();
  collector.stop();
  events.flush();
  if (probes) probes->stop();
  if (logServer) logServer->stop();
  if (!signalled) ::kill(::getpid(), SIGTERM);  // wakes the signal thread
  signalThread.join();
  spdlog::info("stopped");
  return lost ? 1 : 0;
}
