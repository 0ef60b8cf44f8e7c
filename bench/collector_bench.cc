// What following N running containers costs the operator's log collector: its threads, its
// resident memory and the log bytes per second it keeps (issue 19, defect 9). The containers are
// a stub API server in a child process (forked before any thread starts, so that the figures are
// the collector's alone) whose every pod has written one timestamped line per interval since the
// server started: as a kubelet, it sends a request with sinceTime the lines from that second on,
// then follows. So a stream that waited for its turn is sent what it missed, and the kept rate
// says whether the pool keeps up with what is offered.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "bench_util.h"
#include "hetbench/common/clock.h"
#include "hetbench/common/time.h"
#include "hetbench/http/server.h"
#include "hetbench/kube/rest_client.h"
#include "hetbench/logs/collector.h"

namespace {

using hetbench::bench::Clock;
using nlohmann::json;
namespace common = hetbench::common;
namespace http = hetbench::http;

/// The threads of this process now.
int threads() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("Threads:", 0) == 0) return std::stoi(line.substr(8));
  return -1;
}

/// Serves GET .../pods/NAME/log?follow=true...: line i written at start + i * interval, those
/// from sinceTime's second on at once, then each at its time, until the client goes. Runs in
/// the child until it is killed.
[[noreturn]] void serveLogs(int ready, std::size_t streams, std::chrono::milliseconds interval) {
  http::ServerOptions options;
  options.maxConnections = streams + 64;
  const auto start = std::chrono::system_clock::now();
  auto server = http::Server::start(
      options, [interval, start](const http::Request& request, http::ResponseWriter& out) {
        if (request.path.find("/log") == std::string::npos) {
          out.send(404, {{"Content-Type", "application/json"}}, "{}");
          return;
        }
        std::uint64_t first = 0;
        if (const auto since = request.queryParam("sinceTime")) {
          if (auto time = common::parseRfc3339(*since); time.isOk()) {
            const auto second = std::chrono::floor<std::chrono::seconds>(time.value());
            if (second > start) first = static_cast<std::uint64_t>((second - start) / interval);
          }
        }
        if (!out.startStream(200, {{"Content-Type", "text/plain"}})) return;
        const std::string text(100, 'x');
        for (std::uint64_t i = first;; ++i) {
          const auto at = start + i * interval;
          std::this_thread::sleep_until(at);
          const std::string line = common::formatRfc3339(at, common::TimePrecision::kNanosFixed) +
                                   " line " + std::to_string(i) + " " + text + "\n";
          if (!out.write(line)) return;
        }
      });
  const std::uint16_t port = server.isOk() ? server.value()->port() : 0;
  (void)!::write(ready, &port, sizeof port);
  for (;;) ::pause();
}

/// The log files under `dir` that hold something.
std::int64_t keptLogs(const std::string& dir) {
  std::int64_t count = 0;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (it->path().extension() == ".log" && it->file_size(ec) > 0) ++count;
  }
  return count;
}

json runningPod(std::size_t i) {
  return {
      {"metadata",
       {{"namespace", "bench"}, {"name", "p" + std::to_string(i)}, {"uid", std::to_string(i)}}},
      {"status",
       {{"phase", "Running"},
        {"containerStatuses", {{{"name", "main"}, {"state", {{"running", json::object()}}}}}}}}};
}

}  // namespace

int main(int argc, char** argv) {
  std::int64_t streams = 100;
  std::int64_t intervalMs = 100;
  std::int64_t windowS = 5;
  std::int64_t logStreams = 256;
  std::string dir = "/tmp/hetbench-collector-bench";
  common::FlagSet flags("collector_bench",
                        "Follows N container logs from a stub API server and prints the "
                        "collector's threads, resident memory and kept bytes per second.");
  flags.addInt("streams", &streams, "Containers followed at once.", 1, 100000);
  flags.addInt("interval-ms", &intervalMs, "Each container prints a line this often.", 1, 60000);
  flags.addInt("window", &windowS, "Seconds over which the rate is measured.", 1, 3600);
  flags.addInt("log-streams", &logStreams,
               "The collector's workers (CollectorOptions::maxStreams).", 1, 100000);
  flags.addString("dir", &dir, "Scratch log directory (emptied first and last).");
  if (auto code = hetbench::bench::parseFlags(flags, argc, argv)) return *code;

  int pipeFds[2];
  if (::pipe(pipeFds) != 0) return 1;
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(pipeFds[0]);
    serveLogs(pipeFds[1], static_cast<std::size_t>(streams), std::chrono::milliseconds(intervalMs));
  }
  ::close(pipeFds[1]);
  std::uint16_t port = 0;
  if (::read(pipeFds[0], &port, sizeof port) != sizeof port || port == 0) {
    std::fprintf(stderr, "the stub API server did not start\n");
    return 1;
  }
  std::filesystem::remove_all(dir);
  const int threadsBefore = threads();
  const long rssBefore = hetbench::bench::residentKiB();

  common::SystemClock clock;
  hetbench::kube::RestConfig config;
  config.server = "http://127.0.0.1:" + std::to_string(port);
  hetbench::kube::RestClientOptions clientOptions;
  clientOptions.qps = 100000;
  clientOptions.burst = 100000;
  auto client = hetbench::kube::makeRestClient(config, clientOptions, clock);
  if (!client.isOk()) return 1;
  int status = 0;
  {
    hetbench::logs::CollectorOptions options{dir};
    options.maxStreams = static_cast<std::size_t>(logStreams);
    hetbench::logs::LogCollector collector(*client.value(), options);
    const auto started = Clock::now();
    for (std::int64_t i = 0; i < streams; ++i)
      collector.track(runningPod(static_cast<std::size_t>(i)), "bench/run/uid/0-0");
    const double trackS = hetbench::bench::seconds(Clock::now() - started);
    // Every stream has written (has had a turn, when they take turns) before the window opens.
    while (keptLogs(dir) < streams && Clock::now() - started < std::chrono::seconds(600)) {
      std::this_thread::sleep_for(std::chrono::seconds(1));
    }
    const std::uint64_t bytesBefore = collector.bytesWritten();
    const auto windowStart = Clock::now();
    std::this_thread::sleep_for(std::chrono::seconds(windowS));
    const double rate = static_cast<double>(collector.bytesWritten() - bytesBefore) /
                        hetbench::bench::seconds(Clock::now() - windowStart);
    const int threadsFollowing = threads();
    const long rssFollowing = hetbench::bench::residentKiB();
    const std::size_t active = collector.activeStreams();
    const std::size_t workers = collector.workers();
    const auto stopping = Clock::now();
    collector.stop();
    const double stopS = hetbench::bench::seconds(Clock::now() - stopping);
    std::printf(
        "streams %lld over %zu workers (a line of about 140 bytes every %lld ms each, %.2f MB/s "
        "offered): active %zu; threads %d (%d before); resident %.1f MiB (%.1f before); kept "
        "%.2f MB/s; track %.2f s, stop %.2f s\n",
        static_cast<long long>(streams), workers, static_cast<long long>(intervalMs),
        static_cast<double>(streams) * 140 * 1000 / static_cast<double>(intervalMs) / 1e6, active,
        threadsFollowing, threadsBefore, rssFollowing / 1024.0, rssBefore / 1024.0, rate / 1e6,
        trackS, stopS);
  }
  ::kill(child, SIGKILL);
  ::waitpid(child, &status, 0);
  std::filesystem::remove_all(dir);
  return 0;
}
