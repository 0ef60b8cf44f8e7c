// The MLPerf logging reader over any log: it never throws, reports every malformed MLLOG line,
// gives finite metrics or none, and reads the same lines the same way every time.

#include <cstddef>
#include <cstdint>
#include <set>
#include <vector>

#include "fuzz_input.h"
#include "hetbench/results/parser.h"
#include "log_checks.h"

namespace {

namespace fuzz = hetbench::fuzz;
namespace results = hetbench::results;
using fuzz::fail;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::vector<fuzz::FuzzLine> lines = fuzz::fuzzLines(fuzz::asText(data, size));
  const auto parser = results::makeMlperfParser();
  fuzz::LineNumbers numbers;
  std::vector<fuzz::LineRef> malformed;
  for (const fuzz::FuzzLine& line : lines) {
    const std::int64_t number = numbers.next(line.source);
    parser->consume(line.source, line.text);
    if (fuzz::malformedJson(line.text, results::kMllogMarker)) {
      malformed.emplace_back(line.source, number);
    }
  }
  const results::ParsedLog log = parser->result();
  fuzz::checkSameLog(log, parser->result(), "result() read twice");
  fuzz::checkMalformedReported(log, malformed);
  fuzz::checkLog(log);

  // MLPerf loggers print global figures: a world of one, each epoch once.
  if (log.worldSize != 1) fail("a world size other than 1");
  std::set<std::int64_t> epochs;
  for (const results::EpochSample& s : log.epochs) {
    if (s.rank != 0) fail("a rank other than 0");
    if (!epochs.insert(s.epoch).second) fail("an epoch taken twice");
  }

  const auto again = results::makeMlperfParser();
  for (const fuzz::FuzzLine& line : lines) again->consume(line.source, line.text);
  fuzz::checkSameLog(log, again->result(), "a second reader");
  return 0;
}
