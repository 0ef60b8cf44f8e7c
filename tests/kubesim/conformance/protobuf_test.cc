#include <gtest/gtest.h>

#include <cstdint>

#include "conformance/status_util.h"
#include "protobuf/codec.h"
#include "testing/harness.h"

namespace hetbench::kubesim::testing {
namespace {

using nlohmann::json;

constexpr const char* kProtobuf = "application/vnd.kubernetes.protobuf";
// What client-go's typed clients send.
constexpr const char* kAcceptProtobuf =
    "Accept: application/vnd.kubernetes.protobuf,application/json\r\n";
constexpr const char* kConfigMaps = "/api/v1/namespaces/default/configmaps";

std::string encoded(const json& object) {
  common::Result<std::string> bytes = protobuf::encodeObject(object);
  EXPECT_TRUE(bytes.isOk()) << bytes.status().message();
  return bytes.isOk() ? *bytes : "";
}

json decoded(const Response& response) {
  EXPECT_EQ(response.header("content-type"), kProtobuf) << response.body;
  common::Result<json> object = protobuf::decodeObject(response.body);
  EXPECT_TRUE(object.isOk()) << object.status().message();
  return object.isOk() ? *object : json();
}

json namespaceObject(const std::string& name) {
  return {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}}}};
}

// Verifies that a protobuf create is answered in protobuf and reads back the same in JSON.
TEST(Protobuf, CreateAndReadBack) {
  Harness h;
  Response created = h.request("POST", "/api/v1/namespaces", encoded(namespaceObject("team-a")),
                               kProtobuf, kAcceptProtobuf);
  ASSERT_EQ(created.status, 201) << created.body;
  json object = decoded(created);
  EXPECT_EQ(object["kind"], "Namespace");
  EXPECT_EQ(object["metadata"]["name"], "team-a");
  EXPECT_EQ(object["spec"]["finalizers"], json::array({"kubernetes"}));
  Response got = h.get("/api/v1/namespaces/team-a");
  ASSERT_EQ(got.status, 200) << got.body;
  EXPECT_EQ(bodyJson(got), object);
  Response gotInProtobuf = h.request("GET", "/api/v1/namespaces/team-a", "", "", kAcceptProtobuf);
  ASSERT_EQ(gotInProtobuf.status, 200);
  EXPECT_EQ(decoded(gotInProtobuf), object);
}

// Verifies that a protobuf body with a JSON Accept header is answered in JSON, and that a
// ConfigMap's Secret-like bytes and a Job's zero parallelism survive the protobuf write.
TEST(Protobuf, BodyInProtobufAnswerInJson) {
  Harness h;
  json cm = configMap("settings", {{"mode", "fast"}});
  cm["binaryData"] = {{"blob", "AAEC/w=="}};
  Response created = h.request("POST", kConfigMaps, encoded(cm), kProtobuf);
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(created.header("content-type"), "application/json");
  EXPECT_EQ(bodyJson(created)["binaryData"], cm["binaryData"]);

  const json job = json::parse(R"json({"apiVersion": "batch/v1", "kind": "Job",
      "metadata": {"name": "idle"},
      "spec": {"parallelism": 0, "template": {"spec": {"restartPolicy": "Never",
          "containers": [{"name": "c", "image": "busybox"}]}}}})json");
  Response job201 =
      h.request("POST", "/apis/batch/v1/namespaces/default/jobs", encoded(job), kProtobuf);
  ASSERT_EQ(job201.status, 201) << job201.body;
  EXPECT_EQ(bodyJson(job201)["spec"]["parallelism"], 0);
}

// Verifies that errors and lists are negotiated as objects are.
TEST(Protobuf, ErrorsAndListsInProtobuf) {
  Harness h;
  Response missing =
      h.request("GET", std::string(kConfigMaps) + "/absent", "", "", kAcceptProtobuf);
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(decoded(missing), failureStatus(404, "NotFound", "configmaps \"absent\" not found",
                                            {{"name", "absent"}, {"kind", "configmaps"}}));
  ASSERT_EQ(h.post(kConfigMaps, configMap("one")).status, 201);
  Response list = h.request("GET", kConfigMaps, "", "", kAcceptProtobuf);
  ASSERT_EQ(list.status, 200);
  json items = decoded(list);
  EXPECT_EQ(items["kind"], "ConfigMapList");
  ASSERT_EQ(items["items"].size(), 1u);
  EXPECT_EQ(items["items"][0]["metadata"]["name"], "one");
  // A Table is JSON whatever else the client accepts.
  Response table = h.request(
      "GET", kConfigMaps, "", "",
      "Accept: "
      "application/json;as=Table;v=v1;g=meta.k8s.io,application/vnd.kubernetes.protobuf\r\n");
  EXPECT_EQ(bodyJson(table)["kind"], "Table");
}

