// hetbench's JSON-lines reader over any log: it never throws, reports every malformed metrics
// line, gives finite metrics or none, reads the same lines the same way every time, and counts
// no event twice when the log repeats.

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "fuzz_input.h"
#include "hetbench/results/parser.h"
#include "log_checks.h"

namespace {

namespace fuzz = hetbench::fuzz;
namespace results = hetbench::results;
using fuzz::fail;

void feed(results::LogParser& parser, const std::vector<fuzz::FuzzLine>& lines) {
  for (const fuzz::FuzzLine& line : lines) parser.consume(line.source, line.text);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::vector<fuzz::FuzzLine> lines = fuzz::fuzzLines(fuzz::asText(data, size));
  const auto parser = results::makeHetbenchParser();
  fuzz::LineNumbers numbers;
  std::vector<fuzz::LineRef> malformed;
  for (const fuzz::FuzzLine& line : lines) {
    const std::int64_t number = numbers.next(line.source);
    parser->consume(line.source, line.text);
    if (fuzz::malformedJson(line.text, results::kHetbenchMarker)) {
      malformed.emplace_back(line.source, number);
    }
  }
  const results::ParsedLog log = parser->result();
  fuzz::checkSameLog(log, parser->result(), "result() read twice");
  fuzz::checkMalformedReported(log, malformed);
  fuzz::checkLog(log);

  if (log.errors.empty()) {
    if (!log.epochs.empty() && !log.worldSize) fail("epochs without a world size");
    std::set<std::pair<std::int64_t, std::int64_t>> seen;
    for (const results::EpochSample& s : log.epochs) {
      if (s.rank >= *log.worldSize) fail("a rank beyond the world size");
      if (!seen.emplace(s.rank, s.epoch).second) fail("an epoch of a rank taken twice");
    }
  }

  const auto again = results::makeHetbenchParser();
  feed(*again, lines);
  fuzz::checkSameLog(log, again->result(), "a second reader");
  feed(*again, lines);
  const results::ParsedLog twice = again->result();
  if (twice.epochs != log.epochs || twice.run != log.run || twice.worldSize != log.worldSize) {
    fail("the log read twice took more than the log read once");
  }
  if (!log.epochs.empty() && twice.errors.empty()) fail("epochs read twice without an error");
  return 0;
}
