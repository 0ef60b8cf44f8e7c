#include "server/api_error.h"

namespace hetbench::kubesim {
namespace {

ApiError make(int code, std::string reason, std::string message, nlohmann::json details = nullptr) {
  ApiError e;
  e.code = code;
  e.reason = std::move(reason);
  e.message = std::move(message);
  e.details = std::move(details);
  return e;
}

// StatusDetails' fields are omitempty: an empty name or group is left out.
nlohmann::json nameDetails(const ResourceType& type, const std::string& name) {
  nlohmann::json d = {{"kind", type.resource}};
  if (!name.empty()) d["name"] = name;
  if (!type.group.empty()) d["group"] = type.group;
  return d;
}

}  // namespace

nlohmann::json ApiError::toStatus() const {
  nlohmann::json status = {
      {"kind", "Status"},    {"apiVersion", "v1"}, {"metadata", nlohmann::json::object()},
      {"status", "Failure"}, {"message", message}, {"reason", reason},
      {"code", code}};
  nlohmann::json d = details;
  if (retryAfterSeconds) d["retryAfterSeconds"] = *retryAfterSeconds;
  if (!d.is_null()) status["details"] = d;
  if (!continueToken.empty()) status["metadata"]["continue"] = continueToken;
  return status;
}

namespace errors {

ApiError notFound(const ResourceType& type, const std::string& name) {
  return make(404, "NotFound", type.qualifiedResource() + " \"" + name + "\" not found",
              nameDetails(type, name));
}

ApiError alreadyExists(const ResourceType& type, const std::string& name) {
  return make(409, "AlreadyExists", type.qualifiedResource() + " \"" + name + "\" already exists",
              nameDetails(type, name));
}

ApiError conflict(const ResourceType& type, const std::string& name, const std::string& why) {
  return make(
      409, "Conflict",
      "Operation cannot be fulfilled on " + type.qualifiedResource() + " \"" + name + "\": " + why,
      nameDetails(type, name));
}

ApiError invalid(const ResourceType& type, const std::string& name,
                 const std::vector<common::StatusCause>& causes) {
  std::string summary;
  nlohmann::json causeList = nlohmann::json::array();
  for (const common::StatusCause& c : causes) {
    const std::string text = c.field.empty() ? c.message : c.field + ": " + c.message;
    if (!summary.empty()) summary += ", ";
    summary += text;
    causeList.push_back({{"reason", c.reason}, {"message", c.message}, {"field", c.field}});
  }
  if (causes.size() > 1) summary = "[" + summary + "]";
  nlohmann::json d = {{"kind", type.kind}, {"causes", causeList}};
  if (!name.empty()) d["name"] = name;
  if (!type.group.empty()) d["group"] = type.group;
  return make(422, "Invalid", type.qualifiedKind() + " \"" + name + "\" is invalid: " + summary, d);
}

ApiError badRequest(const std::string& message) { return make(400, "BadRequest", message); }

ApiError forbidden(const ResourceType& type, const std::string& name, const std::string& why) {
  if (name.empty()) {
    return make(403, "Forbidden", type.qualifiedResource() + " is forbidden: " + why,
                nameDetails(type, name));
  }
  return make(403, "Forbidden", type.qualifiedResource() + " \"" + name + "\" is forbidden: " + why,
              nameDetails(type, name));
}

// Routing errors come from go-restful through NewGenericServerResponse, whose details are an
// empty (but present) object.
ApiError methodNotAllowed() {
  return make(405, "MethodNotAllowed",
              "the server does not allow this method on the requested resource",
              nlohmann::json::object());
}

ApiError notSupported(const ResourceType& type, const std::string& name,
                      const std::string& message) {
  return make(405, "MethodNotAllowed", message, nameDetails(type, name));
}

ApiError pathNotFound() {
  return make(404, "NotFound", "the server could not find the requested resource",
              nlohmann::json::object());
}

ApiError unsupportedMediaType(const std::string& message) {
  return make(415, "UnsupportedMediaType", message);
}

ApiError notAcceptable() {
  return make(406, "NotAcceptable",
              "only the following media types are accepted: application/json, "
              "application/yaml, application/json;stream=watch");
}

ApiError gone(const std::string& message) { return make(410, "Expired", message); }

ApiError tooManyRequests(int retryAfterSeconds) {
  ApiError e = make(429, "TooManyRequests", "Too many requests, please try again later.");
  e.retryAfterSeconds = retryAfterSeconds;
  return e;
}

ApiError internal(const std::string& message) {
  return make(500, "InternalError", "Internal error occurred: " + message,
              {{"causes", {{{"message", message}}}}});
}

ApiError unavailable(const std::string& message) {
  return make(503, "ServiceUnavailable", message);
}

ApiError unauthorized() { return make(401, "Unauthorized", "Unauthorized"); }

}  // namespace errors
}  // namespace hetbench::kubesim
