#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "hetbench/benchmark/render.h"
#include "hetbench/benchmark/run.h"
#include "hetbench/benchmark/validate.h"

namespace hetbench::benchmark {

/// The most bytes a run's status takes as JSON. etcd keeps objects up to 1.5 MiB; the rest is
/// left to the metadata and the spec, which a run carries up to three times (the spec, the
/// accepted-spec annotation and kubectl apply's last-applied annotation, together within the
/// API server's 256 KiB for annotations).
inline constexpr std::size_t kMaxStatusBytes = 1u << 20;
/// What a unit's message, and then its reason, keep once the status has to be made smaller.
inline constexpr std::size_t kTrimmedMessageBytes = 128;
inline constexpr std::size_t kTrimmedReasonBytes = 32;

/// Bytes of `status` as JSON, as it is written.
std::size_t statusBytes(const RunStatus& status);

/// Keeps `status` within `budget` bytes, giving up the least first and stopping as soon as it
/// fits: the metrics of trial results that no verdict is drawn from (each unit's summary keeps
/// them), then the units' messages beyond kTrimmedMessageBytes, then the values of unit
/// summaries that are not `judged` (counted as omitted), and last the units' messages and the
/// checks' messages (the Events of the units and the numbers of the checks stay) with the
/// units' reasons cut to kTrimmedReasonBytes. What a verdict rests on is never dropped. Returns
/// the bytes it takes then: above `budget` only for a status that acceptance
/// (statusFloorBytes) would have refused.
std::size_t fitStatus(RunStatus& status, const std::vector<std::string>& judged,
                      std::size_t budget = kMaxStatusBytes);

/// The bytes that fitStatus cannot go below for the plan of `run`: every unit ended, with a
/// trimmed reason, `podsPerUnit[i]` node names of 63 bytes and its judged metrics; every trial
/// judged, with a check per reference and the longest history baselines; every condition with
/// the longest reason and message. Numbers count at their longest. A plan above kMaxStatusBytes
/// is refused when accepted.
std::size_t statusFloorBytes(const RunRef& ref, const AcceptedRun& run,
                             const std::vector<Unit>& units,
                             const std::vector<std::int64_t>& podsPerUnit);

}  // namespace hetbench::benchmark
