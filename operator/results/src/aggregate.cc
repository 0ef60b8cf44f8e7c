#include "hetbench/results/aggregate.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace hetbench::results {
namespace {

// Missing ranks named in an error; the rest are counted.
constexpr std::size_t kRanksInMessage = 8;

// One epoch reduced across ranks; an optional is empty when some rank lacks it.
struct EpochTotal {
  double samples = 0;
  double wallSeconds = 0;
  std::optional<double> ioSeconds;
  std::optional<double> computeSeconds;
  std::optional<double> energyJoules;
  bool warmup = false;
};

using EpochTotals = std::map<std::int64_t, EpochTotal>;  // by epoch index

// A rank's I/O and compute time: as reported, or one from the other (compute = wall - I/O).
std::optional<double> ioOf(const EpochSample& s) {
  if (s.ioSeconds) return s.ioSeconds;
  if (s.computeSeconds) return std::max(0.0, s.wallSeconds - *s.computeSeconds);
  return std::nullopt;
}

std::optional<double> computeOf(const EpochSample& s) {
  if (s.computeSeconds) return s.computeSeconds;
  if (s.ioSeconds) return std::max(0.0, s.wallSeconds - *s.ioSeconds);
  return std::nullopt;
}

// The maximum of `a` and `b`; empty when either is.
std::optional<double> maxOf(std::optional<double> a, std::optional<double> b) {
  if (!a || !b) return std::nullopt;
  return std::max(*a, *b);
}

std::optional<double> sumOf(std::optional<double> a, std::optional<double> b) {
  if (!a || !b) return std::nullopt;
  return *a + *b;
}

std::string missingRanks(const std::set<std::int64_t>& present, std::int64_t worldSize) {
  std::string out;
  std::size_t named = 0;
  std::int64_t more = 0;
  for (std::int64_t rank = 0; rank < worldSize; ++rank) {
    if (present.count(rank) > 0) continue;
    if (named == kRanksInMessage) {
      ++more;
      continue;
    }
    if (named > 0) out += ", ";
    out += std::to_string(rank);
    ++named;
  }
  if (more > 0) out += " and " + std::to_string(more) + " more";
  return out;
}

// Each epoch across its ranks; Invalid unless every epoch has exactly the ranks
// 0..worldSize-1.
common::Result<EpochTotals> epochTotals(const std::vector<EpochSample>& samples,
                                        std::int64_t worldSize) {
  std::map<std::int64_t, std::vector<const EpochSample*>> byEpoch;
  for (const EpochSample& s : samples) byEpoch[s.epoch].push_back(&s);
  EpochTotals totals;
  for (const auto& [epoch, ranks] : byEpoch) {
    const std::string name = "epoch " + std::to_string(epoch);
    std::set<std::int64_t> present;
    EpochTotal total;
    total.ioSeconds = total.computeSeconds = total.energyJoules = 0.0;
    for (const EpochSample* s : ranks) {
      if (s->rank < 0 || s->rank >= worldSize) {
        return common::invalidError(name + ": rank " + std::to_string(s->rank) +
                                    " is not below the world size " + std::to_string(worldSize));
      }
      if (!present.insert(s->rank).second) {
        return common::invalidError(name + ": rank " + std::to_string(s->rank) +
                                    " reported it twice");
      }
      total.samples += s->samples;
      total.wallSeconds = std::max(total.wallSeconds, s->wallSeconds);
      total.ioSeconds = maxOf(total.ioSeconds, ioOf(*s));
      total.computeSeconds = maxOf(total.computeSeconds, computeOf(*s));
      total.energyJoules = sumOf(total.energyJoules, s->energyJoules);
      total.warmup = total.warmup || s->warmup;
    }
    if (static_cast<std::int64_t>(present.size()) < worldSize) {
      return common::invalidError(
          name + ": reported by " + std::to_string(present.size()) + " of " +
          std::to_string(worldSize) + " ranks; missing rank" +
          (worldSize - static_cast<std::int64_t>(present.size()) > 1 ? "s " : " ") +
          missingRanks(present, worldSize));
    }
    totals.emplace(epoch, total);
  }
  return totals;
}

// The metrics of the kept epochs together.
common::Status deriveMetrics(const ParsedLog& log, const AggregationOptions& options,
                             RepetitionMetrics& out) {
  if (!log.worldSize || *log.worldSize < 1) {
    return common::invalidError("epochs without a world size");
  }
  HETBENCH_ASSIGN_OR_RETURN(const EpochTotals totals, epochTotals(log.epochs, *log.worldSize));
  const auto count = static_cast<std::int64_t>(totals.size());
  const std::int64_t leading = options.warmupEpochs.value_or(count > 1 ? 1 : 0);
  if (leading < 0) return common::invalidError("warm-up epochs must not be negative");
  EpochTotal kept;
  kept.ioSeconds = kept.computeSeconds = kept.energyJoules = 0.0;
  std::int64_t index = 0;
  std::set<std::int64_t> measured;
  for (const auto& [epoch, total] : totals) {
    if (index++ < leading || total.warmup) {
      ++out.epochsExcluded;
      continue;
    }
    ++out.epochsMeasured;
    measured.insert(epoch);
    kept.samples += total.samples;
    kept.wallSeconds += total.wallSeconds;
    kept.ioSeconds = sumOf(kept.ioSeconds, total.ioSeconds);
    kept.computeSeconds = sumOf(kept.computeSeconds, total.computeSeconds);
    kept.energyJoules = sumOf(kept.energyJoules, total.energyJoules);
  }
  if (out.epochsMeasured == 0) {
    return common::invalidError("all " + std::to_string(count) +
                                " epochs are warm-up epochs; none is left to measure");
  }
  out.invalid = untrustworthyGpus(log.epochs, measured, options.throttle).value_or("");
  MetricValues& v = out.values;
  v[std::string(kWallSeconds)] = kept.wallSeconds;
  if (kept.wallSeconds > 0) v[std::string(kEffectiveThroughput)] = kept.samples / kept.wallSeconds;
  if (kept.ioSeconds) v[std::string(kIoSeconds)] = *kept.ioSeconds;
  if (kept.computeSeconds) {
    v[std::string(kComputeSeconds)] = *kept.computeSeconds;
    if (*kept.computeSeconds > 0) {
      v[std::string(kComputeThroughput)] = kept.samples / *kept.computeSeconds;
    }
    if (kept.wallSeconds > 0) {
      v[std::string(kComputeFraction)] = *kept.computeSeconds / kept.wallSeconds;
    }
  }
  if (kept.energyJoules) {
    v[std::string(kEnergyJoules)] = *kept.energyJoules;
    if (*kept.energyJoules > 0) {
      v[std::string(kSamplesPerWh)] = kept.samples / (*kept.energyJoules / 3600);
    }
  }
  return common::okStatus();
}

}  // namespace

