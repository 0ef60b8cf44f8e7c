// kubesim: a Kubernetes API server with simulated nodes, for hetbench's tests and local demo.
#include <signal.h>
#include <spdlog/spdlog.h>
#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cluster/cluster.h"
#include "hetbench/common/flags.h"
#include "hetbench/common/logging.h"
#include "hetbench/http/server.h"
#include "kubeconfig.h"
#include "server/http_api.h"

namespace common = hetbench::common;
namespace http = hetbench::http;
namespace kubesim = hetbench::kubesim;
using namespace std::chrono_literals;

namespace {

int fail(const std::string& message) {
  std::fprintf(stderr, "kubesim: %s\n", message.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  common::FlagSet flags("kubesim",
                        "Serves the Kubernetes API over HTTP(S) with simulated nodes whose "
                        "kubelet runs containers as local processes.");
  std::string listen = "127.0.0.1:0";
  std::string configPath, kubeconfigPath, token, workDir;
  bool tls = false;
  std::chrono::nanoseconds bookmarkInterval = 60s, restartBackoff = 10s, jobBackoff = 10s,
                           eventTtl = 1h;
  std::int64_t history = 10000;
  std::vector<std::string> imageEntrypoints;
  common::LogOptions logOptions;
  flags.addString("listen", &listen, "Address to serve on, HOST:PORT; port 0 picks a free one.");
  flags.addString("config", &configPath,
                  "Cluster config (YAML: nodes, missingImages, images); default: a small "
                  "heterogeneous lab.");
  flags.addStringList("image", &imageEntrypoints,
                      "IMAGE=PROGRAM: containers of IMAGE that set no command run PROGRAM (as the "
                      "config's images.IMAGE.entrypoint); may be repeated.");
  flags.addString("write-kubeconfig", &kubeconfigPath,
                  "Write a kubeconfig for this server here once it serves.");
  flags.addBool("tls", &tls, "Serve HTTPS with a generated CA; the kubeconfig carries the CA.");
  flags.addString("token", &token,
                  "Require this bearer token (or a service-account token kubesim issued, or a "
                  "client certificate).");
  flags.addString("work-dir", &workDir,
                  "Directory for pods' working directories and logs; default: a temporary one, "
                  "removed at exit.");
  flags.addDuration("bookmark-interval", &bookmarkInterval,
                    "How often watches with allowWatchBookmarks get a BOOKMARK.");
  flags.addDuration("restart-backoff", &restartBackoff,
                    "First CrashLoopBackOff delay (doubles up to 5m).");
  flags.addDuration("job-backoff", &jobBackoff, "First delay before a Job replaces a failed pod.");
  flags.addDuration("event-ttl", &eventTtl,
                    "How long an Event is kept after it was last recorded (kube-apiserver's "
                    "--event-ttl).");
  flags.addInt("watch-history", &history, "Watch events kept for resuming watches.", 1, 10000000);
  common::addLoggingFlags(flags, &logOptions);
  common::Result<std::vector<std::string>> args = flags.parse(argc, argv);
  if (!args.isOk()) return fail(args.status().message());
  if (flags.helpRequested()) {
    std::fputs(flags.usage().c_str(), stdout);
    return 0;
  }
  if (!args->empty()) return fail("unexpected argument \"" + args->front() + "\"");
  if (eventTtl < 1s) return fail("--event-ttl must be at least 1s");
  common::setupLogging(logOptions);

  const std::size_t colon = listen.rfind(':');
  if (colon == std::string::npos) return fail("--listen must be HOST:PORT, got \"" + listen + "\"");
  const std::string host = listen.substr(0, colon);
  int port = -1;
  try {
    port = std::stoi(listen.substr(colon + 1));
  } catch (...) {
  }
  if (port < 0 || port > 65535) return fail("--listen has an invalid port: \"" + listen + "\"");

  kubesim::ClusterOptions options;
  options.config = kubesim::defaultClusterConfig();
  if (!configPath.empty()) {
    std::ifstream in(configPath);
    if (!in) return fail("cannot read --config " + configPath);
    std::stringstream text;
    text << in.rdbuf();
    common::Result<kubesim::ClusterConfig> config = kubesim::parseClusterConfig(text.str());
    if (!config.isOk()) return fail(configPath + ": " + config.status().message());
    options.config = std::move(*config);
  }
  for (const std::string& entry : imageEntrypoints) {
    const std::size_t eq = entry.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == entry.size()) {
      return fail("--image must be IMAGE=PROGRAM, got \"" + entry + "\"");
    }
    options.config.entrypoints[entry.substr(0, eq)] = {entry.substr(eq + 1)};
  }
  bool ownWorkDir = false;
  if (workDir.empty()) {
    std::string pattern = (std::filesystem::temp_directory_path() / "kubesim-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) return fail("cannot create a work directory");
    workDir = pattern;
    ownWorkDir = true;
  }
  options.workDir = workDir;
  options.watchHistory = static_cast<std::size_t>(history);
  options.restartBackoff = std::chrono::duration_cast<std::chrono::milliseconds>(restartBackoff);
  options.jobBackoff = std::chrono::duration_cast<std::chrono::milliseconds>(jobBackoff);
  options.eventTtl = std::chrono::duration_cast<std::chrono::seconds>(eventTtl);

  // Signals are taken by sigwait below; every thread started from here on inherits the mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  ::signal(SIGPIPE, SIG_IGN);

  kubesim::Cluster cluster(std::move(options));
  if (common::Status started = cluster.start(); !started.isOk()) return fail(started.message());

  kubesim::ApiServerOptions apiOptions;
  apiOptions.token = token;
  apiOptions.bookmarkInterval =
      std::chrono::duration_cast<std::chrono::milliseconds>(bookmarkInterval);
  kubesim::ApiServer api(cluster.api(), apiOptions, &cluster.kubelet());

  http::ServerOptions serverOptions;
  serverOptions.host = host;
  serverOptions.port = static_cast<std::uint16_t>(port);
  kubesim::KubeconfigSpec kubeconfig;
  if (tls) {
    common::Result<http::ServingCertificate> cert =
        http::generateServingCertificate({"localhost", "kubesim"}, {"127.0.0.1"});
    if (!cert.isOk()) return fail(cert.status().message());
    common::Result<http::ClientCertificate> client =
        http::generateClientCertificate(*cert, "kubesim-admin", {"system:masters"});
    if (!client.isOk()) return fail(client.status().message());
    kubeconfig.caPem = cert->caCertPem;
    kubeconfig.clientCertPem = client->certPem;
    kubeconfig.clientKeyPem = client->keyPem;
    serverOptions.clientCaPem = cert->caCertPem;
    serverOptions.tls = std::move(*cert);
  }
  common::Result<std::unique_ptr<http::Server>> server = http::Server::start(
      serverOptions, [&api](const http::Request& request, http::ResponseWriter& out) {
        api.handle(request, out);
      });
  if (!server.isOk()) return fail("cannot listen on " + listen + ": " + server.status().message());
  const std::string address = host + ":" + std::to_string((*server)->port());
  api.setAdvertiseAddress(address);
  kubeconfig.server = std::string(tls ? "https://" : "http://") + address;
  kubeconfig.token = token;
  if (!kubeconfigPath.empty()) {
    common::Status written =
        kubesim::writeFileAtomically(kubeconfigPath, kubesim::renderKubeconfig(kubeconfig));
    if (!written.isOk()) return fail(written.message());
  }
  spdlog::info("kubesim serving url={} nodes={} workDir={}", kubeconfig.server,
               cluster.api().store().list("/nodes", "").first.size(), workDir);

  int signal = 0;
  sigwait(&signals, &signal);
  spdlog::info("kubesim stopping signal={}", signal);
  api.stop();
  (*server)->stop();
  cluster.stop();
  if (ownWorkDir) {
    std::error_code ec;
    std::filesystem::remove_all(workDir, ec);
  }
  return 0;
}
