#include "hetbench/schedule/cron.h"

#include <date/date.h>
#include <date/tz.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <vector>

namespace hetbench::schedule {
namespace {

using common::Result;
using common::Status;

constexpr std::array<std::string_view, 12> kMonthNames = {"jan", "feb", "mar", "apr", "may", "jun",
                                                          "jul", "aug", "sep", "oct", "nov", "dec"};
constexpr std::array<std::string_view, 7> kDayNames = {"sun", "mon", "tue", "wed",
                                                       "thu", "fri", "sat"};

struct Field {
  const char* name;
  int min;
  int max;
  const std::string_view* names = nullptr;  // names[i] means min + i
  std::size_t nameCount = 0;
};

constexpr Field kFields[] = {
    {"minute", 0, 59},
    {"hour", 0, 23},
    {"day of month", 1, 31},
    {"month", 1, 12, kMonthNames.data(), kMonthNames.size()},
    {"day of week", 0, 6, kDayNames.data(), kDayNames.size()},
};

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

Status invalid(const Field& field, const std::string& message) {
  return common::invalidError(std::string(field.name) + ": " + message);
}

/// A number or, where the field has names, a name.
Result<int> value(const Field& field, std::string_view text) {
  int v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec == std::errc() && end == text.data() + text.size() && !text.empty()) return v;
  const std::string name = lower(text);
  for (std::size_t i = 0; i < field.nameCount; ++i)
    if (field.names[i] == name) return field.min + static_cast<int>(i);
  return invalid(field, "\"" + std::string(text) + "\" is not a number" +
                            (field.nameCount > 0 ? " or a name" : ""));
}

/// One element of a list: `*`, `?`, `N`, `N-M`, each optionally `/STEP`. Sets its bits; true
/// in `star` for a bare `*` or `?`.
Status element(const Field& field, std::string_view text, std::vector<bool>& bits, bool& star) {
  std::string_view range = text;
  int step = 1;
  bool stepped = false;
  if (const std::size_t slash = text.find('/'); slash != std::string_view::npos) {
    range = text.substr(0, slash);
    const std::string_view stepText = text.substr(slash + 1);
    const auto [end, ec] =
        std::from_chars(stepText.data(), stepText.data() + stepText.size(), step);
    if (ec != std::errc() || end != stepText.data() + stepText.size() || stepText.empty())
      return invalid(field, "step \"" + std::string(stepText) + "\" is not a number");
    if (step < 1) return invalid(field, "step " + std::to_string(step) + " must be at least 1");
    stepped = true;
  }
  int first = field.min;
  int last = field.max;
  if (range == "*" || range == "?") {
    star = !stepped;
  } else if (range.empty()) {
    return invalid(field, "\"" + std::string(text) + "\" has no value");
  } else {
    const std::size_t dash = range.find('-', 1);
    Result<int> from = value(field, range.substr(0, dash));
    if (!from.isOk()) return from.status();
    first = from.value();
    if (dash != std::string_view::npos) {
      Result<int> to = value(field, range.substr(dash + 1));
      if (!to.isOk()) return to.status();
      last = to.value();
    } else if (!stepped) {
      last = first;  // a single value; with a step, `N/S` runs from N to the maximum
    }
  }
  if (first < field.min)
    return invalid(field,
                   std::to_string(first) + " is below the minimum " + std::to_string(field.min));
  if (last > field.max)
    return invalid(field,
                   std::to_string(last) + " is above the maximum " + std::to_string(field.max));
  if (first > last)
    return invalid(field, "range " + std::to_string(first) + "-" + std::to_string(last) +
                              " starts after it ends");
  for (int v = first; v <= last; v += step) bits[static_cast<std::size_t>(v)] = true;
  return common::okStatus();
}

/// A whole field: a comma-separated list of elements.
Status parseField(const Field& field, std::string_view text, std::vector<bool>& bits, bool& star) {
  bits.assign(static_cast<std::size_t>(field.max) + 1, false);
  star = false;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string_view part = text.substr(start, comma - start);
    if (part.empty()) return invalid(field, "\"" + std::string(text) + "\" has an empty element");
    bool partStar = false;
    HETBENCH_RETURN_IF_ERROR(element(field, part, bits, partStar));
    star = star || partStar;
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return common::okStatus();
}

template <std::size_t N>
std::bitset<N> toBits(const std::vector<bool>& bits) {
  std::bitset<N> out;
  for (std::size_t i = 0; i < N && i < bits.size(); ++i) out[i] = bits[i];
  return out;
}

std::string_view expand(std::string_view expression) {
  if (expression == "@yearly" || expression == "@annually") return "0 0 1 1 *";
  if (expression == "@monthly") return "0 0 1 * *";
  if (expression == "@weekly") return "0 0 * * 0";
  if (expression == "@daily" || expression == "@midnight") return "0 0 * * *";
  if (expression == "@hourly") return "0 * * * *";
  return expression;
}

}  // namespace

