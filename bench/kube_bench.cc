// kube_bench: the Kubernetes client against kubesim on loopback. Prints the informer's initial
// sync time for many pods, watch events processed per second, and the memory of its cache.
#include <spdlog/spdlog.h>

#include <atomic>
#include <cstdio>
#include <thread>

#include "bench_util.h"
#include "hetbench/common/flags.h"
#include "hetbench/kube/informer.h"
#include "hetbench/kube/rest_client.h"
#include "testing/harness.h"

namespace common = hetbench::common;
namespace kube = hetbench::kube;
namespace kubesim = hetbench::kubesim;
using hetbench::bench::Clock;
using hetbench::bench::residentKiB;
using hetbench::bench::seconds;
using nlohmann::json;

namespace {}  // namespace

int main(int argc, char** argv) {
  common::FlagSet flags("kube_bench",
                        "Prints the Kubernetes client's sync, watch and memory figures.");
  std::int64_t pods = 10000, updates = 10000;
  flags.addInt("pods", &pods, "Pods stored before the informer starts.", 1, 1000000);
  flags.addInt("updates", &updates, "Pod updates streamed to the informer.", 1, 10000000);
  if (std::optional<int> exit = hetbench::bench::parseFlags(flags, argc, argv)) return *exit;
  spdlog::set_level(spdlog::level::warn);
  kubesim::testing::Harness::Options options;
  options.config.nodes.clear();
  options.watchHistory = static_cast<std::size_t>(updates) + 1000;
  kubesim::testing::Harness h(options);
  const kubesim::ResourceType podType = *h.api().typeOf("", "pods");
  for (std::int64_t i = 0; i < pods; ++i) {
    json pod = kubesim::testing::commandPod("p" + std::to_string(i), "sleep 1");
    pod["spec"]["schedulerName"] = "none";
    pod["metadata"]["labels"] = {{"hetbench.io/run", "run" + std::to_string(i % 100)}};
    (void)h.api().create(podType, "default", pod, {});
  }

  common::SystemClock clock;
  common::SeededRandom random(1);
  kube::RestConfig config;
  config.server = "http://127.0.0.1:" + std::to_string(h.port());
  kube::RestClientOptions clientOptions;
  clientOptions.qps = 0;
  std::unique_ptr<kube::KubeClient> client =
      kube::makeRestClient(config, clientOptions, clock).value();
  kube::InformerOptions informerOptions;
  informerOptions.ns = "default";
  kube::Informer informer(*client, kube::resources::kPods, informerOptions, clock, random);
  informer.addIndex("run", [](const json& o) {
    return std::vector<std::string>{o["metadata"]["labels"].value("hetbench.io/run", "")};
  });
  std::atomic<std::int64_t> seen{0};
  informer.addHandlers({nullptr, [&](const json&, const json&) { ++seen; }, nullptr});

  const long before = residentKiB();
  const auto start = Clock::now();
  informer.start();
  if (!informer.waitForSync(std::chrono::minutes(5))) {
    std::fputs("kube_bench: the informer did not sync\n", stderr);
    return 1;
  }
  const double sync = seconds(Clock::now() - start);
  const long after = residentKiB();
  std::printf(
      "sync: %lld pods listed (pages of 500) and cached in %.2f s; resident +%ld MiB "
      "(%.1f KiB per cached pod, kubesim's copy included in neither figure)\n",
      static_cast<long long>(informer.list().size()), sync, (after - before) / 1024,
      static_cast<double>(after - before) / static_cast<double>(pods));

  const auto streamStart = Clock::now();
  // Written straight to kubesim's store (no admission), so the figure is the informer's pace.
  for (std::int64_t i = 0; i < updates; ++i) {
    const std::string name = "p" + std::to_string(i % pods);
    (void)h.api().store().mutate(
        podType.storageKey(), "default", name,
        [&](const std::optional<json>& current) -> common::Result<std::optional<json>> {
          if (!current) return current;
          json next = *current;
          next["metadata"]["annotations"]["bench"] = std::to_string(i);
          return std::optional<json>(std::move(next));
        });
  }
  const double written = seconds(Clock::now() - streamStart);
  while (seen.load() < updates && seconds(Clock::now() - streamStart) < 300) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  const double elapsed = seconds(Clock::now() - streamStart);
  std::printf(
      "watch: %lld updates processed by the informer in %.2f s = %.0f events/s "
      "(writing them took %.2f s); index lookup of one run: %zu pods\n",
      static_cast<long long>(seen.load()), elapsed, static_cast<double>(seen.load()) / elapsed,
      written, informer.byIndex("run", "run7").size());
  informer.stop();
  return 0;
}