// Verifies the answers to protobuf bodies kubesim cannot take.
TEST(Protobuf, RefusedBodies) {
  Harness h;
  expectStatus(
      h.request("POST", "/api/v1/namespaces", "{\"kind\":\"Namespace\"}", kProtobuf), 400,
      "BadRequest",
      "the object provided is unrecognized (must be of type Namespace): provided data does "
      "not appear to be a protobuf message, expected prefix [107 56 115 0]");
  const std::string truncated = encoded(namespaceObject("cut"));
  Response cut =
      h.request("POST", "/api/v1/namespaces", truncated.substr(0, truncated.size() - 2), kProtobuf);
  EXPECT_EQ(cut.status, 400) << cut.body;
  EXPECT_EQ(bodyJson(cut)["reason"], "BadRequest");
  expectStatus(h.request("PATCH", std::string(kConfigMaps) + "/x",
                         encoded(configMap("x", {{"a", "b"}})), kProtobuf),
               415, "UnsupportedMediaType",
               "the body of the request was in an unknown format - accepted media types include: "
               "application/json-patch+json, application/merge-patch+json, "
               "application/strategic-merge-patch+json, application/apply-patch+yaml");

  Response crd = h.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                        readManifest(std::string(KUBESIM_FIXTURES_DIR) + "/ipujob-crd.yaml"));
  ASSERT_EQ(crd.status, 201) << crd.body;
  const std::string jobs = "/apis/graphcore.ai/v1alpha1/namespaces/default/ipujobs";
  ASSERT_TRUE(Harness::eventually([&] { return h.get(jobs).status == 200; }));
  // A custom resource speaks JSON only, as the API server's handler for them does.
  const json ipuJob = {
      {"apiVersion", "graphcore.ai/v1alpha1"}, {"kind", "IPUJob"}, {"metadata", {{"name", "j"}}}};
  expectStatus(h.request("POST", jobs, std::string("k8s\0", 4) + ipuJob.dump(), kProtobuf), 415,
               "UnsupportedMediaType",
               "the body of the request was in an unknown format - accepted media types include: "
               "application/json, application/yaml");
  Response listed = h.request("GET", jobs, "", "", kAcceptProtobuf);
  EXPECT_EQ(listed.header("content-type"), "application/json");
}

// Verifies DeleteOptions sent in protobuf, as client-go's typed Delete sends them.
TEST(Protobuf, DeleteOptions) {
  Harness h;
  ASSERT_EQ(h.post(kConfigMaps, configMap("keep")).status, 201);
  const json dryRun = {{"apiVersion", "v1"}, {"kind", "DeleteOptions"}, {"dryRun", {"All"}}};
  Response deleted = h.request("DELETE", std::string(kConfigMaps) + "/keep", encoded(dryRun),
                               kProtobuf, kAcceptProtobuf);
  ASSERT_EQ(deleted.status, 200) << deleted.body;
  EXPECT_EQ(decoded(deleted)["metadata"]["name"], "keep");
  EXPECT_EQ(h.get(std::string(kConfigMaps) + "/keep").status, 200);
}

// Reads one length-delimited field of a protobuf message: its number and its bytes.
bool readBytesField(std::string_view& in, int* number, std::string* bytes) {
  auto varint = [&in](std::uint64_t* v) {
    *v = 0;
    for (int shift = 0; !in.empty() && shift < 64; shift += 7) {
      const auto b = static_cast<unsigned char>(in.front());
      in.remove_prefix(1);
      *v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return true;
    }
    return false;
  };
  std::uint64_t tag = 0;
  std::uint64_t size = 0;
  if (!varint(&tag) || (tag & 7) != 2 || !varint(&size) || size > in.size()) return false;
  *number = static_cast<int>(tag >> 3);
  *bytes = std::string(in.substr(0, size));
  in.remove_prefix(size);
  return true;
}

// Verifies a protobuf watch: length-prefixed WatchEvents whose objects are enveloped.
TEST(Protobuf, Watch) {
  Harness h;
  Response head;
  std::unique_ptr<TestConnection> c =
      h.stream(std::string(kConfigMaps) + "?watch=true", &head, kAcceptProtobuf);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(head.header("content-type"), "application/vnd.kubernetes.protobuf;stream=watch");
  ASSERT_EQ(h.post(kConfigMaps, configMap("seen")).status, 201);
  std::string stream;
  while (stream.size() < 4 ||
         stream.size() <
             4 + ((static_cast<std::size_t>(static_cast<unsigned char>(stream[2])) << 8) |
                  static_cast<unsigned char>(stream[3]))) {
    std::optional<std::string> chunk = c->readChunk();
    ASSERT_TRUE(chunk && !chunk->empty());
    stream += *chunk;
  }
  ASSERT_EQ(stream.substr(0, 2), std::string(2, '\0'));
  std::string_view event = std::string_view(stream).substr(4);
  int number = 0;
  std::string type;
  std::string rawExtension;
  ASSERT_TRUE(readBytesField(event, &number, &type));
  EXPECT_EQ(number, 1);
  EXPECT_EQ(type, "ADDED");
  ASSERT_TRUE(readBytesField(event, &number, &rawExtension));
  EXPECT_EQ(number, 2);
  std::string_view raw = rawExtension;
  std::string enveloped;
  ASSERT_TRUE(readBytesField(raw, &number, &enveloped));
  common::Result<json> object = protobuf::decodeObject(enveloped);
  ASSERT_TRUE(object.isOk()) << object.status().message();
  EXPECT_EQ((*object)["metadata"]["name"], "seen");
}

}  // namespace
}  // namespace hetbench::kubesim::testing