Result<CronSchedule> parseCron(std::string_view expression) {
  if (expression.starts_with("TZ=") || expression.starts_with("CRON_TZ=")) {
    return common::invalidError(
        "cannot use TZ or CRON_TZ in the schedule; use the timeZone field instead");
  }
  if (expression.starts_with('@') && expand(expression) == expression) {
    return common::invalidError("unknown macro \"" + std::string(expression) +
                                "\" (want @yearly, @annually, @monthly, @weekly, @daily, "
                                "@midnight or @hourly)");
  }
  const std::string_view text = expand(expression);
  std::vector<std::string_view> fields;
  for (std::size_t i = 0; i < text.size();) {
    if (std::isspace(static_cast<unsigned char>(text[i]))) {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < text.size() && !std::isspace(static_cast<unsigned char>(text[end]))) ++end;
    fields.push_back(text.substr(i, end - i));
    i = end;
  }
  if (fields.size() != 5) {
    return common::invalidError(
        "want 5 fields (minute hour day-of-month month day-of-week), found " +
        std::to_string(fields.size()));
  }
  CronSchedule s;
  std::vector<bool> bits;
  bool star = false;
  HETBENCH_RETURN_IF_ERROR(parseField(kFields[0], fields[0], bits, star));
  s.minutes = toBits<60>(bits);
  HETBENCH_RETURN_IF_ERROR(parseField(kFields[1], fields[1], bits, star));
  s.hours = toBits<24>(bits);
  HETBENCH_RETURN_IF_ERROR(parseField(kFields[2], fields[2], bits, s.anyDayOfMonth));
  s.daysOfMonth = toBits<32>(bits);
  HETBENCH_RETURN_IF_ERROR(parseField(kFields[3], fields[3], bits, star));
  s.months = toBits<13>(bits);
  HETBENCH_RETURN_IF_ERROR(parseField(kFields[4], fields[4], bits, s.anyDayOfWeek));
  s.daysOfWeek = toBits<7>(bits);
  return s;
}

TimeZone::TimeZone() : name_("UTC") {}

Result<TimeZone> TimeZone::load(const std::string& name) {
  TimeZone zone;
  if (name.empty() || name == "UTC") return zone;
  try {
    zone.zone_ = date::locate_zone(name);
  } catch (const std::exception&) {
    return common::invalidError("unknown time zone \"" + name + "\"");
  }
  zone.name_ = name;
  return zone;
}

namespace {

using Seconds = std::chrono::sys_seconds;
using LocalSeconds = date::local_seconds;

bool dayMatches(const CronSchedule& s, date::local_days day) {
  const date::year_month_day ymd(day);
  if (!s.months[static_cast<unsigned>(ymd.month())]) return false;
  const bool dom = s.daysOfMonth[static_cast<unsigned>(ymd.day())];
  const bool dow = s.daysOfWeek[date::weekday(day).c_encoding()];
  if (!s.anyDayOfMonth && !s.anyDayOfWeek) return dom || dow;
  return dom && dow;
}

constexpr date::days kHorizon{5 * 366 + 2};

}  // namespace

/// Walks the schedule's wall times day by day, in either direction, as instants of the zone.
class SlotSearch {
 public:
  SlotSearch(const CronSchedule& schedule, const TimeZone& zone)
      : schedule_(schedule), tz_(static_cast<const date::time_zone*>(zone.zone_)) {}

  std::optional<common::WallTime> next(common::WallTime after) const {
    // From one day back: a wall time earlier than the start's can still be later as an instant.
    const date::local_days first = dayOf(after) - date::days(1);
    for (date::local_days day = first; day <= first + kHorizon; day += date::days(1)) {
      if (!dayMatches(schedule_, day)) continue;
      for (int h = 0; h < 24; ++h) {
        if (!schedule_.hours[static_cast<std::size_t>(h)]) continue;
        for (int m = 0; m < 60; ++m) {
          if (!schedule_.minutes[static_cast<std::size_t>(m)]) continue;
          const Seconds t = instant(day + std::chrono::hours(h) + std::chrono::minutes(m));
          if (t > after) return std::chrono::time_point_cast<common::WallTime::duration>(t);
        }
      }
    }
    return std::nullopt;
  }

  std::optional<common::WallTime> previous(common::WallTime notAfter) const {
    const date::local_days last = dayOf(notAfter) + date::days(1);
    for (date::local_days day = last; day >= last - kHorizon; day -= date::days(1)) {
      if (!dayMatches(schedule_, day)) continue;
      for (int h = 23; h >= 0; --h) {
        if (!schedule_.hours[static_cast<std::size_t>(h)]) continue;
        for (int m = 59; m >= 0; --m) {
          if (!schedule_.minutes[static_cast<std::size_t>(m)]) continue;
          const Seconds t = instant(day + std::chrono::hours(h) + std::chrono::minutes(m));
          if (t <= notAfter) return std::chrono::time_point_cast<common::WallTime::duration>(t);
        }
      }
    }
    return std::nullopt;
  }

 private:
  date::local_days dayOf(common::WallTime t) const {
    const Seconds s = std::chrono::floor<std::chrono::seconds>(t);
    const LocalSeconds local =
        tz_ != nullptr ? tz_->to_local(s) : LocalSeconds(s.time_since_epoch());
    return std::chrono::floor<date::days>(local);
  }

  /// The instant a wall time names: its first occurrence, or for a time the clocks skip, the
  /// instant they jump. Never decreasing in the wall time, so the first slot found is the
  /// nearest.
  Seconds instant(LocalSeconds local) const {
    if (tz_ == nullptr) return Seconds(local.time_since_epoch());
    const date::local_info info = tz_->get_info(local);
    if (info.result == date::local_info::nonexistent) return info.second.begin;
    return Seconds(local.time_since_epoch()) - info.first.offset;
  }

  const CronSchedule& schedule_;
  const date::time_zone* tz_;
};

std::optional<common::WallTime> nextTime(const CronSchedule& schedule, const TimeZone& zone,
                                         common::WallTime after) {
  return SlotSearch(schedule, zone).next(after);
}

std::optional<common::WallTime> previousTime(const CronSchedule& schedule, const TimeZone& zone,
                                             common::WallTime notAfter) {
  return SlotSearch(schedule, zone).previous(notAfter);
}

}  // namespace hetbench::schedule
