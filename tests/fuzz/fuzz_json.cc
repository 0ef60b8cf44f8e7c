// The metrics readers' JSON scanner (operator/results/src/flat_json.h) against nlohmann::json,
// the parser it stands in for. Whatever the scanner reads, nlohmann::json reads with the same
// members and values; whatever it refuses, nlohmann::json refuses. The reader around it
// (MarkedJsonReader: the scanner, and nlohmann::json for what the scanner leaves) takes a line
// exactly when the documented rules and nlohmann::json take it, with the same members.

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "flat_json.h"
#include "flat_json_testing.h"
#include "fuzz_input.h"
#include "hetbench/results/parser.h"
#include "log_checks.h"
#include "log_text.h"

namespace {

using hetbench::fuzz::fail;
using hetbench::results::internal::differences;
using hetbench::results::internal::FlatJson;
using hetbench::results::internal::JsonScan;

const char* describe(JsonScan scan) {
  switch (scan) {
    case JsonScan::kObject:
      return "an object";
    case JsonScan::kInvalid:
      return "invalid";
    case JsonScan::kUnsupported:
      break;
  }
  return "unsupported";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = hetbench::fuzz::asText(data, size);

  FlatJson scanner;
  const JsonScan scanned = scanner.scan(text);
  std::optional<nlohmann::json> parsed;
  try {
    parsed = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception&) {
  }
  FlatJson dom;
  if (scanned == JsonScan::kObject) {
    if (!parsed || !parsed->is_object()) fail("the scanner read what nlohmann::json refuses");
    dom.assign(*parsed);
    if (const std::string d = differences(scanner.root(), dom.root()); !d.empty()) {
      fail("the scanner and nlohmann::json read different objects: " + d);
    }
  } else if (scanned == JsonScan::kInvalid && parsed) {
    fail("the scanner refused what nlohmann::json reads");
  }

  // A scanner that read something else first reads the same: nothing of one line stays.
  FlatJson reused;
  (void)reused.scan(text.substr(0, text.size() / 2));
  const JsonScan again = reused.scan(text);
  if (again != scanned) {
    fail(std::string("a reused scanner says ") + describe(again) + ", a fresh one " +
         describe(scanned));
  }
  if (again == JsonScan::kObject) {
    if (const std::string d = differences(reused.root(), scanner.root()); !d.empty()) {
      fail("a reused scanner read another object: " + d);
    }
  }

  // The reader of metrics lines, scanner and fallback together.
  const std::string line =
      std::string(hetbench::results::kHetbenchMarker) + " " + std::string(text);
  const std::string_view logText = hetbench::results::internal::logText(line);
  hetbench::results::internal::MarkedJsonReader reader(hetbench::results::kHetbenchMarker);
  const std::optional<std::string> error = reader.read(logText);
  if (!error) fail("the reader found no marker");
  const bool malformed = hetbench::fuzz::malformedJson(line, hetbench::results::kHetbenchMarker);
  if (error->empty() && malformed) fail("the reader took a malformed line");
  if (!error->empty() && !malformed) fail("the reader refused a well-formed line: " + *error);
  if (error->empty()) {
    if (!parsed) fail("the reader took a line that nlohmann::json refuses");
    dom.assign(*parsed);
    if (const std::string d = differences(reader.object(), dom.root()); !d.empty()) {
      fail("the reader and nlohmann::json read different objects: " + d);
    }
  }
  return 0;
}
