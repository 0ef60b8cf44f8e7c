#include <gtest/gtest.h>

#include <chrono>

#include "conformance/status_util.h"
#include "testing/harness.h"

namespace hetbench::kubesim::testing {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;

constexpr const char* kConfigMaps = "/api/v1/namespaces/default/configmaps";
constexpr const char* kMerge = "application/merge-patch+json";

std::string cmPath(const std::string& name) { return std::string(kConfigMaps) + "/" + name; }

std::unique_ptr<TestConnection> openWatch(Harness& h, const std::string& target) {
  Response head;
  std::unique_ptr<TestConnection> c = h.stream(target, &head);
  EXPECT_NE(c, nullptr);
  EXPECT_EQ(head.status, 200) << head.body;
  EXPECT_EQ(head.header("content-type"), "application/json");
  return c;
}

// "TYPE name" for each event, to compare sequences at a glance.
std::vector<std::string> summary(const std::vector<json>& events) {
  std::vector<std::string> out;
  for (const json& e : events) {
    out.push_back(e["type"].get<std::string>() + " " +
                  e["object"]["metadata"].value("name", std::string()));
  }
  return out;
}

// True when the server ends the stream (the last chunk, or the connection closing) in time.
bool streamEnds(TestConnection& c, milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    std::optional<std::string> chunk = c.readChunk();
    if (!chunk || chunk->empty()) return true;
  }
  return false;
}

// Verifies that a watch without resourceVersion first sends ADDED for existing objects, then
// live events.
TEST(Watch, InitialStateThenLiveEvents) {
  Harness h;
  ASSERT_EQ(h.post(kConfigMaps, configMap("a")).status, 201);
  ASSERT_EQ(h.post(kConfigMaps, configMap("b")).status, 201);
  auto c = openWatch(h, std::string(kConfigMaps) + "?watch=true");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(summary(readEvents(*c, 2)), (std::vector<std::string>{"ADDED a", "ADDED b"}));
  ASSERT_EQ(h.patch(cmPath("a"), kMerge, {{"data", {{"k", "v"}}}}).status, 200);
  ASSERT_EQ(h.del(cmPath("b")).status, 200);
  ASSERT_EQ(h.post(kConfigMaps, configMap("c")).status, 201);
  std::vector<json> events = readEvents(*c, 3);
  EXPECT_EQ(summary(events), (std::vector<std::string>{"MODIFIED a", "DELETED b", "ADDED c"}));
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0]["object"]["kind"], "ConfigMap");
  EXPECT_EQ(events[0]["object"]["apiVersion"], "v1");
  EXPECT_EQ(events[0]["object"]["data"], json({{"k", "v"}}));
}

// Verifies that a watch from a resourceVersion sends only later changes, in increasing
// resourceVersion order.
TEST(Watch, FromResourceVersion) {
  Harness h;
  ASSERT_EQ(h.post(kConfigMaps, configMap("old")).status, 201);
  const std::string rv = bodyJson(h.get(kConfigMaps))["metadata"]["resourceVersion"];
  for (const char* name : {"x", "y", "z"}) {
    ASSERT_EQ(h.post(kConfigMaps, configMap(name)).status, 201);
  }
  auto c = openWatch(h, std::string(kConfigMaps) + "?watch=1&resourceVersion=" + rv);
  ASSERT_NE(c, nullptr);
  std::vector<json> events = readEvents(*c, 3);
  EXPECT_EQ(summary(events), (std::vector<std::string>{"ADDED x", "ADDED y", "ADDED z"}));
  std::uint64_t last = std::stoull(rv);
  for (const json& e : events) {
    const std::uint64_t v =
        std::stoull(e["object"]["metadata"]["resourceVersion"].get<std::string>());
    EXPECT_GT(v, last);
    last = v;
  }
}

// Verifies that a watch from a resourceVersion older than the history answers 200, then one
// ERROR event carrying a 410 Expired Status, and ends.
TEST(Watch, TooOldResourceVersion) {
  Harness h;
  json cm = bodyJson(h.post(kConfigMaps, configMap("a")));
  const std::string rv = cm["metadata"]["resourceVersion"];
  ASSERT_EQ(h.post(kConfigMaps, configMap("b")).status, 201);
  ASSERT_EQ(h.post("/kubesim/faults", {{"expireHistory", true}}).status, 200);
  auto c = openWatch(h, std::string(kConfigMaps) + "?watch=true&resourceVersion=" + rv);
  ASSERT_NE(c, nullptr);
  std::vector<json> events = readEvents(*c, 1);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["type"], "ERROR");
  json status = events[0]["object"];
  const std::string message = status.value("message", "");
  EXPECT_EQ(message.rfind("too old resource version: " + rv + " (", 0), 0u) << message;
  status.erase("message");
  EXPECT_EQ(status, (json{{"kind", "Status"},
                          {"apiVersion", "v1"},
                          {"metadata", json::object()},
                          {"status", "Failure"},
                          {"reason", "Expired"},
                          {"code", 410}}));
  EXPECT_TRUE(streamEnds(*c, milliseconds(5000)));
}

