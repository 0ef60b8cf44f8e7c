// The pattern reader (spec.metrics) over any log, with the patterns of EPCC's and Graphcore's
// benchmarks and a few that capture anything: it never throws, takes exactly what RE2 matches,
// reports every capture that is not a number, gives finite metrics or none, and reads the same
// lines the same way every time.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "fuzz_input.h"
#include "hetbench/results/metric_spec.h"
#include "hetbench/results/parser.h"
#include "log_checks.h"
#include "pattern_oracle.h"

namespace {

namespace fuzz = hetbench::fuzz;
namespace results = hetbench::results;

const std::vector<results::MetricSpec>& specs() {
  static const std::vector<results::MetricSpec> kSpecs =
      results::parseMetricSpecs(nlohmann::json::parse(R"json([
        {"name": "effective_throughput", "pattern": "^Processing Speed: ([0-9.]+)", "reduce": "last"},
        {"name": "io_seconds", "pattern": "^Total IO Time: ([0-9.]+)", "reduce": "sum"},
        {"name": "ipu_throughput", "pattern": "throughput: ([0-9.]+) samples/sec", "unit": "samples/s"},
        {"name": "loss", "pattern": "loss[:=] *([^ ]+)", "reduce": "min"},
        {"name": "step", "pattern": "step ([-+0-9.eE]+)", "reduce": "max"},
        {"name": "first_number", "pattern": "[0-9]+(\\.[0-9]*)?", "group": 0, "reduce": "first"}
      ])json"))
          .value();
  return kSpecs;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const fuzz::PatternOracle oracle(specs());
  const std::vector<fuzz::FuzzLine> lines = fuzz::fuzzLines(fuzz::asText(data, size));
  const std::unique_ptr<results::LogParser> parser =
      std::move(results::makePatternParser(specs())).value();
  for (const fuzz::FuzzLine& line : lines) parser->consume(line.source, line.text);
  const results::ParsedLog log = parser->result();
  fuzz::checkSameLog(log, parser->result(), "result() read twice");
  oracle.check(lines, log);
  fuzz::checkLog(log);

  const std::unique_ptr<results::LogParser> again =
      std::move(results::makePatternParser(specs())).value();
  for (const fuzz::FuzzLine& line : lines) again->consume(line.source, line.text);
  fuzz::checkSameLog(log, again->result(), "a second reader");
  return 0;
}
