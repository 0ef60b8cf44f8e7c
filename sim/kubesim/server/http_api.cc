#include "server/http_api.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <thread>

#include "hetbench/common/time.h"
#include "protobuf/codec.h"
#include "server/object_meta.h"
#include "server/scale.h"
#include "server/strategy.h"

namespace hetbench::kubesim {
namespace {

using nlohmann::json;

// The media type of a Content-Type or Accept entry, without parameters or spaces.
std::string mediaType(const std::string& header) {
  std::string type = header.substr(0, header.find(';'));
  type.erase(0, type.find_first_not_of(" \t"));
  type.erase(type.find_last_not_of(" \t") + 1);
  return type;
}

// The parameters of a media type ("as=Table", "q=0.9"), spaces removed.
std::vector<std::string> mediaTypeParams(const std::string& header) {
  std::vector<std::string> params;
  std::size_t semicolon = header.find(';');
  while (semicolon != std::string::npos) {
    const std::size_t next = header.find(';', semicolon + 1);
    std::string param = header.substr(semicolon + 1, next - semicolon - 1);
    param.erase(std::remove(param.begin(), param.end(), ' '), param.end());
    params.push_back(std::move(param));
    semicolon = next;
  }
  return params;
}

// A protobuf body as JSON; the errors are the API server's decoding errors (400), or 415 for a
// kind kubesim has no schema for.
ApiResult<json> decodeProtobufBody(const std::string& body, const std::string& kind) {
  common::Result<json> decoded = protobuf::decodeObject(body);
  if (decoded.isOk()) return std::move(decoded).value();
  if (decoded.status().isNotFound()) {
    return errors::unsupportedMediaType(decoded.status().message() +
                                        ": send it as application/json");
  }
  return errors::badRequest("the object provided is unrecognized (must be of type " + kind +
                            "): " + decoded.status().message());
}

std::vector<std::string> splitPath(const std::string& path) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < path.size()) {
    std::size_t slash = path.find('/', start);
    if (slash == std::string::npos) slash = path.size();
    if (slash > start) out.push_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  return out;
}

std::optional<std::int64_t> parseInt(const std::string& text) {
  if (text.empty() || text.size() > 18) return std::nullopt;
  std::int64_t v = 0;
  std::size_t i = text[0] == '-' ? 1 : 0;
  if (i == text.size()) return std::nullopt;
  for (; i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
    v = v * 10 + (text[i] - '0');
  }
  return text[0] == '-' ? -v : v;
}

// The 422 the handlers send when a verb's options (CreateOptions, ...) do not validate.
ApiError invalidOptions(const std::string& kind, const common::StatusCause& cause) {
  ResourceType options;
  options.group = "meta.k8s.io";
  options.kind = kind;
  return errors::invalid(options, "", {cause});
}

common::StatusCause unsupportedDryRun(const std::string& value) {
  return {"dryRun", "FieldValueNotSupported",
          "Unsupported value: []string{" + json(value).dump() + "}: supported values: \"All\""};
}

ApiResult<DeleteOptions> parseDeleteOptions(const http::Request& request) {
  DeleteOptions options;
  if (!request.body.empty()) {
    json body;
    if (mediaType(request.header("content-type")) == protobuf::kMediaType) {
      ApiResult<json> decoded = decodeProtobufBody(request.body, "DeleteOptions");
      if (!decoded.isOk()) return decoded.error();
      body = std::move(*decoded);
    } else {
      body = json::parse(request.body, nullptr, false);
    }
    if (!body.is_object())
      return errors::badRequest("the body of the request was in an unknown format");
    if (body.contains("propagationPolicy") && body["propagationPolicy"].is_string()) {
      options.propagationPolicy = body["propagationPolicy"].get<std::string>();
    }
    if (body.contains("orphanDependents") && body["orphanDependents"].is_boolean()) {
      options.propagationPolicy = body["orphanDependents"].get<bool>() ? "Orphan" : "Background";
    }
    if (body.contains("gracePeriodSeconds") && body["gracePeriodSeconds"].is_number_integer()) {
      options.gracePeriodSeconds = body["gracePeriodSeconds"].get<std::int64_t>();
    }
    const json& pre = body.value("preconditions", json::object());
    if (pre.contains("uid") && pre["uid"].is_string()) {
      options.preconditionUid = pre["uid"].get<std::string>();
    }
    if (pre.contains("resourceVersion") && pre["resourceVersion"].is_string()) {
      options.preconditionResourceVersion = pre["resourceVersion"].get<std::string>();
    }
    if (body.contains("dryRun") && body["dryRun"].is_array() && !body["dryRun"].empty()) {
      options.dryRun = true;
    }
  }
  if (request.queryParam("orphanDependents")) {
    options.propagationPolicy = queryFlag(request, "orphanDependents") ? "Orphan" : "Background";
  }
  if (std::optional<std::string> p = request.queryParam("propagationPolicy")) {
    options.propagationPolicy = *p;
  }
  if (std::optional<std::string> g = request.queryParam("gracePeriodSeconds")) {
    std::optional<std::int64_t> v = parseInt(*g);
    if (!v) return errors::badRequest("invalid gracePeriodSeconds: " + *g);
    options.gracePeriodSeconds = *v;
  }
  if (std::optional<std::string> dry = request.queryParam("dryRun")) {
    if (*dry != "All") return invalidOptions("DeleteOptions", unsupportedDryRun(*dry));
    options.dryRun = true;
  }
  return options;
}

ApiResult<ListOptions> parseListOptions(const http::Request& request) {
  ListOptions options;
  options.labelSelector = request.queryParam("labelSelector").value_or("");
  options.fieldSelector = request.queryParam("fieldSelector").value_or("");
  options.continueToken = request.queryParam("continue").value_or("");
  if (std::optional<std::string> limit = request.queryParam("limit")) {
    std::optional<std::int64_t> v = parseInt(*limit);
    if (!v || *v < 0) return errors::badRequest("invalid limit: " + *limit);
    options.limit = *v;
  }
  // resourceVersion=0 is served from the watch cache, which ignores limit.
  if (request.queryParam("resourceVersion").value_or("") == "0") {
    options.limit = 0;
    options.continueToken.clear();
  }
  return options;
}

http::Headers warningHeaders(const std::vector<std::string>& warnings) {
  http::Headers headers;
  for (const std::string& w : warnings) {
    headers.emplace_back("Warning", "299 - " + json(w).dump());
  }
  return headers;
}

// A valid time after the clock's range (year 2262 on) is after every log line.
std::optional<common::WallTime> beyondClockRange(const std::string& text) {
  if (text.size() < 5 || text.compare(0, 4, "2261") <= 0 ||
      text.find_first_not_of("0123456789") != 4) {
    return std::nullopt;
  }
  if (!common::parseRfc3339("2261" + text.substr(4)).isOk()) return std::nullopt;
  return common::WallTime::max();
}

// Whether `path` lies under /api/v1 or a built-in /apis/GROUP/VERSION, where go-restful answers
// unknown resources with a Status (custom resources' handler delegates to the plain 404).
bool servesGroupVersion(const std::string& path, const ResourceRegistry& registry) {
  std::vector<std::string> segs = splitPath(path);
  if (segs.size() >= 2 && segs[0] == "api") return segs[1] == "v1";
  if (segs.size() < 3 || segs[0] != "apis") return false;
  for (const ResourceType& t : registry.all()) {
    if (!t.isCustom() && t.group == segs[1] && t.version == segs[2]) return true;
  }
  return false;
}

}  // namespace

