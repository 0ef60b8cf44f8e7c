// hetbench-operator: the controller daemon. Only wiring lives here.
#include <prometheus/collectable.h>
#include <pthread.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

#include "hetbench/benchmark/queue.h"
#include "hetbench/common/clock.h"
#include "hetbench/common/flags.h"
#include "hetbench/common/ids.h"
#include "hetbench/common/logging.h"
#include "hetbench/controller/endpoints.h"
#include "hetbench/controller/manager.h"
#include "hetbench/kube/config.h"
#include "hetbench/kube/events.h"
#include "hetbench/kube/rest_client.h"
#include "hetbench/logs/collector.h"
#include "hetbench/metrics/benchmark_metrics.h"
#include "hetbench/metrics/controller_metrics.h"
#include "hetbench/metrics/series_metrics.h"
#include "hetbench/metrics/workload_pod_metrics.h"

namespace benchmark = hetbench::benchmark;
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
  bool metricsSecure = true;
  bool logsSecure = true;
  std::string tlsCertDir;
  std::string clientCaFile;
  bool leaderElect = false;
  std::string leaderElectionNamespace;
  std::string clusterResourceNamespace;
  std::string leaderElectionId = "hetbench-operator";
  std::chrono::nanoseconds leaseDuration = std::chrono::seconds(15);
  std::chrono::nanoseconds renewDeadline = std::chrono::seconds(10);
  std::chrono::nanoseconds retryPeriod = std::chrono::seconds(2);
  std::string logDir = "/var/lib/hetbench/logs";
  std::string defaultQueueName;
  std::int64_t workers = 1;
  double qps = 20;
  std::int64_t burst = 30;
  std::int64_t logMaxBytes = 256ll << 20;
  std::int64_t logStreams = 256;
  std::chrono::nanoseconds logRetention = std::chrono::hours(24 * 7);
  std::int64_t logDirMaxBytes = 0;
  std::chrono::nanoseconds logSweepInterval = std::chrono::minutes(1);
  std::chrono::nanoseconds slurmPollInterval = std::chrono::seconds(10);
  std::chrono::nanoseconds slurmProbeInterval = std::chrono::minutes(1);
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

void addFlags(common::FlagSet& flags, Flags& f, bool& showVersion) {
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
  flags.addBool("metrics-secure", &f.metricsSecure,
                "Serve /metrics over HTTPS to callers allowed to get it (TokenReview and "
                "SubjectAccessReview); false: plain HTTP to anyone.");
  flags.addBool("logs-secure", &f.logsSecure,
                "Serve logs over HTTPS to callers allowed to get pods/log in the run's "
                "namespace; false: plain HTTP to anyone.");
  flags.addString("tls-cert-dir", &f.tlsCertDir,
                  "Directory holding tls.crt and tls.key (a kubernetes.io/tls Secret, reloaded "
                  "when it changes) for the secure endpoints; empty: a self-signed certificate.");
  flags.addString("client-ca-file", &f.clientCaFile,
                  "CA bundle that the secure endpoints verify client certificates against (the "
                  "certificate's CN is the user, O the groups); empty: bearer tokens only.");
  flags.addBool("leader-elect", &f.leaderElect,
                "Run as one of several replicas: only the holder of a Lease reconciles.");
  flags.addString("leader-election-namespace", &f.leaderElectionNamespace,
                  "Namespace of the Lease (default: $POD_NAMESPACE, else the context's).");
  flags.addString("leader-election-id", &f.leaderElectionId, "Name of the Lease.");
  flags.addDuration("slurm-poll-interval", &f.slurmPollInterval,
                    "How often the job of a unit on Slurm is looked at while it has not ended.");
  flags.addDuration("slurm-probe-interval", &f.slurmProbeInterval,
                    "How often each SlurmCluster is probed for its Ready condition.");
  flags.addString("cluster-resource-namespace", &f.clusterResourceNamespace,
                  "Namespace of the Secrets that cluster-scoped resources name (a SlurmCluster's "
                  "token; default: $POD_NAMESPACE, else the context's).");
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
  flags.addInt("log-streams", &f.logStreams,
               "Container log streams followed at once, the log collector's threads; beyond it, "
               "streams take turns of 5 s.",
               1, 65536);
  flags.addDuration("log-retention", &f.logRetention,
                    "How long a run's logs are kept once the run is deleted (0: deleted at "
                    "the next sweep, within a minute).");
  flags.addInt("log-dir-max-bytes", &f.logDirMaxBytes,
               "The most bytes --log-dir may hold; over it, the logs of deleted runs, then of "
               "finished runs, go oldest first (0: no bound).",
               0, std::int64_t{1} << 50);
  flags.addDuration("log-sweep-interval", &f.logSweepInterval,
                    "How often the leader measures --log-dir and deletes what the retention "
                    "and the bound say.");
  flags.addString("default-queue-name", &f.defaultQueueName,
                  "The Kueue LocalQueue that the workloads of runs naming no spec.queueName are "
                  "submitted to (empty: none).");
  flags.addInt("max-concurrent-reconciles", &f.workers, "BenchmarkRuns reconciled at once.", 1, 64);
  flags.addDouble("kube-api-qps", &f.qps, "Steady rate of Kubernetes API requests.", 0.1, 10000);
  flags.addInt("kube-api-burst", &f.burst, "Burst of Kubernetes API requests.", 1, 100000);
  common::addLoggingFlags(flags, &f.logging);
}