common::Result<RepetitionMetrics> aggregateRepetition(const ParsedLog& log,
                                                      const AggregationOptions& options) {
  HETBENCH_RETURN_IF_ERROR(logStatus(log));
  RepetitionMetrics out;
  if (!log.epochs.empty()) HETBENCH_RETURN_IF_ERROR(deriveMetrics(log, options, out));
  for (const auto& [name, value] : log.scalars) {
    if (!out.values.emplace(name, value).second) {
      return common::invalidError("metric " + name +
                                  " is both derived from the epochs and reported by name");
    }
  }
  // Finite figures can still add up, or divide, beyond a double (wall times of 1e308, or of
  // 1e-320 s): such a log is out of scale, and an infinite value has no place in a status.
  for (const auto& [name, value] : out.values) {
    if (!std::isfinite(value)) {
      return common::invalidError("metric " + name + " is beyond the range of a double");
    }
  }
  return out;
}

TrialMetrics aggregateTrial(const std::vector<MetricValues>& repetitions) {
  std::map<std::string, std::vector<double>> byName;
  for (const MetricValues& values : repetitions) {
    for (const auto& [name, value] : values) byName[name].push_back(value);
  }
  TrialMetrics out;
  out.repetitions = static_cast<std::int64_t>(repetitions.size());
  for (const auto& [name, values] : byName) {
    MetricStats stats;
    stats.n = static_cast<std::int64_t>(values.size());
    stats.min = *std::min_element(values.begin(), values.end());
    stats.max = *std::max_element(values.begin(), values.end());
    double sum = 0;
    for (double x : values) sum += x;
    stats.mean = sum / static_cast<double>(stats.n);
    if (stats.n > 1) {
      double squares = 0;
      for (double x : values) squares += (x - stats.mean) * (x - stats.mean);
      stats.stddev = std::sqrt(squares / static_cast<double>(stats.n - 1));
    }
    out.metrics.emplace(name, stats);
  }
  return out;
}

}  // namespace hetbench::results