bool queryFlag(const http::Request& request, std::string_view name) {
  const std::optional<std::string> value = request.queryParam(name);
  if (!value) return false;
  std::string lower = *value;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower != "0" && lower != "false";
}

std::optional<ApiError> parseWriteOptions(const http::Request& request, const std::string& kind,
                                          WriteOptions* options) {
  if (std::optional<std::string> dry = request.queryParam("dryRun")) {
    if (*dry != "All") return invalidOptions(kind, unsupportedDryRun(*dry));
    options->dryRun = true;
  }
  if (std::optional<std::string> fv = request.queryParam("fieldValidation")) {
    if (!fv->empty() && *fv != "Strict" && *fv != "Warn" && *fv != "Ignore") {
      return invalidOptions(kind, common::notSupportedCause("fieldValidation", *fv,
                                                            {"", "Ignore", "Strict", "Warn"}));
    }
    if (!fv->empty()) options->fieldValidation = *fv;
  }
  options->fieldManager = request.queryParam("fieldManager").value_or("");
  // The API server names a write without fieldManager by its User-Agent up to the first "/"
  // ("kubectl", "OpenAPI-Generator"), printable characters only and at most 128 bytes.
  std::string agent = request.header("user-agent");
  agent = agent.substr(0, agent.find('/'));
  agent.erase(std::remove_if(agent.begin(), agent.end(),
                             [](unsigned char c) { return c < 0x20 || c == 0x7f; }),
              agent.end());
  options->userAgentManager = agent.substr(0, 128);
  if (request.queryParam("force")) options->force = queryFlag(request, "force");
  return std::nullopt;
}