/// The bind addresses of the endpoints; nullopt for one that is disabled.
struct Addresses {
  std::optional<controller::BindAddress> metrics;
  std::optional<controller::BindAddress> probes;
  std::optional<controller::BindAddress> logs;
};

/// Parses the command line into `f`: an exit code when the program should stop there (usage or
/// version printed: 0; a bad flag or value: 2).
std::optional<int> parseCommandLine(int argc, char** argv, Flags& f, Addresses& addresses) {
  common::FlagSet flags("hetbench-operator",
                        "Watches BenchmarkRun resources and runs their benchmark workloads.");
  bool showVersion = false;
  addFlags(flags, f, showVersion);
  auto usageError = [](const std::string& message) {
    std::fprintf(stderr, "hetbench-operator: %s\n", message.c_str());
    return 2;
  };
  common::Result<std::vector<std::string>> args = flags.parse(argc, argv);
  if (!args.isOk()) return usageError(args.status().message());
  if (flags.helpRequested()) {
    std::fputs(flags.usage().c_str(), stdout);
    return 0;
  }
  if (showVersion) {
    std::puts("hetbench-operator " HETBENCH_VERSION);
    return 0;
  }
  if (!args.value().empty())
    return usageError("unexpected argument \"" + args.value().front() + "\"");
  if (!(f.retryPeriod < f.renewDeadline && f.renewDeadline < f.leaseDuration)) {
    return usageError(
        "want --leader-elect-retry-period < --leader-elect-renew-deadline < "
        "--leader-elect-lease-duration");
  }
  const std::pair<const std::string*, std::optional<controller::BindAddress>*> binds[] = {
      {&f.metricsAddress, &addresses.metrics},
      {&f.probeAddress, &addresses.probes},
      {&f.logsAddress, &addresses.logs}};
  const char* names[] = {"metrics-bind-address", "health-probe-bind-address", "logs-bind-address"};
  for (std::size_t i = 0; i < std::size(binds); ++i) {
    auto parsed = controller::parseBindAddress(*binds[i].first, names[i]);
    if (!parsed.isOk()) return usageError(parsed.status().message());
    *binds[i].second = parsed.value();
  }
  return std::nullopt;
}

