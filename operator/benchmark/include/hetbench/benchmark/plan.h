#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hetbench/benchmark/spec.h"
#include "hetbench/common/status.h"

namespace hetbench::benchmark {

/// One point of the matrix: parameter name → value.
using Params = std::map<std::string, std::string>;

/// One unit of work: a trial (a matrix point) and one of its repetitions.
struct Unit {
  std::int64_t trial = 0;       // index into the cartesian product, from 0
  std::int64_t repetition = 0;  // from 0
  Params params;
  bool operator==(const Unit&) const = default;
};

/// The matrix's cartesian product: parameters in name order, the last one varying fastest;
/// one point with no parameters for an empty matrix.
std::vector<Params> planTrials(const std::vector<MatrixParameter>& matrix);

/// Every unit in execution order: trial-major, repetitions of one trial consecutive.
std::vector<Unit> planUnits(const RunSpec& spec);

/// Replaces `$(params.NAME)` in every string of `value` (object keys untouched). `$$(` escapes
/// a literal `$(`, as Kubernetes' $(VAR) expansion does; other text, `$(params.` without a
/// closing `)` included, stays as it is, and substituted values are not scanned again. A
/// reference to a parameter not in `params` is Invalid, one cause per string naming the field
/// under `path` and its first unknown parameter (`spec.workload.args[2]: Invalid value:
/// "--gpus=$(params.gpu)": unknown parameter "gpu"`). Recursive: meant for values whose nesting
/// parseRunSpec bounded.
common::Result<nlohmann::json> substituteParams(const nlohmann::json& value, const Params& params,
                                                const std::string& path);

}  // namespace hetbench::benchmark
