// results_bench: parsing throughput of each log reader, in MB/s on one core, over a generated
// log of --mib MiB per format (default 1024). The logs are made of metrics lines only (the
// readers' worst case: every line is parsed as JSON or matched), plus a plain-text log that the
// JSON-lines reader must skip.
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench_util.h"
#include "hetbench/results/metric_spec.h"
#include "hetbench/results/parser.h"

namespace bench = hetbench::bench;
namespace common = hetbench::common;
namespace results = hetbench::results;

namespace {

/// Lines of about 1 MiB in all, made by `line(i)`, repeated by the caller up to the size asked.
template <typename Make>
std::vector<std::string> block(Make line) {
  std::vector<std::string> lines;
  std::size_t bytes = 0;
  for (std::size_t i = 0; bytes < (1u << 20); ++i) {
    lines.push_back(line(i));
    bytes += lines.back().size() + 1;
  }
  return lines;
}

void measure(const char* name, results::LogParser& parser, std::vector<std::string> lines,
             std::int64_t mib,
             const std::function<void(std::vector<std::string>&, std::int64_t)>& renumber) {
  std::size_t blockBytes = 0;
  for (const std::string& l : lines) blockBytes += l.size() + 1;
  std::size_t total = 0;
  double s = 0;  // parsing only: renumbering the block between rounds is not counted
  for (std::int64_t round = 0; total < static_cast<std::size_t>(mib) << 20; ++round) {
    if (renumber) renumber(lines, round);
    const auto start = bench::Clock::now();
    for (const std::string& l : lines) parser.consume("pod/benchmark.log", l);
    s += bench::seconds(bench::Clock::now() - start);
    total += blockBytes;
  }
  const results::ParsedLog log = parser.result();
  std::printf("  %-28s %8.1f MB/s  (%.0f MiB in %.2f s; %zu epochs, %zu scalars, %zu errors)\n",
              name, static_cast<double>(total) / 1e6 / s, static_cast<double>(total) / 1048576.0, s,
              log.epochs.size(), log.scalars.size(), log.errors.size());
}

}  // namespace

int main(int argc, char** argv) {
  std::int64_t mib = 1024;
  common::FlagSet flags("results_bench", "Parsing throughput of the log readers.");
  flags.addInt("mib", &mib, "MiB of log per format.", 1, 1 << 20);
  if (auto code = bench::parseFlags(flags, argc, argv)) return *code;
  std::printf("results_bench: %lld MiB per format, one thread\n", static_cast<long long>(mib));

  // hetbench JSON lines: epochs of 1,024 ranks; each round of the block is a new set of epochs.
  constexpr std::size_t kRanks = 1024;
  const std::string prefix = "2026-11-22T10:00:00.123456789Z ";
  auto epochLine = [&](std::size_t epoch, std::size_t rank) {
    return prefix + ":::HETBENCH {\"v\":1,\"event\":\"epoch\",\"epoch\":" + std::to_string(epoch) +
           ",\"rank\":" + std::to_string(rank) +
           ",\"samples\":1281167,\"wall_seconds\":1480.25,\"io_seconds\":310.5,"
           "\"compute_seconds\":1169.75,\"energy_joules\":402113.5}";
  };
  {
    auto parser = results::makeHetbenchParser();
    parser->consume("pod/benchmark.log",
                    prefix +
                        ":::HETBENCH {\"v\":1,\"event\":\"run_start\",\"benchmark\":\"resnet50\","
                        "\"model\":\"resnet50\",\"world_size\":1024,\"rank\":0,"
                        "\"global_batch_size\":1024,\"precision\":\"bf16\",\"device\":\"cuda\","
                        "\"accelerator\":{\"name\":\"A100\",\"count\":1024}}");
    std::vector<std::string> lines =
        block([&](std::size_t i) { return epochLine(i / kRanks, i % kRanks); });
    const std::size_t epochsPerBlock = (lines.size() + kRanks - 1) / kRanks;
    measure("hetbench JSON lines", *parser, lines, mib,
            [&](std::vector<std::string>& ls, std::int64_t round) {
              for (std::size_t i = 0; i < ls.size(); ++i)
                ls[i] = epochLine(static_cast<std::size_t>(round) * epochsPerBlock + i / kRanks,
                                  i % kRanks);
            });
  }
  {
    auto parser = results::makeHetbenchParser();
    measure("plain text (no marker)", *parser, block([&](std::size_t i) {
              return prefix + "Epoch 3 step " + std::to_string(i) +
                     " loss 2.3514 lr 0.1024 images/s 2491.7 data 0.0123 s";
            }),
            mib, nullptr);
  }
  {
    auto parser = results::makeMlperfParser();
    measure("MLPerf :::MLLOG", *parser, block([&](std::size_t i) {
              return prefix + ":::MLLOG {\"namespace\": \"\", \"time_ms\": " +
                     std::to_string(1700000000000 + i) +
                     ", \"event_type\": \"POINT_IN_TIME\", \"key\": \"tracked_stats\", \"value\": "
                     "{\"throughput\": 2491.7}, \"metadata\": {\"file\": \"train.py\", "
                     "\"lineno\": 120, \"step\": " +
                     std::to_string(i) + "}}";
            }),
            mib, nullptr);
  }
  {
    const std::vector<results::MetricSpec> specs =
        results::parseMetricSpecs(
            nlohmann::json::array(
                {{{"name", "speed"}, {"pattern", "Processing Speed: ([0-9.]+)"}},
                 {{"name", "io_time"}, {"pattern", "Total IO Time: ([0-9.]+)"}, {"unit", "s"}}}))
            .value();
    auto parser = std::move(results::makePatternParser(specs)).value();
    measure("patterns (2 RE2 patterns)", *parser, block([&](std::size_t i) {
              return prefix + (i % 2 ? "Processing Speed: 179.7 images/sec"
                                     : "Total IO Time: 12.3 s, epoch " + std::to_string(i));
            }),
            mib, nullptr);
  }
  return 0;
}
