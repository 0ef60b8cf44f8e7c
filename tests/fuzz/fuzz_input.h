#pragma once

// How the fuzz targets read their input, and how they report a broken property: a message and
// abort(), which libFuzzer takes for a crash and keeps the input of.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace hetbench::fuzz {

[[noreturn]] inline void fail(const std::string& what) {
  std::fprintf(stderr, "property broken: %s\n", what.c_str());
  std::abort();
}

/// The most that the `<<N|text>>` repeats of one input expand to.
inline constexpr std::size_t kMaxExpandedBytes = std::size_t{4} << 20;
/// The most copies one repeat makes.
inline constexpr std::size_t kMaxRepeat = std::size_t{1} << 20;

/// `text` with each `<<N|s>>` replaced by N copies of s, so that a short input stands for a
/// huge line (`<<100000|[>>` for a deep one); `budget` bytes of copies are left for the input.
inline std::string expand(std::string_view text, std::size_t& budget) {
  std::string out;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t open = text.find("<<", at);
    const std::size_t bar = open == std::string_view::npos ? open : text.find('|', open + 2);
    const std::size_t close = bar == std::string_view::npos ? bar : text.find(">>", bar + 1);
    if (close == std::string_view::npos) break;
    const std::string_view count = text.substr(open + 2, bar - open - 2);
    std::size_t n = 0;
    bool number = !count.empty() && count.size() <= 7;
    for (char c : count) {
      number = number && c >= '0' && c <= '9';
      n = n * 10 + static_cast<std::size_t>(c - '0');
    }
    if (!number) {
      out.append(text.substr(at, open + 2 - at));
      at = open + 2;
      continue;
    }
    out.append(text.substr(at, open - at));
    const std::string_view unit = text.substr(bar + 1, close - bar - 1);
    for (std::size_t i = 0; i < n && i < kMaxRepeat && unit.size() <= budget; ++i) {
      if (unit.empty()) break;
      out.append(unit);
      budget -= unit.size();
    }
    at = close + 2;
  }
  if (at < text.size()) out.append(text.substr(at));
  return out;
}

/// One line of a log and its source.
struct FuzzLine {
  std::string source;
  std::string text;
};

/// The lines of an input, split at '\n' and expanded. A line that starts with a digit and '|'
/// ("1|...") comes from source "w" and that digit, any other from "w0", so that the sources of
/// a multi-node unit interleave.
inline std::vector<FuzzLine> fuzzLines(std::string_view input) {
  std::vector<FuzzLine> lines;
  std::size_t budget = kMaxExpandedBytes;
  std::size_t at = 0;
  while (at <= input.size()) {
    std::size_t end = input.find('\n', at);
    if (end == std::string_view::npos) end = input.size();
    std::string_view line = input.substr(at, end - at);
    std::string source = "w0";
    if (line.size() >= 2 && line[0] >= '0' && line[0] <= '9' && line[1] == '|') {
      source = std::string("w") + line[0];
      line.remove_prefix(2);
    }
    lines.push_back({std::move(source), expand(line, budget)});
    at = end + 1;
  }
  return lines;
}

inline std::string_view asText(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace hetbench::fuzz
