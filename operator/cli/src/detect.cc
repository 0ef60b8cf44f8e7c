#include "hetbench/cli/detect.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <span>

namespace hetbench::cli {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

std::vector<std::string_view> fieldsOf(std::string_view line) {
  std::vector<std::string_view> fields;
  while (true) {
    const std::size_t comma = line.find(',');
    fields.push_back(trim(line.substr(0, comma)));
    if (comma == std::string_view::npos) return fields;
    line.remove_prefix(comma + 1);
  }
}

std::optional<double> numberOf(std::string_view field) {
  const std::string text(field);
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

}  // namespace

common::Result<std::vector<SeriesPoint>> parseSeriesCsv(std::string_view text) {
  std::optional<std::size_t> time;
  std::optional<std::size_t> value;
  std::optional<std::size_t> spread;
  std::size_t columns = 0;
  std::vector<SeriesPoint> series;
  std::size_t number = 0;
  while (!text.empty()) {
    const std::size_t newline = text.find('\n');
    const std::string_view line = trim(text.substr(0, newline));
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    ++number;
    if (line.empty()) continue;
    const std::string at = "line " + std::to_string(number) + ": ";
    const std::vector<std::string_view> fields = fieldsOf(line);
    if (columns == 0) {
      for (std::size_t i = 0; i < fields.size(); ++i) {
        std::optional<std::size_t>* column = fields[i] == "time"     ? &time
                                             : fields[i] == "value"  ? &value
                                             : fields[i] == "spread" ? &spread
                                                                     : nullptr;
        if (column == nullptr || column->has_value()) {
          return common::invalidError(at + "the header's column \"" + std::string(fields[i]) +
                                      "\" is unknown or repeated; want time,value[,spread]");
        }
        *column = i;
      }
      if (!time || !value) return common::invalidError(at + "the header lacks time or value");
      columns = fields.size();
      continue;
    }
    if (fields.size() != columns) {
      return common::invalidError(at + std::to_string(fields.size()) + " fields, want " +
                                  std::to_string(columns));
    }
    SeriesPoint point;
    point.time = std::string(fields[*time]);
    const std::optional<double> v = numberOf(fields[*value]);
    if (!v) {
      return common::invalidError(at + "value \"" + std::string(fields[*value]) +
                                  "\" is not a finite number");
    }
    point.value = *v;
    if (spread && !fields[*spread].empty()) {
      const std::optional<double> s = numberOf(fields[*spread]);
      if (!s || *s < 0) {
        return common::invalidError(at + "spread \"" + std::string(fields[*spread]) +
                                    "\" is not a finite number of at least 0");
      }
      point.spread = *s;
    }
    series.push_back(std::move(point));
  }
  if (columns == 0) return common::invalidError("no header: want time,value[,spread]");
  if (series.empty()) return common::invalidError("no rows after the header");
  return series;
}

nlohmann::json detect(const std::vector<SeriesPoint>& series, const DetectOptions& options) {
  std::vector<double> values;
  values.reserve(series.size());
  for (const SeriesPoint& p : series) values.push_back(p.value);
  const std::vector<results::ChangePoint> changes =
      results::findChangePoints(values, options.changePoints);
  nlohmann::json out = {{"points", series.size()}, {"changePoints", nlohmann::json::array()}};
  for (const results::ChangePoint& c : changes) {
    out["changePoints"].push_back({{"index", c.index},
                                   {"time", series[c.index].time},
                                   {"before", c.before},
                                   {"after", c.after},
                                   {"magnitude", c.magnitude},
                                   {"pValue", c.pValue}});
  }
  // The last point against the points before it since the latest change at or before them.
  const std::size_t last = series.size() - 1;
  std::size_t begin = 0;
  for (const results::ChangePoint& c : changes) {
    if (c.index < last) begin = c.index;
  }
  const std::span<const double> stable =
      std::span<const double>(values).subspan(begin, last - begin);
  const results::Screening screening =
      results::screen(stable, values[last], series[last].spread.value_or(0), options.direction,
                      "value", options.screening);
  out["last"] = {{"time", series[last].time},
                 {"value", values[last]},
                 {"verdict", results::toString(screening.verdict)},
                 {"message", screening.message}};
  if (screening.verdict != results::Screen::kInsufficientHistory) {
    out["last"]["change"] = screening.change;
    out["last"]["scales"] = screening.scales;
    out["noise"] = {{"median", screening.noise.median},
                    {"scale", screening.noise.scale},
                    {"points", screening.noise.points}};
  }
  return out;
}

}  // namespace hetbench::cli