controller::ManagerOptions managerOptions(const Flags& f, const kube::RestConfig& config,
                                          hetbench::logs::LogCollector& collector,
                                          hetbench::logs::LogJanitor& janitor,
                                          common::RandomSource& random) {
  controller::ManagerOptions options;
  options.logs = &collector;
  options.janitor = &janitor;
  options.logSweepInterval = f.logSweepInterval;
  options.namespaces = f.namespaces;
  options.workers = static_cast<int>(f.workers);
  options.leaderElect = f.leaderElect;
  options.leaderElection.leaseName = f.leaderElectionId;
  options.leaderElection.leaseNamespace = !f.leaderElectionNamespace.empty()
                                              ? f.leaderElectionNamespace
                                          : !env("POD_NAMESPACE").empty() ? env("POD_NAMESPACE")
                                                                          : config.namespace_;
  options.leaderElection.identity = hostname() + "_" + common::shortId(random);
  options.leaderElection.leaseDuration = f.leaseDuration;
  options.leaderElection.renewDeadline = f.renewDeadline;
  options.leaderElection.retryPeriod = f.retryPeriod;
  options.reconciler.logDir = f.logDir;
  options.reconciler.defaultQueueName = f.defaultQueueName;
  options.reconciler.logMaxBytes = static_cast<std::uint64_t>(f.logMaxBytes);
  options.reconciler.slurmPollInterval = f.slurmPollInterval;
  options.slurmClusters.probeInterval =
      std::chrono::duration_cast<std::chrono::seconds>(f.slurmProbeInterval);
  options.slurmConnector.secretNamespace = !f.clusterResourceNamespace.empty()
                                               ? f.clusterResourceNamespace
                                           : !env("POD_NAMESPACE").empty() ? env("POD_NAMESPACE")
                                                                           : config.namespace_;
  return options;
}

/// The hetbench_benchmark_* series, fed by the run informers and shown by the leader only.
std::shared_ptr<metrics::BenchmarkMetrics> benchmarkSeries(
    const metrics::ControllerMetrics& metrics, controller::ManagerOptions& options) {
  auto benchmarks =
      std::make_shared<metrics::BenchmarkMetrics>([&metrics] { return metrics.leading(); });
  kube::InformerHandlers runs;
  runs.onAdd = [benchmarks](const nlohmann::json& run) { benchmarks->observe(run); };
  runs.onUpdate = [benchmarks](const nlohmann::json&, const nlohmann::json& run) {
    benchmarks->observe(run);
  };
  runs.onDelete = [benchmarks](const nlohmann::json& run) { benchmarks->forget(run); };
  options.runHandlers.push_back(std::move(runs));
  return benchmarks;
}

/// hetbench_workload_pod_info, fed by the run and pod informers and shown by the leader only.
std::shared_ptr<metrics::WorkloadPodMetrics> workloadPodSeries(
    const metrics::ControllerMetrics& metrics, controller::ManagerOptions& options) {
  auto pods =
      std::make_shared<metrics::WorkloadPodMetrics>([&metrics] { return metrics.leading(); });
  kube::InformerHandlers runs;
  runs.onAdd = [pods](const nlohmann::json& run) { pods->observeRun(run); };
  runs.onUpdate = [pods](const nlohmann::json&, const nlohmann::json& run) {
    pods->observeRun(run);
  };
  runs.onDelete = [pods](const nlohmann::json& run) { pods->forgetRun(run); };
  options.runHandlers.push_back(std::move(runs));
  options.podHandlers.onAdd = [pods](const nlohmann::json& pod) { pods->observePod(pod); };
  options.podHandlers.onUpdate = [pods](const nlohmann::json&, const nlohmann::json& pod) {
    pods->observePod(pod);
  };
  options.podHandlers.onDelete = [pods](const nlohmann::json& pod) { pods->forgetPod(pod); };
  return pods;
}

/// The hetbench_series_* series, fed by the BenchmarkSeries informers and shown by the leader
/// only.
std::shared_ptr<metrics::SeriesMetrics> historySeries(const metrics::ControllerMetrics& metrics,
                                                      controller::ManagerOptions& options) {
  auto history = std::make_shared<metrics::SeriesMetrics>([&metrics] { return metrics.leading(); });
  options.seriesHandlers.onAdd = [history](const nlohmann::json& series) {
    history->observe(series);
  };
  options.seriesHandlers.onUpdate = [history](const nlohmann::json&, const nlohmann::json& series) {
    history->observe(series);
  };
  options.seriesHandlers.onDelete = [history](const nlohmann::json& series) {
    history->forget(series);
  };
  return history;
}

/// How long a replica that lost its lease waits for its reconciles in progress.
constexpr auto kLostLeaseGrace = std::chrono::seconds(5);