ApiResult<json> parseBody(const http::Request& request, const ResourceType& type) {
  const std::string contentType = request.header("content-type");
  if (!type.isCustom() && mediaType(contentType) == protobuf::kMediaType) {
    return decodeProtobufBody(request.body, type.kind);
  }
  if (!contentType.empty() && contentType.rfind("application/json", 0) != 0 &&
      contentType.rfind("*/*", 0) != 0) {
    return errors::unsupportedMediaType(
        "the body of the request was in an unknown format - accepted media types include: "
        "application/json, application/yaml" +
        std::string(type.isCustom() ? "" : ", application/vnd.kubernetes.protobuf"));
  }
  json body = json::parse(request.body, nullptr, false);
  if (body.is_discarded()) {
    return errors::badRequest("couldn't get version/kind; json parse error: invalid JSON");
  }
  return body;
}

std::vector<AcceptRange> acceptRanges(const http::Request& request) {
  std::vector<AcceptRange> ranges;
  const std::string accept = request.header("accept");
  std::size_t start = 0;
  while (start <= accept.size()) {
    std::size_t comma = accept.find(',', start);
    if (comma == std::string::npos) comma = accept.size();
    const std::string entry = accept.substr(start, comma - start);
    start = comma + 1;
    AcceptRange range{mediaType(entry)};
    if (range.type.empty()) continue;
    for (const std::string& param : mediaTypeParams(entry)) {
      if (param.rfind("as=", 0) == 0) range.table = true;
      if (param.rfind("q=", 0) == 0) range.quality = std::strtod(param.c_str() + 2, nullptr);
    }
    ranges.push_back(std::move(range));
  }
  std::stable_sort(ranges.begin(), ranges.end(), [](const AcceptRange& a, const AcceptRange& b) {
    return a.quality > b.quality;
  });
  return ranges;
}

BodyFormat responseFormat(const http::Request& request, bool builtin) {
  // The first range kubesim can serve decides.
  for (const AcceptRange& range : acceptRanges(request)) {
    if (range.type != protobuf::kMediaType) return BodyFormat::kJson;
    if (builtin && !range.table) return BodyFormat::kProtobuf;
  }
  return BodyFormat::kJson;
}

void sendJson(http::ResponseWriter& out, int code, const json& body, const http::Headers& extra) {
  http::Headers headers = {{"Content-Type", "application/json"},
                           {"Cache-Control", "no-cache, private"}};
  headers.insert(headers.end(), extra.begin(), extra.end());
  out.send(code, headers, body.dump(-1, ' ', false, json::error_handler_t::replace));
}

void sendObject(http::ResponseWriter& out, BodyFormat format, int code, const json& body,
                const http::Headers& extra) {
  if (format == BodyFormat::kProtobuf) {
    common::Result<std::string> encoded = protobuf::encodeObject(body);
    if (encoded.isOk()) {
      http::Headers headers = {{"Content-Type", std::string(protobuf::kMediaType)},
                               {"Cache-Control", "no-cache, private"}};
      headers.insert(headers.end(), extra.begin(), extra.end());
      out.send(code, headers, *encoded);
      return;
    }
  }
  sendJson(out, code, body, extra);
}

void sendError(http::ResponseWriter& out, const ApiError& error, BodyFormat format) {
  http::Headers extra;
  if (error.retryAfterSeconds) {
    extra.emplace_back("Retry-After", std::to_string(*error.retryAfterSeconds));
  }
  sendObject(out, format, error.code, error.toStatus(), extra);
}

bool hasDeleteCollection(const ResourceType& type) {
  return !(type.group.empty() && type.resource == "namespaces");
}

