#include <nlohmann/json.hpp>

#include "hetbench/kube/client.h"

namespace hetbench::kube {

common::Status statusFromResponse(int httpStatus, std::string_view body) {
  if (httpStatus >= 200 && httpStatus < 300) return common::okStatus();
  const nlohmann::json status = nlohmann::json::parse(body, nullptr, false);
  const bool isStatus = status.is_object() && status.value("kind", "") == "Status";
  std::string message = isStatus ? status.value("message", "") : std::string(body.substr(0, 512));
  const std::string reason = isStatus ? status.value("reason", "") : "";
  if (message.empty()) message = "HTTP " + std::to_string(httpStatus);
  std::vector<common::StatusCause> causes;
  if (isStatus) {
    const nlohmann::json details = status.value("details", nlohmann::json::object());
    for (const nlohmann::json& c : details.value("causes", nlohmann::json::array())) {
      if (!c.is_object()) continue;
      causes.push_back({c.value("field", ""), c.value("reason", ""), c.value("message", "")});
    }
  }
  switch (httpStatus) {
    case 404:
      return common::notFoundError(message);
    case 409:
      return reason == "AlreadyExists" ? common::alreadyExistsError(message)
                                       : common::conflictError(message);
    case 400:
    case 422:
      return common::invalidError(message, std::move(causes));
    case 410:
      return common::goneError(message);
    case 429:
      return common::tooManyRequestsError(message);
    case 504:
      return common::timeoutError(message);
    default:
      break;
  }
  if (httpStatus >= 500) return common::unavailableError(message);
  return common::internalError("HTTP " + std::to_string(httpStatus) + ": " + message);
}

}  // namespace hetbench::kube
