#include "hetbench/common/status.h"

namespace hetbench::common {

std::string_view statusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return "Ok";
    case StatusCode::kNotFound:
      return "NotFound";
    case StatusCode::kAlreadyExists:
      return "AlreadyExists";
    case StatusCode::kConflict:
      return "Conflict";
    case StatusCode::kInvalid:
      return "Invalid";
    case StatusCode::kUnavailable:
      return "Unavailable";
    case StatusCode::kTooManyRequests:
      return "TooManyRequests";
    case StatusCode::kGone:
      return "Gone";
    case StatusCode::kTimeout:
      return "Timeout";
    case StatusCode::kUnauthorized:
      return "Unauthorized";
    case StatusCode::kInternal:
      return "Internal";
  }
  return "Unknown";
}

std::string Status::toString() const {
  if (isOk()) return "Ok";
  std::string out(statusCodeName(code_));
  out += ": ";
  out += message_;
  for (const StatusCause& cause : causes_) {
    out += "; ";
    if (!cause.field.empty()) out += cause.field + ": ";
    out += cause.message.empty() ? cause.reason : cause.message;
  }
  return out;
}

Status Status::withContext(std::string_view context) const {
  if (isOk()) return *this;
  return Status(code_, std::string(context) + ": " + message_, causes_);
}

}  // namespace hetbench::common
