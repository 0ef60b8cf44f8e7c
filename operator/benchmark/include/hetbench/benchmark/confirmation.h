#pragma once

// Confirmation reruns (docs/metrics.md, "Confirmation reruns"): when the history finds a trial
// suspect and its run asked for it (spec.confirm), the trial's configuration is run again on the
// nodes it ran on and on others of the run's placement, round after round, until the reruns'
// values against the stable trials decide (results::compareSamples): a change of the software
// or the fleet (Regressed), a slow node (NodeSuspect), a one-off (NotConfirmed), or, after the
// most reruns, Inconclusive. Pure: the series controller does the I/O.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "hetbench/benchmark/run.h"
#include "hetbench/benchmark/series.h"
#include "hetbench/benchmark/spec.h"
#include "hetbench/common/clock.h"
#include "hetbench/results/confirm.h"

namespace hetbench::benchmark {

/// The confirmation of the latest judged point of `status` when it was just added (`added`,
/// "run uid/trial" keys), is Suspect in the worse direction, its run asked for one (`confirm`)
/// and no confirmation runs or stands for it (a standing Regressed one, or a standing
/// NodeSuspect one for trials on the same nodes); its first round of reruns named but not
/// created. None otherwise.
std::optional<SeriesConfirmation> startConfirmation(const std::string& seriesName,
                                                    const SeriesSpec& spec,
                                                    const SeriesStatus& status,
                                                    const Confirm& confirm, common::WallTime now,
                                                    const SeriesOptions& options = {});

/// Judges what the ended reruns of a running confirmation say, each placement's sample against
/// the baseline: the suspect and its reruns on the same nodes, the reruns on other nodes. Ends it
/// (state, message, completionTime) when that decides; otherwise, once every rerun of the round
/// has ended, names the next round's reruns for the placements still undecided, up to
/// maxReruns each, and ends it as Inconclusive past that.
void advanceConfirmation(const std::string& seriesName, const SeriesSpec& spec,
                         SeriesConfirmation& confirmation, common::WallTime now,
                         const results::ComparisonOptions& options = {});

/// The series' state, once judgeSeries has screened its latest point: Confirming while a
/// confirmation runs; the confirmation's verdict while it is about the latest judged point, or
/// while a Regressed or NodeSuspect one stands (SeriesConfirmation::standing, which a later trial
/// that is not suspect ends here).
void settleSeriesState(SeriesStatus& status);

/// A rerun's name: the series', "-c", the confirmation's number, "-s" (same nodes) or "-o"
/// (other nodes) and the rerun's number in its placement; at most 63 characters.
std::string rerunName(const std::string& seriesName, std::int64_t number,
                      const std::string& placement, std::int64_t index);

/// The BenchmarkRun object of `rerun`: `original`'s accepted spec with its matrix narrowed to
/// the suspect trial's parameters, no confirm, and spec.workload.affinity requiring the
/// confirmation's nodes (same) or other nodes (other) besides the run's own placement; labelled
/// for the series and owned by it (`series`: its object), so that it goes with the series.
nlohmann::json rerunRun(const Run& original, const Params& parameters,
                        const SeriesConfirmation& confirmation, const Rerun& rerun,
                        const nlohmann::json& series);

}  // namespace hetbench::benchmark
