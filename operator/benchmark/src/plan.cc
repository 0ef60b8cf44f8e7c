#include "hetbench/benchmark/plan.h"

#include <algorithm>
#include <optional>
#include <string_view>
#include <utility>

#include "hetbench/common/field_errors.h"

namespace hetbench::benchmark {
namespace {

using nlohmann::json;

constexpr std::string_view kReferenceOpen = "$(params.";
constexpr std::string_view kEscapedOpen = "$$(";

class Substitution {
 public:
  explicit Substitution(const Params& params) : params_(params) {}

  json value(const json& v, const std::string& path) {
    if (v.is_string()) return json(text(v.get_ref<const std::string&>(), path));
    if (v.is_array()) {
      json out = json::array();
      for (std::size_t i = 0; i < v.size(); ++i) {
        out.push_back(value(v[i], path + "[" + std::to_string(i) + "]"));
      }
      return out;
    }
    if (v.is_object()) {
      json out = json::object();
      for (const auto& [key, item] : v.items()) out[key] = value(item, path + "." + key);
      return out;
    }
    return v;
  }

  std::vector<common::StatusCause> takeCauses() { return std::move(causes_); }

 private:
  // One left-to-right scan: an escape is consumed before it could start a reference, and
  // substituted values are never scanned again. Linear in the length of `in`.
  std::string text(const std::string& in, const std::string& path) {
    const std::string_view view(in);
    std::string out;
    out.reserve(in.size());
    // A reference needs a ')' after its "$(params."; knowing the last one keeps the scan linear.
    const std::size_t lastClose = view.rfind(')');
    std::optional<std::string> unknown;  // the first; one cause per string is enough
    std::size_t i = 0;
    while (i < in.size()) {
      const std::size_t dollar = view.find('$', i);
      if (dollar == std::string_view::npos) {
        out += view.substr(i);
        break;
      }
      out += view.substr(i, dollar - i);
      const std::string_view rest = view.substr(dollar);
      if (rest.starts_with(kEscapedOpen)) {
        out += "$(";
        i = dollar + kEscapedOpen.size();
        continue;
      }
      if (!rest.starts_with(kReferenceOpen) || lastClose == std::string_view::npos ||
          lastClose < dollar + kReferenceOpen.size()) {
        out += '$';
        i = dollar + 1;
        continue;
      }
      const std::size_t close = rest.find(')', kReferenceOpen.size());
      const std::string name(rest.substr(kReferenceOpen.size(), close - kReferenceOpen.size()));
      const auto found = params_.find(name);
      if (found != params_.end()) {
        out += found->second;
      } else {
        if (!unknown) unknown = name;
        out += rest.substr(0, close + 1);
      }
      i = dollar + close + 1;
    }
    if (unknown) {
      causes_.push_back(
          common::invalidCause(path, in, "unknown parameter " + common::goQuote(*unknown)));
    }
    return out;
  }

  const Params& params_;
  std::vector<common::StatusCause> causes_;
};

}  // namespace

std::vector<Params> planTrials(const std::vector<MatrixParameter>& matrix) {
  std::vector<const MatrixParameter*> byName;
  for (const MatrixParameter& parameter : matrix) byName.push_back(&parameter);
  std::sort(byName.begin(), byName.end(),
            [](const MatrixParameter* a, const MatrixParameter* b) { return a->name < b->name; });
  std::vector<Params> trials(1);
  for (const MatrixParameter* parameter : byName) {
    std::vector<Params> next;
    next.reserve(trials.size() * parameter->values.size());
    for (const Params& trial : trials) {
      for (const std::string& value : parameter->values) {
        Params point = trial;
        point[parameter->name] = value;
        next.push_back(std::move(point));
      }
    }
    trials = std::move(next);
  }
  return trials;
}

std::vector<Unit> planUnits(const RunSpec& spec) {
  const std::vector<Params> trials = planTrials(spec.matrix);
  std::vector<Unit> units;
  for (std::size_t trial = 0; trial < trials.size(); ++trial) {
    for (std::int64_t repetition = 0; repetition < spec.repetitions; ++repetition) {
      units.push_back(Unit{static_cast<std::int64_t>(trial), repetition, trials[trial]});
    }
  }
  return units;
}

common::Result<json> substituteParams(const json& value, const Params& params,
                                      const std::string& path) {
  Substitution substitution(params);
  json out = substitution.value(value, path);
  std::vector<common::StatusCause> causes = substitution.takeCauses();
  if (!causes.empty()) return common::invalidStatus(std::move(causes));
  return out;
}

}  // namespace hetbench::benchmark