/// The servers the operator runs beside the manager: /metrics, the probes and the log server.
struct Endpoints {
  std::unique_ptr<kube::KubeClient> reviewClient;
  std::unique_ptr<controller::DelegatingAuthorizer> authorizer;
  controller::EndpointSecurity security;
  std::unique_ptr<controller::CertificateReloader> reloader;
  std::unique_ptr<hetbench::http::Server> metrics;
  std::unique_ptr<hetbench::http::Server> probes;
  std::unique_ptr<hetbench::http::Server> logServer;

  void stop() {
    for (auto* server : {&metrics, &probes, &logServer})
      if (*server) (*server)->stop();
  }
};

/// What the secure endpoints need: a certificate, the client CA and the authorizer (over a
/// client of its own, so that callers sending tokens do not use the controller's request rate).
common::Status secureEndpoints(const Flags& f, const kube::RestConfig& config,
                               const common::Clock& clock,
                               const kube::RestClientOptions& clientOptions,
                               kube::RequestObserver observer, Endpoints& out) {
  controller::EndpointSecurity& security = out.security;
  auto certificate = controller::endpointCertificate(f.tlsCertDir, {hostname(), "localhost"});
  if (!certificate.isOk())
    return common::invalidError("--tls-cert-dir: " + certificate.status().message());
  if (!f.tlsCertDir.empty())
    out.reloader =
        std::make_unique<controller::CertificateReloader>(f.tlsCertDir, certificate.value());
  security.tls = std::move(certificate).value();
  if (!f.clientCaFile.empty()) {
    std::ifstream in(f.clientCaFile, std::ios::binary);
    security.clientCaPem.assign(std::istreambuf_iterator<char>(in),
                                std::istreambuf_iterator<char>());
    if (security.clientCaPem.empty())
      return common::invalidError("--client-ca-file " + f.clientCaFile + ": missing or empty");
  }
  auto client = kube::makeRestClient(config, clientOptions, clock, std::move(observer));
  if (!client.isOk()) return client.status();
  out.reviewClient = std::move(client).value();
  out.authorizer = std::make_unique<controller::DelegatingAuthorizer>(*out.reviewClient, clock);
  security.authorizer = out.authorizer.get();
  return common::okStatus();
}

common::Status serveEndpoints(const Flags& f, const Addresses& addresses,
                              controller::Manager& manager,
                              std::vector<std::shared_ptr<prometheus::Collectable>> collectables,
                              Endpoints& out) {
  const controller::EndpointSecurity& security = out.security;
  const controller::EndpointSecurity plain;
  if (addresses.metrics) {
    auto served = controller::serveMetrics(*addresses.metrics, std::move(collectables),
                                           f.metricsSecure ? security : plain);
    if (!served.isOk())
      return common::unavailableError("--metrics-bind-address: " + served.status().message());
    out.metrics = std::move(served).value();
    spdlog::info("metrics listening on {}:{} ({})", addresses.metrics->host, out.metrics->port(),
                 f.metricsSecure ? "https, authorized" : "http, open to anyone");
  }
  if (addresses.probes) {
    auto served = controller::serveProbes(
        *addresses.probes, [&manager] { return manager.healthy(); },
        [&manager] { return manager.ready(); });
    if (!served.isOk()) {
      return common::unavailableError("--health-probe-bind-address: " + served.status().message());
    }
    out.probes = std::move(served).value();
    spdlog::info("health probes listening on {}:{}", addresses.probes->host, out.probes->port());
  }
  if (addresses.logs) {
    auto served = controller::serveLogs(*addresses.logs, f.logDir, f.logsSecure ? security : plain);
    if (!served.isOk())
      return common::unavailableError("--logs-bind-address: " + served.status().message());
    out.logServer = std::move(served).value();
    spdlog::info("logs served on {}:{} ({})", addresses.logs->host, out.logServer->port(),
                 f.logsSecure ? "https, authorized" : "http, open to anyone");
  }
  return common::okStatus();
}

}  // namespace