bool wantsTable(const std::string& accept) {
  return accept.find("as=Table") != std::string::npos &&
         accept.find("g=meta.k8s.io") != std::string::npos;
}

std::optional<ResourcePath> parseResourcePath(const std::string& path,
                                              const ResourceRegistry& registry) {
  std::vector<std::string> segs = splitPath(path);
  std::string group, version;
  std::size_t i = 0;
  if (segs.size() >= 3 && segs[0] == "api") {
    version = segs[1];
    i = 2;
  } else if (segs.size() >= 4 && segs[0] == "apis") {
    group = segs[1];
    version = segs[2];
    i = 3;
  } else {
    return std::nullopt;
  }
  ResourcePath out;
  if (segs[i] == "watch") {
    out.legacyWatch = true;
    ++i;
  }
  std::vector<std::string> rest(segs.begin() + static_cast<std::ptrdiff_t>(i), segs.end());
  if (rest.empty()) return std::nullopt;
  std::string resource;
  const bool namespaceSubresource =
      rest.size() == 3 && rest[0] == "namespaces" && (rest[2] == "status" || rest[2] == "finalize");
  if (rest[0] == "namespaces" && rest.size() >= 3 && !namespaceSubresource) {
    out.ns = rest[1];
    resource = rest[2];
    if (rest.size() > 3) out.name = rest[3];
    if (rest.size() > 4) out.subresource = rest[4];
    if (rest.size() > 5) return std::nullopt;
  } else {
    resource = rest[0];
    if (rest.size() > 1) out.name = rest[1];
    if (rest.size() > 2) out.subresource = rest[2];
    if (rest.size() > 3) return std::nullopt;
  }
  std::optional<ResourceType> type = registry.find(group, version, resource);
  if (!type) return std::nullopt;
  if (!type->namespaced && !out.ns.empty()) return std::nullopt;
  if (!out.subresource.empty() && !type->hasSubresource(out.subresource)) return std::nullopt;
  out.type = std::move(*type);
  return out;
}

ApiServer::ApiServer(Api& api, ApiServerOptions options, PodLogSource* logs)
    : api_(api),
      options_(std::move(options)),
      logs_(logs),
      tokens_(api, options_.token, options_.issuedTokenLimit),
      openApi_(api.registry()) {}

void ApiServer::setAdvertiseAddress(std::string address) {
  std::lock_guard lock(mu_);
  options_.advertiseAddress = std::move(address);
}

void ApiServer::stop() {
  stopping_ = true;
  faults_.closeWatches();
  faults_.cutLogStreams();
  api_.store().wakeAll();
}

void ApiServer::handle(const http::Request& request, http::ResponseWriter& out) {
  if (request.path == "/readyz" || request.path == "/livez" || request.path == "/healthz") {
    out.send(200, {{"Content-Type", "text/plain; charset=utf-8"}}, "ok");
    return;
  }
  // The generic errors (authentication, injected faults, unknown paths) are negotiated as the
  // built-in resources' are.
  const BodyFormat format = responseFormat(request, true);
  ApiResult<UserInfo> requester = authenticate(request);
  if (!requester.isOk()) {
    sendError(out, requester.error(), format);
    return;
  }
  if (request.path == "/kubesim/faults") {
    handleFaults(request, out);
    return;
  }
  if (const int latency = faults_.latencyMs(); latency > 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(latency));
  }
  if (std::optional<Faults::Failure> failure = faults_.takeFailure()) {
    ApiError e;
    if (failure->code == 429) {
      e = errors::tooManyRequests(failure->retryAfterSeconds);
    } else if (failure->code == 503) {
      e = errors::unavailable("the server is currently unable to handle the request");
      e.retryAfterSeconds = failure->retryAfterSeconds;
    } else if (failure->code == 504) {
      e.code = 504;
      e.reason = "Timeout";
      e.message = "the server was unable to return a response in the time allotted";
    } else {
      e = errors::internal("injected fault");
    }
    sendError(out, e, format);
    return;
  }
  if (handleDiscovery(request, out) || handleOpenApi(request, out)) return;
  std::optional<ResourcePath> path = parseResourcePath(request.path, api_.registry());
  if (!path) {
    if (!servesGroupVersion(request.path, api_.registry())) {
      // Outside any served group-version the request falls through to Go's http.NotFound.
      out.send(
          404,
          {{"Content-Type", "text/plain; charset=utf-8"}, {"X-Content-Type-Options", "nosniff"}},
          "404 page not found\n");
      return;
    }
    sendError(out, errors::pathNotFound(), format);
    return;
  }
  if (path->type.createOnly) {
    handleReview(request, *path, *requester, out);
    return;
  }
  if (path->subresource == "token") {
    handleTokenRequest(request, *path, out);
    return;
  }
  if (path->subresource == "exec" || path->subresource == "attach" ||
      path->subresource == "portforward") {
    refuseStream(request, *path, out);
    return;
  }
  handleResource(request, *path, out);
}

