#include "hetbench/common/duration.h"

#include <cstdint>
#include <limits>

namespace hetbench::common {
namespace {

constexpr std::uint64_t kMaxNanos = std::numeric_limits<std::int64_t>::max();

struct Unit {
  std::string_view name;
  std::uint64_t nanos;
};

constexpr Unit kUnits[] = {
    {"ns", 1},
    {"us", 1'000},
    {"\xC2\xB5s", 1'000},  // U+00B5 micro sign
    {"\xCE\xBCs", 1'000},  // U+03BC Greek mu
    {"ms", 1'000'000},
    {"s", 1'000'000'000},
    {"m", 60'000'000'000},
    {"h", 3'600'000'000'000},
};

Status bad(std::string_view text, std::string_view why) {
  return invalidError("invalid duration \"" + std::string(text) + "\": " + std::string(why));
}

bool isDigit(char c) { return c >= '0' && c <= '9'; }

// Writes v / 10^prec with its fraction (trailing zeros dropped) into out.
void appendFraction(std::string& out, std::uint64_t v, int prec) {
  std::uint64_t scale = 1;
  for (int i = 0; i < prec; ++i) scale *= 10;
  out += std::to_string(v / scale);
  std::uint64_t frac = v % scale;
  if (frac == 0) return;
  std::string digits(static_cast<std::size_t>(prec), '0');
  for (int i = prec - 1; i >= 0; --i) {
    digits[static_cast<std::size_t>(i)] = static_cast<char>('0' + frac % 10);
    frac /= 10;
  }
  while (!digits.empty() && digits.back() == '0') digits.pop_back();
  out += '.';
  out += digits;
}

}  // namespace

Result<std::chrono::nanoseconds> parseDuration(std::string_view text) {
  std::string_view s = text;
  if (s.empty()) return bad(text, "empty string, expected a number with a unit such as \"90s\"");
  if (s.front() == '-') return bad(text, "negative durations are not allowed");
  if (s.front() == '+') s.remove_prefix(1);
  if (s == "0") return std::chrono::nanoseconds(0);
  if (s.empty()) return bad(text, "a sign alone is not a duration");

  std::uint64_t total = 0;
  while (!s.empty()) {
    if (!isDigit(s.front()) && s.front() != '.') {
      return bad(text, "expected a number at \"" + std::string(s) + "\"");
    }
    std::uint64_t whole = 0;
    bool wholeDigits = false;
    bool overflow = false;
    while (!s.empty() && isDigit(s.front())) {
      const std::uint64_t digit = static_cast<std::uint64_t>(s.front() - '0');
      if (whole > (kMaxNanos - digit) / 10) overflow = true;
      if (!overflow) whole = whole * 10 + digit;
      wholeDigits = true;
      s.remove_prefix(1);
    }
    if (overflow) return bad(text, "value out of range");
    std::uint64_t frac = 0;
    double fracScale = 1;
    bool fracDigits = false;
    if (!s.empty() && s.front() == '.') {
      s.remove_prefix(1);
      while (!s.empty() && isDigit(s.front())) {
        // Digits past 18 cannot change the result at nanosecond resolution.
        if (frac < 100'000'000'000'000'000ULL) {
          frac = frac * 10 + static_cast<std::uint64_t>(s.front() - '0');
          fracScale *= 10;
        }
        fracDigits = true;
        s.remove_prefix(1);
      }
    }
    if (!wholeDigits && !fracDigits) return bad(text, "a '.' needs digits");

    std::size_t unitLength = 0;
    while (unitLength < s.size() && s[unitLength] != '.' && !isDigit(s[unitLength])) {
      ++unitLength;
    }
    const std::string_view unitName = s.substr(0, unitLength);
    if (unitName.empty()) {
      return bad(text, "missing unit (one of ns, us, ms, s, m, h)");
    }
    const Unit* unit = nullptr;
    for (const Unit& u : kUnits) {
      if (u.name == unitName) unit = &u;
    }
    if (unit == nullptr) {
      return bad(text,
                 "unknown unit \"" + std::string(unitName) + "\" (use one of ns, us, ms, s, m, h)");
    }
    s.remove_prefix(unitLength);

    if (whole > kMaxNanos / unit->nanos) return bad(text, "value out of range");
    std::uint64_t value = whole * unit->nanos;
    if (fracDigits) {
      const double extra =
          static_cast<double>(frac) * (static_cast<double>(unit->nanos) / fracScale);
      value += static_cast<std::uint64_t>(extra);
      if (value > kMaxNanos) return bad(text, "value out of range");
    }
    if (value > kMaxNanos - total) return bad(text, "value out of range");
    total += value;
  }
  return std::chrono::nanoseconds(static_cast<std::int64_t>(total));
}

std::string formatDuration(std::chrono::nanoseconds d) {
  const std::int64_t n = d.count();
  std::string out;
  if (n < 0) out += '-';
  // Two's complement: the magnitude of INT64_MIN still fits in uint64.
  const std::uint64_t u =
      n < 0 ? ~static_cast<std::uint64_t>(n) + 1 : static_cast<std::uint64_t>(n);
  if (u == 0) return "0s";
  if (u < 1'000) return out + std::to_string(u) + "ns";
  if (u < 1'000'000) {
    appendFraction(out, u, 3);
    return out + "\xC2\xB5s";
  }
  if (u < 1'000'000'000) {
    appendFraction(out, u, 6);
    return out + "ms";
  }
  const std::uint64_t seconds = u / 1'000'000'000;
  const std::uint64_t hours = seconds / 3600;
  const std::uint64_t minutes = (seconds / 60) % 60;
  if (hours > 0) out += std::to_string(hours) + "h";
  if (hours > 0 || minutes > 0) out += std::to_string(minutes) + "m";
  appendFraction(out, (seconds % 60) * 1'000'000'000 + u % 1'000'000'000, 9);
  return out + "s";
}

}  // namespace hetbench::common
