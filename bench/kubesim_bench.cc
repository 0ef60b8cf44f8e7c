// kubesim_bench: how fast kubesim serves the API on loopback. Prints requests per second,
// watch fan-out throughput and the memory of a store holding many pods.
#include <spdlog/spdlog.h>
#include <sys/resource.h>

#include <atomic>
#include <cstdio>
#include <thread>

#include "bench_util.h"
#include "hetbench/common/flags.h"
#include "testing/harness.h"

namespace common = hetbench::common;
namespace http = hetbench::http;
namespace kubesim = hetbench::kubesim;
using hetbench::bench::Clock;
using hetbench::bench::residentKiB;
using hetbench::bench::seconds;
using kubesim::testing::Harness;
using nlohmann::json;

namespace {

long peakRssKiB() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

// Keep-alive GETs of one object from `clients` connections.
void benchRequests(Harness& h, std::int64_t requests, std::int64_t clients) {
  h.post("/api/v1/namespaces/default/configmaps",
         kubesim::testing::configMap("bench", {{"k", std::string(512, 'x')}}));
  const std::string request =
      "GET /api/v1/namespaces/default/configmaps/bench HTTP/1.1\r\nHost: 127.0.0.1\r\n"
      "Accept: application/json\r\n\r\n";
  std::atomic<std::int64_t> ok{0}, errors{0};
  const auto start = Clock::now();
  std::vector<std::thread> threads;
  for (std::int64_t c = 0; c < clients; ++c) {
    threads.emplace_back([&, c] {
      auto conn = http::testing::TestConnection::connect(h.port());
      const std::int64_t mine = requests / clients + (c < requests % clients ? 1 : 0);
      for (std::int64_t i = 0; i < mine; ++i) {
        if (!conn || !conn->sendAll(request)) {
          ++errors;
          continue;
        }
        std::optional<kubesim::testing::Response> r = conn->readResponse();
        (r && r->status == 200 ? ok : errors)++;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  const double elapsed = seconds(Clock::now() - start);
  std::printf(
      "requests: %lld GETs from %lld keep-alive clients in %.2f s = %.0f requests/s (%lld "
      "errors)\n",
      static_cast<long long>(ok.load()), static_cast<long long>(clients), elapsed,
      static_cast<double>(ok.load()) / elapsed, static_cast<long long>(errors.load()));
}

// `watchers` watches of configmaps in one namespace receive every one of `events` creations.
void benchWatch(Harness& h, std::int64_t watchers, std::int64_t events) {
  h.post("/api/v1/namespaces",
         {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "watched"}}}});
  const std::uint64_t from = h.api().store().currentVersion();
  std::vector<std::unique_ptr<http::testing::TestConnection>> streams;
  for (std::int64_t w = 0; w < watchers; ++w) {
    kubesim::testing::Response head;
    streams.push_back(h.stream(
        "/api/v1/namespaces/watched/configmaps?watch=true&resourceVersion=" + std::to_string(from),
        &head));
  }
  std::atomic<std::int64_t> received{0};
  std::vector<std::thread> readers;
  for (auto& s : streams) {
    readers.emplace_back([&, conn = s.get()] {
      std::int64_t seen = 0;
      std::string pending;
      while (seen < events) {
        std::optional<std::string> chunk = conn->readChunk();
        if (!chunk || chunk->empty()) break;
        pending += *chunk;
        std::size_t nl;
        while ((nl = pending.find('\n')) != std::string::npos) {
          pending.erase(0, nl + 1);
          ++seen;
        }
      }
      received += seen;
    });
  }
  const auto start = Clock::now();
  const kubesim::ResourceType cm = *h.api().typeOf("", "configmaps");
  for (std::int64_t i = 0; i < events; ++i) {
    (void)h.api().create(cm, "watched", kubesim::testing::configMap("e" + std::to_string(i)), {});
  }
  const double written = seconds(Clock::now() - start);
  for (std::thread& t : readers) t.join();
  const double elapsed = seconds(Clock::now() - start);
  std::printf(
      "watch: %lld events to each of %lld watchers: %lld delivered in %.2f s = %.0f "
      "events/s delivered (writes took %.2f s)\n",
      static_cast<long long>(events), static_cast<long long>(watchers),
      static_cast<long long>(received.load()), elapsed,
      static_cast<double>(received.load()) / elapsed, written);
}

// Memory of the store with `count` pods that no scheduler picks up.
void benchMemory(Harness& h, std::int64_t count) {
  const long before = residentKiB();
  const kubesim::ResourceType pods = *h.api().typeOf("", "pods");
  const auto start = Clock::now();
  for (std::int64_t i = 0; i < count; ++i) {
    json pod = kubesim::testing::commandPod("p" + std::to_string(i), "sleep 1");
    pod["spec"]["schedulerName"] = "none";
    pod["metadata"]["labels"] = {{"app", "bench"}, {"index", std::to_string(i)}};
    (void)h.api().create(pods, "default", pod, {});
  }
  const double elapsed = seconds(Clock::now() - start);
  const long after = residentKiB();
  kubesim::testing::Response list =
      h.get("/api/v1/namespaces/default/pods?labelSelector=app%3Dbench&limit=500");
  std::printf(
      "memory: %lld pods created in %.2f s; resident %ld MiB -> %ld MiB (%.1f KiB per pod); "
      "peak resident %ld MiB; first page of 500 listed: %s\n",
      static_cast<long long>(count), elapsed, before / 1024, after / 1024,
      static_cast<double>(after - before) / static_cast<double>(count), peakRssKiB() / 1024,
      list.status == 200 ? "ok" : "failed");
}

}  // namespace

int main(int argc, char** argv) {
  common::FlagSet flags("kubesim_bench", "Prints kubesim's throughput and memory figures.");
  std::int64_t requests = 20000, clients = 4, watchers = 10, events = 2000, pods = 10000;
  flags.addInt("requests", &requests, "GET requests to send.", 1, 10000000);
  flags.addInt("clients", &clients, "Concurrent keep-alive connections.", 1, 256);
  flags.addInt("watchers", &watchers, "Concurrent watches.", 1, 1000);
  flags.addInt("events", &events, "Objects created while watched.", 1, 1000000);
  flags.addInt("pods", &pods, "Pods stored for the memory figure.", 1, 1000000);
  if (std::optional<int> exit = hetbench::bench::parseFlags(flags, argc, argv)) return *exit;
  spdlog::set_level(spdlog::level::warn);
  Harness::Options options;
  options.config.nodes.clear();
  options.watchHistory = static_cast<std::size_t>(events) + 1000;
  Harness h(options);
  std::printf("kubesim_bench on %u hardware threads (client and server share them)\n",
              std::thread::hardware_concurrency());
  benchRequests(h, requests, clients);
  benchWatch(h, watchers, events);
  benchMemory(h, pods);
  return 0;
}