void ApiServer::handleFaults(const http::Request& request, http::ResponseWriter& out) {
  if (request.method != "POST") {
    sendError(out, errors::methodNotAllowed());
    return;
  }
  json body = json::parse(request.body, nullptr, false);
  bool expire = false;
  common::Status status = faults_.apply(body, &expire);
  if (!status.isOk()) {
    sendError(out, errors::badRequest(status.message()));
    return;
  }
  if (expire) api_.store().expireHistory();
  if (body.value("closeWatches", false)) api_.store().wakeAll();
  sendJson(out, 200, {{"kind", "Status"}, {"apiVersion", "v1"}, {"status", "Success"}});
}

void ApiServer::handleResource(const http::Request& request, const ResourcePath& path,
                               http::ResponseWriter& out) {
  if (path.subresource == "scale") {
    handleScale(request, path, out);
    return;
  }
  const BodyFormat format = responseFormat(request, !path.type.isCustom());
  const ResourceType& type = path.type;
  const std::string& method = request.method;
  const bool watch = path.legacyWatch || queryFlag(request, "watch");
  if (method == "GET" && watch) {
    handleWatch(request, path, out);
    return;
  }
  if (path.legacyWatch) {
    sendError(out, errors::methodNotAllowed(), format);
    return;
  }
  if (method == "GET" && path.subresource == "log") {
    handleLog(request, path, out);
    return;
  }
  const bool table = wantsTable(request.header("accept"));
  const std::string includeObject = request.queryParam("includeObject").value_or("Metadata");
  WriteOptions writeOptions;
  const std::string optionsKind = method == "POST"    ? "CreateOptions"
                                  : method == "PUT"   ? "UpdateOptions"
                                  : method == "PATCH" ? "PatchOptions"
                                                      : "";
  if (std::optional<ApiError> bad = optionsKind.empty()
                                        ? std::nullopt
                                        : parseWriteOptions(request, optionsKind, &writeOptions)) {
    sendError(out, *bad, format);
    return;
  }

  if (method == "GET" && path.name.empty()) {
    ApiResult<ListOptions> options = parseListOptions(request);
    if (!options.isOk()) return sendError(out, options.error(), format);
    ApiResult<json> list = api_.list(type, path.ns, *options);
    if (!list.isOk()) return sendError(out, list.error(), format);
    if (table) {
      std::vector<json> items;
      for (json& item : (*list)["items"]) items.push_back(presentObject(type, std::move(item)));
      ApiResult<json> t =
          buildTable(type, items, (*list)["metadata"], includeObject, api_.clock().now());
      if (!t.isOk()) return sendError(out, t.error(), format);
      return sendJson(out, 200, *t);
    }
    return sendObject(out, format, 200, *list);
  }
  if (method == "GET") {
    ApiResult<json> object = api_.get(type, path.ns, path.name);
    if (!object.isOk()) return sendError(out, object.error(), format);
    if (table) {
      ApiResult<json> t =
          buildTable(type, {*object},
                     {{"resourceVersion", (*object)["metadata"].value("resourceVersion", "")}},
                     includeObject, api_.clock().now());
      if (!t.isOk()) return sendError(out, t.error(), format);
      return sendJson(out, 200, *t);
    }
    return sendObject(out, format, 200, *object);
  }
  if (method == "POST" && path.name.empty()) {
    if (type.namespaced && path.ns.empty()) return sendError(out, errors::pathNotFound(), format);
    ApiResult<json> body = parseBody(request, type);
    if (!body.isOk()) return sendError(out, body.error(), format);
    ApiResult<WriteResult> created = api_.create(type, path.ns, std::move(*body), writeOptions);
    if (!created.isOk()) return sendError(out, created.error(), format);
    return sendObject(out, format, 201, created->object, warningHeaders(created->warnings));
  }
  if (method == "PUT" && !path.name.empty() &&
      (path.subresource.empty() || path.subresource == "status" ||
       path.subresource == "finalize")) {
    ApiResult<json> body = parseBody(request, type);
    if (!body.isOk()) return sendError(out, body.error(), format);
    const std::string sub = path.subresource == "finalize" ? "" : path.subresource;
    ApiResult<WriteResult> updated =
        api_.update(type, path.ns, path.name, std::move(*body), sub, writeOptions);
    if (!updated.isOk()) return sendError(out, updated.error(), format);
    return sendObject(out, format, 200, updated->object, warningHeaders(updated->warnings));
  }
  if (method == "PATCH" && !path.name.empty() &&
      (path.subresource.empty() || path.subresource == "status")) {
    ApiResult<WriteResult> patched =
        api_.patch(type, path.ns, path.name, request.header("content-type"), request.body,
                   path.subresource, writeOptions);
    if (!patched.isOk()) return sendError(out, patched.error(), format);
    return sendObject(out, format, patched->created ? 201 : 200, patched->object,
                      warningHeaders(patched->warnings));
  }
  if (method == "DELETE") {
    ApiResult<DeleteOptions> options = parseDeleteOptions(request);
    if (!options.isOk()) return sendError(out, options.error(), format);
    if (path.name.empty()) {
      if (!hasDeleteCollection(type)) return sendError(out, errors::methodNotAllowed(), format);
      ApiResult<ListOptions> listOptions = parseListOptions(request);
      if (!listOptions.isOk()) return sendError(out, listOptions.error(), format);
      ApiResult<json> removed = api_.removeCollection(type, path.ns, *listOptions, *options);
      if (!removed.isOk()) return sendError(out, removed.error(), format);
      return sendObject(out, format, 200, *removed);
    }
    if (!path.subresource.empty()) return sendError(out, errors::methodNotAllowed(), format);
    ApiResult<json> removed = api_.remove(type, path.ns, path.name, *options);
    if (!removed.isOk()) return sendError(out, removed.error(), format);
    const json& meta = (*removed)["metadata"];
    if (!options->dryRun && !meta.contains("deletionTimestamp") &&
        !strategyFor(type).returnDeletedObject) {
      json details = {{"name", path.name}, {"kind", type.resource}, {"uid", meta.value("uid", "")}};
      if (!type.group.empty()) details["group"] = type.group;
      return sendObject(out, format, 200,
                        {{"kind", "Status"},
                         {"apiVersion", "v1"},
                         {"metadata", json::object()},
                         {"status", "Success"},
                         {"details", details}});
    }
    return sendObject(out, format, 200, *removed);
  }
  sendError(out, errors::methodNotAllowed(), format);
}