int main(int argc, char** argv) {
  Flags f;
  Addresses addresses;
  if (std::optional<int> code = parseCommandLine(argc, argv, f, addresses)) return *code;
  common::setupLogging(f.logging);
  if (!f.defaultQueueName.empty() && !benchmark::isQueueName(f.defaultQueueName)) {
    return fail("--default-queue-name " + f.defaultQueueName + ": must be " +
                std::string(benchmark::kQueueNameRule));
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
  collectorOptions.maxStreams = static_cast<std::size_t>(f.logStreams);
  // The fence of the log files: the manager, made below and started before the first stream.
  const controller::Manager* fence = nullptr;
  collectorOptions.mayWrite = [&fence] { return fence->mayWrite(); };
  hetbench::logs::LogCollector collector(*client.value(), collectorOptions);
  hetbench::logs::LogJanitor janitor(
      f.logDir, {f.logRetention, static_cast<std::uint64_t>(f.logDirMaxBytes)}, f.namespaces);

  controller::ManagerOptions options =
      managerOptions(f, config.value(), collector, janitor, random);
  auto benchmarks = benchmarkSeries(metrics, options);
  auto history = historySeries(metrics, options);
  auto workloadPods = workloadPodSeries(metrics, options);
  controller::Manager manager(*client.value(), clock, random, events, metrics, options);
  fence = &manager;
  metrics::StateMetrics::Sources state;
  state.watchRestarts = [&manager] { return manager.watchRestarts(); };
  state.logStreams = [&collector] { return collector.activeStreams(); };
  state.logBytes = [&collector] { return collector.bytesWritten(); };
  state.logWriteFailures = [&collector] { return collector.writeFailures(); };
  state.logDirBytes = [&janitor] { return janitor.bytesInUse(); };
  state.logDirFreeBytes = [&janitor] { return janitor.freeBytes(); };
  state.logDirMaxBytes = [&janitor] { return janitor.maxBytes(); };
  state.logPrunedRuns = [&janitor] { return janitor.prunedRuns(); };
  auto stateMetrics = std::make_shared<metrics::StateMetrics>(std::move(state));
  Endpoints endpoints;
  if ((addresses.metrics && f.metricsSecure) || (addresses.logs && f.logsSecure)) {
    const common::Status secured = secureEndpoints(f, config.value(), clock, clientOptions,
                                                   metrics.requestObserver(), endpoints);
    if (!secured.isOk()) return fail(secured.message());
  }
  const common::Status served = serveEndpoints(
      f, addresses, manager, {metrics.registry(), benchmarks, history, workloadPods, stateMetrics},
      endpoints);
  if (!served.isOk()) return fail(served.message());

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
  // The kubelet updates a mounted Secret within about a minute of its renewal.
  constexpr auto kCertificateCheck = std::chrono::seconds(10);
  auto nextCertificateCheck = std::chrono::steady_clock::now() + kCertificateCheck;
  while (!signalled && manager.healthy()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (endpoints.reloader && std::chrono::steady_clock::now() >= nextCertificateCheck) {
      nextCertificateCheck += kCertificateCheck;
      const common::Status reloaded =
          endpoints.reloader->reload({endpoints.metrics.get(), endpoints.logServer.get()});
      if (!reloaded.isOk()) spdlog::error("--tls-cert-dir: {}", reloaded.message());
    }
  }

  const bool lost = !manager.healthy();
  spdlog::info("shutting down: {}", lost ? "lost the leader lease" : "signal received");
  // Another replica may lead already: this one's reconciles in progress, which may wait on an
  // API server that does not answer (30 s a request, retried), are not waited for long.
  std::atomic<bool> stopped{false};
  std::thread watchdog;
  if (lost) {
    watchdog = std::thread([&stopped] {
      const auto deadline = std::chrono::steady_clock::now() + kLostLeaseGrace;
      while (!stopped && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      if (stopped) return;
      spdlog::error("reconciles still in progress {} s after the lease was lost; exiting",
                    std::chrono::duration_cast<std::chrono::seconds>(kLostLeaseGrace).count());
      spdlog::shutdown();
      std::_Exit(1);
    });
  }
  manager.stop();
  collector.stop();
  events.flush();
  endpoints.stop();
  if (!signalled) ::kill(::getpid(), SIGTERM);  // wakes the signal thread
  signalThread.join();
  stopped = true;
  if (watchdog.joinable()) watchdog.join();
  spdlog::info("stopped");
  return lost ? 1 : 0;
}
