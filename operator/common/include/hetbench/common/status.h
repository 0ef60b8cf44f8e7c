#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace hetbench::common {

/// Error codes shared by every module; they mirror the Kubernetes Status reasons that an
/// operator has to tell apart.
enum class StatusCode {
  kOk,
  kNotFound,
  kAlreadyExists,
  kConflict,
  kInvalid,
  kUnavailable,
  kTooManyRequests,
  kGone,
  kTimeout,
  kUnauthorized,
  kInternal,
};

/// "NotFound", "AlreadyExists", ...: the Kubernetes reason spelling.
std::string_view statusCodeName(StatusCode code);

/// One field-level reason for an Invalid status, as in Kubernetes' StatusCause.
struct StatusCause {
  std::string field;
  std::string reason;
  std::string message;

  bool operator==(const StatusCause&) const = default;
};

/// The outcome of an operation that returns no value. Errors are values: no exception crosses a
/// module boundary in operator/.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message, std::vector<StatusCause> causes = {})
      : code_(code), message_(std::move(message)), causes_(std::move(causes)) {}

  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  const std::vector<StatusCause>& causes() const { return causes_; }

  bool isOk() const { return code_ == StatusCode::kOk; }
  bool isNotFound() const { return code_ == StatusCode::kNotFound; }
  bool isAlreadyExists() const { return code_ == StatusCode::kAlreadyExists; }
  bool isConflict() const { return code_ == StatusCode::kConflict; }
  bool isInvalid() const { return code_ == StatusCode::kInvalid; }
  bool isUnavailable() const { return code_ == StatusCode::kUnavailable; }
  bool isTooManyRequests() const { return code_ == StatusCode::kTooManyRequests; }
  bool isGone() const { return code_ == StatusCode::kGone; }
  bool isTimeout() const { return code_ == StatusCode::kTimeout; }
  bool isUnauthorized() const { return code_ == StatusCode::kUnauthorized; }
  bool isInternal() const { return code_ == StatusCode::kInternal; }

  /// "Ok" or "<Code>: <message>", followed by the causes.
  std::string toString() const;

  /// A copy whose message is prefixed with `context: `.
  Status withContext(std::string_view context) const;

  bool operator==(const Status&) const = default;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
  std::vector<StatusCause> causes_;
};

inline Status okStatus() { return Status(); }
inline Status notFoundError(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
inline Status alreadyExistsError(std::string m) {
  return {StatusCode::kAlreadyExists, std::move(m)};
}
inline Status conflictError(std::string m) { return {StatusCode::kConflict, std::move(m)}; }
inline Status invalidError(std::string m, std::vector<StatusCause> causes = {}) {
  return {StatusCode::kInvalid, std::move(m), std::move(causes)};
}
inline Status unavailableError(std::string m) { return {StatusCode::kUnavailable, std::move(m)}; }
inline Status tooManyRequestsError(std::string m) {
  return {StatusCode::kTooManyRequests, std::move(m)};
}
inline Status goneError(std::string m) { return {StatusCode::kGone, std::move(m)}; }
inline Status timeoutError(std::string m) { return {StatusCode::kTimeout, std::move(m)}; }
inline Status unauthorizedError(std::string m) { return {StatusCode::kUnauthorized, std::move(m)}; }
inline Status internalError(std::string m) { return {StatusCode::kInternal, std::move(m)}; }

/// A value or the Status that explains why there is none.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}        // NOLINT: implicit by design
  Result(Status status) : state_(std::move(status)) {  // NOLINT: implicit by design
    if (std::get<Status>(state_).isOk()) {
      state_ = Status(StatusCode::kInternal, "Result constructed from an ok Status without value");
    }
  }

  bool isOk() const { return std::holds_alternative<T>(state_); }
  explicit operator bool() const { return isOk(); }

  /// The error; an ok Status when there is a value.
  Status status() const { return isOk() ? Status() : std::get<Status>(state_); }

  T& value() & { return std::get<T>(state_); }
  const T& value() const& { return std::get<T>(state_); }
  T&& value() && { return std::get<T>(std::move(state_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  T valueOr(T fallback) const& { return isOk() ? value() : std::move(fallback); }

 private:
  std::variant<T, Status> state_;
};

}  // namespace hetbench::common

#define HETBENCH_CONCAT_INNER(a, b) a##b
#define HETBENCH_CONCAT(a, b) HETBENCH_CONCAT_INNER(a, b)

/// Returns the Status of `expr` from the enclosing function when it is an error.
#define HETBENCH_RETURN_IF_ERROR(expr)                     \
  do {                                                     \
    ::hetbench::common::Status hetbench_status_ = (expr);  \
    if (!hetbench_status_.isOk()) return hetbench_status_; \
  } while (false)

/// Declares `lhs` from the value of a Result, or returns its error.
#define HETBENCH_ASSIGN_OR_RETURN(lhs, expr) \
  HETBENCH_ASSIGN_OR_RETURN_IMPL(HETBENCH_CONCAT(hetbench_result_, __LINE__), lhs, expr)
#define HETBENCH_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                   \
  if (!tmp.isOk()) return tmp.status();                \
  lhs = std::move(tmp).value()