void ApiServer::refuseStream(const http::Request& request, const ResourcePath& path,
                             http::ResponseWriter& out) {
  const BodyFormat format = responseFormat(request, true);
  if (request.method != "GET" && request.method != "POST") {
    return sendError(out, errors::methodNotAllowed(), format);
  }
  // As the API server's connecters, the pod is looked up first.
  ApiResult<json> pod = api_.get(path.type, path.ns, path.name);
  if (!pod.isOk()) return sendError(out, pod.error(), format);
  const char* const why =
      ": its containers run as processes on the host, and it serves no streaming connections "
      "(SPDY or WebSocket)";
  std::string message;
  if (path.subresource == "exec") {
    message = std::string("kubesim does not support exec") + why +
              "; run the command on the host, or read the container's output with kubectl logs";
  } else if (path.subresource == "attach") {
    message = std::string("kubesim does not support attach") + why +
              "; follow the container's output with kubectl logs -f";
  } else {
    message = std::string("kubesim does not support port-forward") + why +
              "; containers share the host's network, so connect to their ports on the host";
  }
  sendError(out, errors::notSupported(path.type, path.name, message), format);
}

void ApiServer::handleScale(const http::Request& request, const ResourcePath& path,
                            http::ResponseWriter& out) {
  // A Scale is a built-in kind, a custom resource's too: protobuf is served for it.
  const BodyFormat format = responseFormat(request, true);
  const ResourceType& type = path.type;
  const std::string& method = request.method;
  if (path.name.empty() || path.legacyWatch || queryFlag(request, "watch")) {
    return sendError(out, errors::methodNotAllowed(), format);
  }
  if (method == "GET") {
    ApiResult<json> scale = api_.getScale(type, path.ns, path.name);
    if (!scale.isOk()) return sendError(out, scale.error(), format);
    if (!wantsTable(request.header("accept"))) return sendObject(out, format, 200, *scale);
    // A custom resource's scale is printed with the resource's own columns, as its handler does.
    const std::string includeObject = request.queryParam("includeObject").value_or("Metadata");
    ApiResult<json> table =
        buildTable(type.isCustom() ? type : scaleType(type), {*scale},
                   {{"resourceVersion", (*scale)["metadata"].value("resourceVersion", "")}},
                   includeObject, api_.clock().now());
    if (!table.isOk()) return sendError(out, table.error(), format);
    return sendJson(out, 200, *table);
  }
  if (method != "PUT" && method != "PATCH") {
    return sendError(out, errors::methodNotAllowed(), format);
  }
  WriteOptions options;
  const std::string optionsKind = method == "PUT" ? "UpdateOptions" : "PatchOptions";
  if (std::optional<ApiError> bad = parseWriteOptions(request, optionsKind, &options)) {
    return sendError(out, *bad, format);
  }
  ApiResult<WriteResult> written = WriteResult{};
  if (method == "PUT") {
    ApiResult<json> body = parseBody(request, scaleType(type));
    if (!body.isOk()) return sendError(out, body.error(), format);
    written = api_.update(type, path.ns, path.name, std::move(*body), "scale", options);
  } else {
    written = api_.patch(type, path.ns, path.name, request.header("content-type"), request.body,
                         "scale", options);
  }
  if (!written.isOk()) return sendError(out, written.error(), format);
  sendObject(out, format, 200, written->object, warningHeaders(written->warnings));
}

