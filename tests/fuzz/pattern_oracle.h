#pragma once

// What the pattern reader must make of a log, worked out with RE2 directly, line by line, so
// that the fuzz targets can compare: each spec's matches reduced as spec.reduce says, and an
// error for each captured text that is not a whole finite decimal number.

#include <re2/re2.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_input.h"
#include "hetbench/common/field_errors.h"
#include "hetbench/results/metric_spec.h"
#include "hetbench/results/parser.h"
#include "log_checks.h"
#include "log_text.h"

namespace hetbench::fuzz {

class PatternOracle {
 public:
  explicit PatternOracle(const std::vector<results::MetricSpec>& specs) : specs_(specs) {
    re2::RE2::Options options;
    options.set_log_errors(false);
    options.set_max_mem(1 << 20);  // the budget docs/metrics.md gives a pattern
    for (const results::MetricSpec& spec : specs_) {
      patterns_.push_back(std::make_unique<re2::RE2>(spec.pattern, options));
      if (!patterns_.back()->ok()) fail("an accepted pattern does not compile: " + spec.pattern);
    }
  }

  /// Fails unless `log` is what the reader should have made of `lines`.
  void check(const std::vector<FuzzLine>& lines, const results::ParsedLog& log) const {
    std::vector<Reduced> reduced(specs_.size());
    std::vector<results::LineError> errors;
    std::int64_t omitted = 0;
    LineNumbers numbers;
    for (const FuzzLine& line : lines) {
      const std::int64_t number = numbers.next(line.source);
      const std::string_view text = results::internal::logText(line.text);
      for (std::size_t i = 0; i < specs_.size(); ++i) {
        std::vector<re2::StringPiece> groups(static_cast<std::size_t>(specs_[i].group) + 1);
        if (!patterns_[i]->Match(re2::StringPiece(text.data(), text.size()), 0, text.size(),
                                 re2::RE2::UNANCHORED, groups.data(),
                                 static_cast<int>(groups.size()))) {
          continue;
        }
        const std::string_view captured(groups.back().data(), groups.back().size());
        double value = 0;
        const auto [end, error] =
            std::from_chars(captured.data(), captured.data() + captured.size(), value);
        if (error == std::errc() && end == captured.data() + captured.size() &&
            std::isfinite(value)) {
          reduced[i].add(value);
        } else if (errors.size() < results::kMaxLineErrors) {
          errors.push_back(
              {line.source, number,
               "metric " + specs_[i].name + ": " + common::quote(captured) + " is not a number"});
        } else {
          ++omitted;
        }
      }
    }
    results::MetricValues scalars;
    for (std::size_t i = 0; i < specs_.size(); ++i) {
      if (reduced[i].count == 0) continue;
      const double value = reduced[i].value(specs_[i].reduce);
      if (std::isfinite(value)) {
        scalars[specs_[i].name] = value;
      } else if (errors.size() < results::kMaxLineErrors) {
        errors.push_back(
            {"", 0,
             "metric " + specs_[i].name + ": its matches add up beyond the range of a double"});
      } else {
        ++omitted;
      }
    }
    if (log.scalars != scalars) fail("the reader's metrics differ from RE2's matches");
    if (log.errors != errors || log.errorsOmitted != omitted) {
      fail("the reader's errors differ from RE2's matches");
    }
    if (!log.epochs.empty() || log.run || log.worldSize) fail("patterns gave epochs");
  }

 private:
  struct Reduced {
    std::int64_t count = 0;
    double first = 0;
    double last = 0;
    double min = 0;
    double max = 0;
    double sum = 0;

    void add(double v) {
      if (count++ == 0) first = min = max = v;
      last = v;
      min = std::min(min, v);
      max = std::max(max, v);
      sum += v;
    }

    double value(results::Reduce reduce) const {
      switch (reduce) {
        case results::Reduce::kFirst:
          return first;
        case results::Reduce::kLast:
          return last;
        case results::Reduce::kMin:
          return min;
        case results::Reduce::kMax:
          return max;
        case results::Reduce::kSum:
          return sum;
        case results::Reduce::kMean:
          break;
      }
      return sum / static_cast<double>(count);
    }
  };

  std::vector<results::MetricSpec> specs_;
  std::vector<std::unique_ptr<re2::RE2>> patterns_;
};

}  // namespace hetbench::fuzz
