#include "server/faults.h"

namespace hetbench::kubesim {

common::Status Faults::apply(const nlohmann::json& request, bool* expireHistory) {
  if (!request.is_object()) return common::invalidError("a fault request must be a JSON object");
  for (const auto& [key, value] : request.items()) {
    if (key == "failRequests") {
      if (!value.is_object() || !value.value("count", nlohmann::json()).is_number_integer() ||
          !value.value("code", nlohmann::json()).is_number_integer()) {
        return common::invalidError("failRequests needs integer count and code");
      }
      const int code = value["code"].get<int>();
      if (code != 500 && code != 503 && code != 429 && code != 504) {
        return common::invalidError("failRequests.code must be 429, 500, 503 or 504");
      }
      std::lock_guard lock(mu_);
      failuresLeft_ = value["count"].get<int>();
      failure_ = Failure{code, value.value("retryAfterSeconds", 1)};
    } else if (key == "latencyMs") {
      if (!value.is_number_integer() || value.get<int>() < 0 || value.get<int>() > 60000) {
        return common::invalidError("latencyMs must be an integer between 0 and 60000");
      }
      latencyMs_ = value.get<int>();
    } else if (key == "closeWatches") {
      if (value == true) closeWatches();
    } else if (key == "expireHistory") {
      *expireHistory = value == true;
    } else if (key == "cutLogStreams") {
      if (value == true) cutLogStreams();
    } else {
      return common::invalidError("unknown fault \"" + key + "\"");
    }
  }
  return common::okStatus();
}

std::optional<Faults::Failure> Faults::takeFailure() {
  std::lock_guard lock(mu_);
  if (failuresLeft_ <= 0) return std::nullopt;
  --failuresLeft_;
  return failure_;
}

}  // namespace hetbench::kubesim