// Verifies that allowWatchBookmarks yields BOOKMARK events with only a resourceVersion.
TEST(Watch, Bookmarks) {
  Harness::Options options;
  options.bookmarkInterval = milliseconds(100);
  Harness h(options);
  json cm = bodyJson(h.post(kConfigMaps, configMap("a")));
  auto c = openWatch(h, std::string(kConfigMaps) + "?watch=true&allowWatchBookmarks=true");
  ASSERT_NE(c, nullptr);
  std::vector<json> events = readEvents(*c, 2);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0]["type"], "ADDED");
  EXPECT_EQ(events[1]["type"], "BOOKMARK");
  const json& object = events[1]["object"];
  EXPECT_EQ(object["kind"], "ConfigMap");
  EXPECT_EQ(object["apiVersion"], "v1");
  // The store's version is global: other resources' writes may have moved it past the
  // configmap's.
  EXPECT_GE(std::stoull(object["metadata"]["resourceVersion"].get<std::string>()),
            std::stoull(cm["metadata"]["resourceVersion"].get<std::string>()));
  EXPECT_FALSE(object.contains("data"));
}

// Verifies that timeoutSeconds ends the stream.
TEST(Watch, TimeoutSecondsEndsStream) {
  Harness h;
  auto c = openWatch(h, std::string(kConfigMaps) + "?watch=true&timeoutSeconds=1");
  ASSERT_NE(c, nullptr);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(streamEnds(*c, milliseconds(5000)));
  EXPECT_GE(std::chrono::steady_clock::now() - start, milliseconds(900));
}

// Verifies that with a label selector, an update that makes an object match is ADDED and one
// that makes it stop matching is DELETED.
TEST(Watch, LabelSelectorTransitions) {
  Harness h;
  ASSERT_EQ(h.post(kConfigMaps, configMap("a")).status, 201);
  auto c = openWatch(h, std::string(kConfigMaps) + "?watch=true&labelSelector=app%3Dweb");
  ASSERT_NE(c, nullptr);
  ASSERT_EQ(h.patch(cmPath("a"), kMerge, {{"metadata", {{"labels", {{"app", "web"}}}}}}).status,
            200);
  ASSERT_EQ(h.patch(cmPath("a"), kMerge, {{"data", {{"k", "v"}}}}).status, 200);
  ASSERT_EQ(h.patch(cmPath("a"), kMerge, {{"metadata", {{"labels", {{"app", "db"}}}}}}).status,
            200);
  std::vector<json> events = readEvents(*c, 3);
  EXPECT_EQ(summary(events), (std::vector<std::string>{"ADDED a", "MODIFIED a", "DELETED a"}));
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[2]["object"]["metadata"]["labels"], json({{"app", "db"}}))
      << "the DELETED event carries the object as it is now";
}

// Verifies that a deletion held by a finalizer is seen as MODIFIED, then DELETED once the
// last finalizer goes, and that a watch without namespace sees every namespace.
TEST(Watch, FinalizedDeletionAcrossNamespaces) {
  Harness h;
  auto c = openWatch(h, "/api/v1/configmaps?watch=true&fieldSelector=metadata.name%3Dheld");
  ASSERT_NE(c, nullptr);
  json cm = configMap("held");
  cm["metadata"]["finalizers"] = {"example.com/hold"};
  ASSERT_EQ(h.post("/api/v1/namespaces/kube-public/configmaps", cm).status, 201);
  const std::string path = "/api/v1/namespaces/kube-public/configmaps/held";
  ASSERT_EQ(h.del(path).status, 200);
  ASSERT_EQ(h.patch(path, kMerge, {{"metadata", {{"finalizers", nullptr}}}}).status, 200);
  // Removing the last finalizer deletes in the same write: no MODIFIED in between.
  std::vector<json> events = readEvents(*c, 3);
  EXPECT_EQ(summary(events),
            (std::vector<std::string>{"ADDED held", "MODIFIED held", "DELETED held"}));
  ASSERT_EQ(events.size(), 3u);
  EXPECT_TRUE(events[1]["object"]["metadata"].contains("deletionTimestamp"));
  EXPECT_EQ(events[2]["object"]["metadata"]["namespace"], "kube-public");
}

