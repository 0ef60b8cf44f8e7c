// spec.metrics: ReFrame-style patterns over a third-party image's output, matched with RE2 so
// that no pattern can take more than linear time on a line.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hetbench/common/field_errors.h"
#include "hetbench/results/parser.h"
#include "log_text.h"
#include "numbers.h"
#include "pattern.h"

namespace hetbench::results {
namespace {

// The values one pattern matched, reduced as they come.
struct Matches {
  std::int64_t count = 0;
  double first = 0;
  double last = 0;
  double min = 0;
  double max = 0;
  double sum = 0;

  void add(double value) {
    if (count == 0) {
      first = min = max = value;
    }
    last = value;
    min = std::min(min, value);
    max = std::max(max, value);
    sum += value;
    ++count;
  }

  double reduced(Reduce reduce) const {
    switch (reduce) {
      case Reduce::kFirst:
        return first;
      case Reduce::kLast:
        return last;
      case Reduce::kMin:
        return min;
      case Reduce::kMax:
        return max;
      case Reduce::kSum:
        return sum;
      case Reduce::kMean:
        break;
    }
    return sum / static_cast<double>(count);
  }
};

struct Metric {
  MetricSpec spec;
  std::unique_ptr<re2::RE2> re;
  Matches matches;
};

class PatternParser final : public LogParser {
 public:
  explicit PatternParser(std::vector<Metric> metrics) : metrics_(std::move(metrics)) {}

  void consume(std::string_view source, std::string_view line) override {
    const std::int64_t number = lines_.next(source).line;
    const std::string_view text = internal::logText(line);
    std::vector<re2::StringPiece> groups;
    for (Metric& metric : metrics_) {
      groups.assign(static_cast<std::size_t>(metric.spec.group) + 1, re2::StringPiece());
      if (!metric.re->Match(re2::StringPiece(text.data(), text.size()), 0, text.size(),
                            re2::RE2::UNANCHORED, groups.data(), static_cast<int>(groups.size()))) {
        continue;
      }
      const re2::StringPiece& captured = groups.back();
      const std::string_view value(captured.data(), captured.size());
      if (const std::optional<double> n = internal::parseNumber(value)) {
        metric.matches.add(*n);
      } else {
        errors_.add(
            source, number,
            "metric " + metric.spec.name + ": " + common::quote(value) + " is not a number");
      }
    }
  }

  ParsedLog result() const override {
    ParsedLog out;
    internal::ErrorList errors = errors_;
    for (const Metric& metric : metrics_) {
      if (metric.matches.count == 0) continue;
      // Each match is finite, so only a sum (of sum or mean) can overflow.
      const double value = metric.matches.reduced(metric.spec.reduce);
      if (std::isfinite(value)) {
        out.scalars[metric.spec.name] = value;
      } else {
        errors.add({}, 0,
                   "metric " + metric.spec.name +
                       ": its matches add up beyond the range of a "
                       "double");
      }
    }
    std::move(errors).moveInto(out);
    return out;
  }

 private:
  std::vector<Metric> metrics_;
  internal::LineCounter lines_;
  internal::ErrorList errors_;
};

}  // namespace

common::Result<std::unique_ptr<LogParser>> makePatternParser(const std::vector<MetricSpec>& specs) {
  std::vector<Metric> metrics;
  std::vector<common::StatusCause> causes;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    internal::CompiledPattern compiled = internal::compilePattern(specs[i].pattern, specs[i].group);
    if (!compiled.error.empty()) {
      causes.push_back(common::invalidCause("spec.metrics[" + std::to_string(i) + "].pattern",
                                            specs[i].pattern, compiled.error));
      continue;
    }
    metrics.push_back({specs[i], std::move(compiled.re), {}});
  }
  if (!causes.empty()) return common::invalidStatus(std::move(causes));
  return std::unique_ptr<LogParser>(std::make_unique<PatternParser>(std::move(metrics)));
}

}  // namespace hetbench::results
