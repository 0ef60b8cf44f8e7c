#include "log_text.h"

#include <cstddef>
#include <utility>

#include "hetbench/common/time.h"

namespace hetbench::results::internal {
namespace {

// "2026-01-02T03:04:05Z" to "2026-01-02T03:04:05.123456789+01:00".
constexpr std::size_t kMinTimestamp = 20;
constexpr std::size_t kMaxTimestamp = 35;

bool looksLikeTimestamp(std::string_view text) {
  return text.size() >= kMinTimestamp && text.size() <= kMaxTimestamp && text[4] == '-' &&
         text[10] == 'T' && common::parseRfc3339(text).isOk();
}

// Whether the arrays and objects of `text` nest at most `limit` deep; brackets inside strings
// do not count. Linear, so that the check cannot be the expensive part.
bool nestsWithin(std::string_view text, std::size_t limit) {
  std::size_t depth = 0;
  bool inString = false;
  bool escaped = false;
  for (char c : text) {
    if (inString) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        inString = false;
      }
    } else if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return false;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return true;
}

}  // namespace

std::string_view logText(std::string_view line) {
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
  const std::size_t space = line.find(' ');
  if (space != std::string_view::npos && looksLikeTimestamp(line.substr(0, space))) {
    line.remove_prefix(space + 1);
  }
  return line;
}

std::optional<std::string> MarkedJsonReader::read(std::string_view text) {
  const std::size_t at = text.find(marker_);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view payload = text.substr(at + marker_.size());
  if (payload.empty() || payload.front() != ' ') {
    return std::string(marker_) + " must be followed by one space and a JSON object";
  }
  payload.remove_prefix(1);
  if (payload.size() > kMaxMetricsLineBytes) {
    return "the JSON object is longer than " + std::to_string(kMaxMetricsLineBytes) + " bytes";
  }
  // An object the scanner reads nests two levels deep at most, within kMaxJsonDepth.
  if (json_.scan(payload) == JsonScan::kObject) return std::string();
  if (!nestsWithin(payload, kMaxJsonDepth)) {
    return "the JSON object nests deeper than " + std::to_string(kMaxJsonDepth) + " levels";
  }
  try {
    dom_ = nlohmann::json::parse(payload);
  } catch (const nlohmann::json::parse_error& e) {
    // e.what() may quote the offending bytes, which need not be UTF-8: the position is enough.
    return "invalid JSON at byte " + std::to_string(e.byte) + " after the marker";
  } catch (const nlohmann::json::out_of_range&) {
    return "invalid JSON: a number out of range";
  }
  if (!dom_.is_object()) return "not a JSON object";
  json_.assign(dom_);
  return std::string();
}

LineNumber LineCounter::next(std::string_view source) {
  if (last_ >= sources_.size() || sources_[last_].name != source) {
    auto it = ids_.find(source);
    if (it == ids_.end()) {
      it = ids_.emplace(std::string(source), sources_.size()).first;
      sources_.push_back({std::string(source), 0});
    }
    last_ = it->second;
  }
  return {last_, ++sources_[last_].lines};
}

void ErrorList::add(std::string_view source, std::int64_t line, std::string message) {
  if (errors_.size() < kMaxLineErrors) {
    errors_.push_back({std::string(source), line, std::move(message)});
  } else {
    ++omitted_;
  }
}

void ErrorList::moveInto(ParsedLog& log) && {
  log.errors = std::move(errors_);
  log.errorsOmitted = omitted_;
}

}  // namespace hetbench::results::internal
