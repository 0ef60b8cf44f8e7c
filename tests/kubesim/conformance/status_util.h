#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "testing/harness.h"

namespace hetbench::kubesim::testing {

/// The metav1.Status body a failed request must carry, field for field; `details` is left out
/// of the body when null.
inline nlohmann::json failureStatus(int code, const std::string& reason, const std::string& message,
                                    const nlohmann::json& details = nullptr) {
  nlohmann::json status = {
      {"kind", "Status"},    {"apiVersion", "v1"}, {"metadata", nlohmann::json::object()},
      {"status", "Failure"}, {"message", message}, {"reason", reason},
      {"code", code}};
  if (!details.is_null()) status["details"] = details;
  return status;
}

/// Checks the HTTP code and the whole Status body of `response`.
inline void expectStatus(const Response& response, int code, const std::string& reason,
                         const std::string& message, const nlohmann::json& details = nullptr) {
  EXPECT_EQ(response.status, code) << response.body;
  EXPECT_EQ(bodyJson(response), failureStatus(code, reason, message, details));
}

/// A field cause of a 422 Invalid Status.
inline nlohmann::json cause(const std::string& reason, const std::string& message,
                            const std::string& field) {
  return {{"reason", reason}, {"message", message}, {"field", field}};
}

}  // namespace hetbench::kubesim::testing
