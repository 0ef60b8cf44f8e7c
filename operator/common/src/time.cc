#include "hetbench/common/time.h"

#include <chrono>
#include <cstdio>

namespace hetbench::common {
namespace {

using std::chrono::days;
using std::chrono::nanoseconds;

Status bad(std::string_view text, std::string_view why) {
  return invalidError("invalid RFC 3339 time \"" + std::string(text) + "\": " + std::string(why));
}

// Reads exactly `width` digits at `pos`.
bool readNumber(std::string_view s, std::size_t pos, std::size_t width, int* out) {
  if (pos + width > s.size()) return false;
  int v = 0;
  for (std::size_t i = pos; i < pos + width; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (s[i] - '0');
  }
  *out = v;
  return true;
}

bool expectChar(std::string_view s, std::size_t pos, char a, char b = '\0') {
  return pos < s.size() && (s[pos] == a || (b != '\0' && s[pos] == b));
}

// The years whose every instant fits in a signed 64-bit nanosecond count.
constexpr int kMinYear = 1678;
constexpr int kMaxYear = 2261;

}  // namespace

std::string formatRfc3339(WallTime t, TimePrecision precision) {
  const auto ns = std::chrono::time_point_cast<nanoseconds>(t);
  const auto day = std::chrono::floor<days>(ns);
  const std::chrono::year_month_day ymd{day};
  const std::chrono::hh_mm_ss hms{ns - day};
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%04d-%02u-%02uT%02ld:%02ld:%02ld", static_cast<int>(ymd.year()),
                static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                static_cast<long>(hms.hours().count()), static_cast<long>(hms.minutes().count()),
                static_cast<long>(hms.seconds().count()));
  std::string out(buf);
  const long long sub = hms.subseconds().count();
  if (precision == TimePrecision::kMicros) {
    std::snprintf(buf, sizeof(buf), ".%06lld", sub / 1000);
    out += buf;
  } else if (precision == TimePrecision::kNanosFixed) {
    std::snprintf(buf, sizeof(buf), ".%09lld", sub);
    out += buf;
  } else if (precision == TimePrecision::kNanos && sub != 0) {
    std::snprintf(buf, sizeof(buf), ".%09lld", sub);
    std::string frac(buf);
    while (frac.back() == '0') frac.pop_back();
    out += frac;
  }
  out += 'Z';
  return out;
}

Result<WallTime> parseRfc3339(std::string_view text) {
  const std::string_view s = text;
  if (s.empty()) return bad(text, "empty string");
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!readNumber(s, 0, 4, &year) || !expectChar(s, 4, '-') || !readNumber(s, 5, 2, &month) ||
      !expectChar(s, 7, '-') || !readNumber(s, 8, 2, &day)) {
    return bad(text, "expected a date as YYYY-MM-DD");
  }
  if (!expectChar(s, 10, 'T', 't')) return bad(text, "expected 'T' after the date");
  if (!readNumber(s, 11, 2, &hour) || !expectChar(s, 13, ':') || !readNumber(s, 14, 2, &minute) ||
      !expectChar(s, 16, ':') || !readNumber(s, 17, 2, &second)) {
    return bad(text, "expected a time as HH:MM:SS");
  }
  if (month < 1 || month > 12) return bad(text, "month out of range");
  if (hour > 23) return bad(text, "hour out of range");
  if (minute > 59) return bad(text, "minute out of range");
  if (second > 59) return bad(text, "second out of range");
  if (year < kMinYear || year > kMaxYear) {
    return bad(text, "year out of the supported range 1678..2261");
  }
  const std::chrono::year_month_day ymd{std::chrono::year(year),
                                        std::chrono::month(static_cast<unsigned>(month)),
                                        std::chrono::day(static_cast<unsigned>(day))};
  if (!ymd.ok()) return bad(text, "day out of range for the month");

  std::size_t pos = 19;
  std::int64_t fracNanos = 0;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    std::size_t digits = 0;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      if (digits >= 9) return bad(text, "more than nine fractional digits");
      fracNanos = fracNanos * 10 + (s[pos] - '0');
      ++digits;
      ++pos;
    }
    if (digits == 0) return bad(text, "a '.' needs fractional digits");
    for (std::size_t i = digits; i < 9; ++i) fracNanos *= 10;
  }

  std::chrono::minutes offset{0};
  if (pos >= s.size()) return bad(text, "missing time zone ('Z' or +HH:MM)");
  if (s[pos] == 'Z' || s[pos] == 'z') {
    ++pos;
  } else if (s[pos] == '+' || s[pos] == '-') {
    int oh = 0, om = 0;
    if (!readNumber(s, pos + 1, 2, &oh) || !expectChar(s, pos + 3, ':') ||
        !readNumber(s, pos + 4, 2, &om)) {
      return bad(text, "expected a zone offset as +HH:MM or -HH:MM");
    }
    if (oh > 23 || om > 59) return bad(text, "zone offset out of range");
    offset = std::chrono::minutes(oh * 60 + om);
    if (s[pos] == '-') offset = -offset;
    pos += 6;
  } else {
    return bad(text, "expected 'Z' or a zone offset");
  }
  if (pos != s.size()) return bad(text, "unexpected trailing characters");

  const auto local = std::chrono::sys_days(ymd) + std::chrono::hours(hour) +
                     std::chrono::minutes(minute) + std::chrono::seconds(second);
  const auto utc =
      std::chrono::time_point_cast<nanoseconds>(local - offset) + nanoseconds(fracNanos);
  return std::chrono::time_point_cast<WallTime::duration>(utc);
}

}  // namespace hetbench::common