// Verifies that the closeWatches fault ends open watches.
TEST(Watch, CloseWatchesFault) {
  Harness h;
  auto c = openWatch(h, std::string(kConfigMaps) + "?watch=true");
  ASSERT_NE(c, nullptr);
  ASSERT_EQ(h.post("/kubesim/faults", {{"closeWatches", true}}).status, 200);
  EXPECT_TRUE(streamEnds(*c, milliseconds(5000)));
}

// Verifies a watch of one object by fieldSelector=metadata.name and by the legacy watch path.
TEST(Watch, SingleObject) {
  Harness h;
  for (const char* name : {"a", "x"}) ASSERT_EQ(h.post(kConfigMaps, configMap(name)).status, 201);
  auto byField =
      openWatch(h, std::string(kConfigMaps) + "?watch=true&fieldSelector=metadata.name%3Dx");
  auto legacy = openWatch(h, "/api/v1/watch/namespaces/default/configmaps/x");
  ASSERT_NE(byField, nullptr);
  ASSERT_NE(legacy, nullptr);
  ASSERT_EQ(h.patch(cmPath("a"), kMerge, {{"data", {{"k", "1"}}}}).status, 200);
  ASSERT_EQ(h.patch(cmPath("x"), kMerge, {{"data", {{"k", "2"}}}}).status, 200);
  for (TestConnection* c : {byField.get(), legacy.get()}) {
    EXPECT_EQ(summary(readEvents(*c, 2)), (std::vector<std::string>{"ADDED x", "MODIFIED x"}));
  }
}

// Verifies the framing: every event is one JSON object on its own line.
TEST(Watch, OneJsonObjectPerLine) {
  Harness h;
  auto c = openWatch(h, std::string(kConfigMaps) + "?watch=true");
  ASSERT_NE(c, nullptr);
  for (const char* name : {"a", "b"}) ASSERT_EQ(h.post(kConfigMaps, configMap(name)).status, 201);
  std::string text;
  const auto deadline = std::chrono::steady_clock::now() + milliseconds(5000);
  while (std::count(text.begin(), text.end(), '\n') < 2 &&
         std::chrono::steady_clock::now() < deadline) {
    std::optional<std::string> chunk = c->readChunk();
    if (!chunk || chunk->empty()) break;
    text += *chunk;
  }
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  std::size_t start = 0;
  int lines = 0;
  for (std::size_t nl = text.find('\n'); nl != std::string::npos; nl = text.find('\n', start)) {
    json event = json::parse(text.substr(start, nl - start), nullptr, false);
    EXPECT_TRUE(event.is_object()) << text.substr(start, nl - start);
    EXPECT_EQ(event.size(), 2u) << "type and object only";
    start = nl + 1;
    ++lines;
  }
  EXPECT_EQ(lines, 2);
}

// Verifies that boolean parameters read as the API server's parameter codec reads them: absent,
// "0" or "false" in any case is false; anything else is true, Python's "True" and an empty value
// included (not strconv.ParseBool's set).
TEST(Watch, BooleanParametersAsTheApiServerReadsThem) {
  Harness::Options options;
  options.bookmarkInterval = milliseconds(100);
  Harness h(options);
  ASSERT_EQ(h.post(kConfigMaps, configMap("a")).status, 201);
  for (const char* value : {"True", "TRUE", "t", "yes", ""}) {
    SCOPED_TRACE(value);
    auto c = openWatch(h, std::string(kConfigMaps) + "?timeoutSeconds=5&watch=" + value +
                              "&allowWatchBookmarks=" + value);
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(summary(readEvents(*c, 2)), (std::vector<std::string>{"ADDED a", "BOOKMARK "}));
  }
  for (const char* value : {"false", "False", "FALSE", "0"}) {
    SCOPED_TRACE(value);
    Response list = h.get(std::string(kConfigMaps) + "?watch=" + value);
    EXPECT_EQ(list.status, 200);
    EXPECT_EQ(bodyJson(list)["kind"], "ConfigMapList");
  }
}

// Verifies that a watch with an invalid selector is refused before the stream starts.
TEST(Watch, InvalidSelectorIsBadRequest) {
  Harness h;
  expectStatus(h.get(std::string(kConfigMaps) + "?watch=true&fieldSelector=data.a%3D1"), 400,
               "BadRequest", "field label not supported: data.a");
}

}  // namespace
}  // namespace hetbench::kubesim::testing
