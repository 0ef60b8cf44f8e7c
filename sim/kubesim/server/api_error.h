#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "hetbench/common/field_errors.h"
#include "hetbench/common/status.h"
#include "server/resource_type.h"

namespace hetbench::kubesim {

/// An error as the API server reports it: HTTP code, Status reason, message and details.
struct ApiError {
  int code = 500;
  std::string reason = "InternalError";
  std::string message;
  /// Null when the Status has no details; an empty object is sent as "details": {}.
  nlohmann::json details;
  std::optional<int> retryAfterSeconds;
  /// The Status' metadata.continue (an expired list continue token's replacement).
  std::string continueToken;

  /// The metav1.Status body.
  nlohmann::json toStatus() const;
};

/// A value or the ApiError the server answers instead.
template <typename T>
class [[nodiscard]] ApiResult {
 public:
  ApiResult(T value) : state_(std::move(value)) {}         // NOLINT: implicit by design
  ApiResult(ApiError error) : state_(std::move(error)) {}  // NOLINT: implicit by design
  bool isOk() const { return std::holds_alternative<T>(state_); }
  T& value() { return std::get<T>(state_); }
  const T& value() const { return std::get<T>(state_); }
  const ApiError& error() const { return std::get<ApiError>(state_); }
  T* operator->() { return &value(); }
  T& operator*() { return value(); }

 private:
  std::variant<T, ApiError> state_;
};

namespace errors {
ApiError notFound(const ResourceType& type, const std::string& name);
ApiError alreadyExists(const ResourceType& type, const std::string& name);
ApiError conflict(const ResourceType& type, const std::string& name, const std::string& why);
/// 422 `<Kind> "name" is invalid: ...` with one cause per field error.
ApiError invalid(const ResourceType& type, const std::string& name,
                 const std::vector<common::StatusCause>& causes);
ApiError badRequest(const std::string& message);
ApiError forbidden(const ResourceType& type, const std::string& name, const std::string& why);
ApiError methodNotAllowed();
/// 405 MethodNotAllowed for what kubesim does not emulate on an object (exec, attach,
/// port-forward): `message` says what and why, and names the object in its details.
ApiError notSupported(const ResourceType& type, const std::string& name,
                      const std::string& message);
ApiError pathNotFound();
ApiError unsupportedMediaType(const std::string& message);
ApiError notAcceptable();
ApiError gone(const std::string& message);
ApiError tooManyRequests(int retryAfterSeconds);
ApiError internal(const std::string& message);
ApiError unavailable(const std::string& message);
ApiError unauthorized();

}  // namespace errors

}  // namespace hetbench::kubesim