void ApiServer::handleLog(const http::Request& request, const ResourcePath& path,
                          http::ResponseWriter& out) {
  const BodyFormat format = responseFormat(request, !path.type.isCustom());
  ApiResult<json> pod = api_.get(path.type, path.ns, path.name);
  if (!pod.isOk()) return sendError(out, pod.error(), format);
  PodLogOptions options;
  options.container = request.queryParam("container").value_or("");
  options.follow = queryFlag(request, "follow");
  options.timestamps = queryFlag(request, "timestamps");
  options.previous = queryFlag(request, "previous");
  if (std::optional<std::string> since = request.queryParam("sinceTime")) {
    common::Result<common::WallTime> t = common::parseRfc3339(*since);
    if (t.isOk()) {
      options.sinceTime = *t;
    } else if (std::optional<common::WallTime> late = beyondClockRange(*since)) {
      options.sinceTime = *late;
    } else {
      return sendError(out, errors::badRequest(t.status().message()), format);
    }
  }
  for (auto [name, target] :
       {std::pair{"sinceSeconds", &options.sinceSeconds},
        std::pair{"tailLines", &options.tailLines}, std::pair{"limitBytes", &options.limitBytes}}) {
    if (std::optional<std::string> v = request.queryParam(name)) {
      std::optional<std::int64_t> parsed = parseInt(*v);
      if (!parsed || *parsed < 0) {
        return sendError(out, errors::badRequest(std::string("invalid ") + name + ": " + *v),
                         format);
      }
      *target = *parsed;
    }
  }
  if (options.sinceSeconds && options.sinceTime) {
    return sendError(
        out,
        errors::invalid(path.type, path.name,
                        {common::forbiddenCause("sinceSeconds",
                                                "at most one of sinceTime or sinceSeconds may be "
                                                "specified")}),
        format);
  }
  if (logs_ == nullptr) return sendError(out, errors::unavailable("no kubelet is running"), format);
  const std::uint64_t generation = faults_.logGeneration();
  std::optional<ApiError> error = logs_->streamLog(
      path.ns, path.name, options, out,
      [this, generation] { return stopping_.load() || faults_.logGeneration() != generation; });
  if (error) sendError(out, *error, format);
}

}  // namespace hetbench::kubesim
