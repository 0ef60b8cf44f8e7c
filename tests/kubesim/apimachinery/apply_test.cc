#include "apimachinery/apply.h"

#include <gtest/gtest.h>

namespace hetbench::kubesim {
namespace {

using nlohmann::json;

json fieldsOf(const json& object, const ApplyType& type) {
  return fieldSetOf(object, type).toFieldsV1();
}

const ApplyType& deployment() { return *applyTypeForKind("Deployment"); }

// A CRD schema with each list and map type server-side apply distinguishes.
const ApplyType& widget() {
  static const std::shared_ptr<const ApplyType> type = applyTypeForSchema(json::parse(R"({
    "type": "object",
    "properties": {
      "spec": {"type": "object", "properties": {
        "ports": {"type": "array", "x-kubernetes-list-type": "map",
                  "x-kubernetes-list-map-keys": ["port", "protocol"],
                  "items": {"type": "object", "properties": {
                    "port": {"type": "integer"},
                    "protocol": {"type": "string", "default": "TCP"},
                    "name": {"type": "string"}}}},
        "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
        "args": {"type": "array", "items": {"type": "string"}},
        "selector": {"type": "object", "x-kubernetes-map-type": "atomic",
                     "additionalProperties": {"type": "string"}},
        "limits": {"type": "object", "additionalProperties": {
                     "type": "object", "properties": {"max": {"type": "integer"}}}},
        "size": {"type": "integer"}}}}})"));
  return *type;
}

// Verifies the set of an applied configuration: scalars, keyed elements with ".", set values,
// atomic lists and maps whole, map entries holding objects.
TEST(ApplyTest, FieldSetOfAppliedConfiguration) {
  struct Case {
    const char* name;
    const ApplyType& type;
    const char* object;
    const char* want;
  };
  const std::vector<Case> cases = {
      {"labels and data", deployment(),
       R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","labels":{"a":"1"}},
           "spec":{"replicas":2}})",
       R"({"f:apiVersion":{},"f:kind":{},"f:metadata":{"f:labels":{"f:a":{}},"f:name":{}},
           "f:spec":{"f:replicas":{}}})"},
      {"containers by name, ports by port and protocol, selector atomic", deployment(),
       R"({"spec":{"selector":{"matchLabels":{"a":"1"}},"template":{"spec":{"containers":[
           {"name":"c","image":"i","args":["x"],"ports":[{"containerPort":80}]}]}}}})",
       R"({"f:spec":{"f:selector":{},"f:template":{"f:spec":{"f:containers":{
           "k:{\"name\":\"c\"}":{".":{},"f:args":{},"f:image":{},"f:name":{},"f:ports":{
             "k:{\"containerPort\":80,\"protocol\":\"TCP\"}":{".":{},"f:containerPort":{}}}}}}}}})"},
      {"finalizers as a set, empty and null fields", deployment(),
       R"({"metadata":{"finalizers":["a","b"],"annotations":{}},"spec":{"paused":null}})",
       R"({"f:metadata":{"f:annotations":{},"f:finalizers":{"v:\"a\"":{},"v:\"b\"":{}}},
           "f:spec":{"f:paused":{}}})"},
      {"custom resource list types", widget(),
       R"({"spec":{"ports":[{"port":1,"name":"p"}],"tags":["x"],"args":["y"],
           "selector":{"k":"v"},"limits":{"gpu":{"max":2}},"size":3}})",
       R"({"f:spec":{"f:args":{},"f:limits":{"f:gpu":{".":{},"f:max":{}}},
           "f:ports":{"k:{\"port\":1,\"protocol\":\"TCP\"}":{".":{},"f:name":{},"f:port":{}}},
           "f:selector":{},"f:size":{},"f:tags":{"v:\"x\"":{}}}})"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(fieldsOf(json::parse(c.object), c.type), json::parse(c.want)) << c.name;
  }
}

// Verifies the comparison that decides what an update takes: maps and elements added whole are
// members themselves, atomic values are compared whole, removed fields are reported.
TEST(ApplyTest, CompareObjects) {
  struct Case {
    const char* name;
    const char* before;
    const char* after;
    const char* added;
    const char* modified;
    const char* removed;
  };
  const std::vector<Case> cases = {
      {"scalar changed", R"({"spec":{"replicas":1}})", R"({"spec":{"replicas":2}})", "{}",
       R"({"f:spec":{"f:replicas":{}}})", "{}"},
      {"map added", R"({"metadata":{}})", R"({"metadata":{"labels":{"a":"1"}}})",
       R"({"f:metadata":{"f:labels":{".":{},"f:a":{}}}})", "{}", "{}"},
      {"element added and one removed",
       R"({"spec":{"template":{"spec":{"containers":[{"name":"a","image":"x"}]}}}})",
       R"({"spec":{"template":{"spec":{"containers":[{"name":"b","image":"x"}]}}}})",
       R"({"f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"b\"}":{
           ".":{},"f:image":{},"f:name":{}}}}}}})",
       "{}",
       R"({"f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"a\"}":{
           ".":{},"f:image":{},"f:name":{}}}}}}})"},
      {"atomic selector changed whole", R"({"spec":{"selector":{"matchLabels":{"a":"1"}}}})",
       R"({"spec":{"selector":{"matchLabels":{"a":"2"}}}})", "{}",
       R"({"f:spec":{"f:selector":{}}})", "{}"},
      {"unchanged", R"({"spec":{"replicas":1}})", R"({"spec":{"replicas":1}})", "{}", "{}", "{}"},
  };
  for (const Case& c : cases) {
    Comparison got = compareObjects(json::parse(c.before), json::parse(c.after), deployment());
    EXPECT_EQ(got.added.toFieldsV1(), json::parse(c.added)) << c.name;
    EXPECT_EQ(got.modified.toFieldsV1(), json::parse(c.modified)) << c.name;
    EXPECT_EQ(got.removed.toFieldsV1(), json::parse(c.removed)) << c.name;
  }
}

// Verifies the merge of an applied configuration by the list and map types.
TEST(ApplyTest, MergeApplied) {
  struct Case {
    const char* name;
    const ApplyType& type;
    const char* live;
    const char* config;
    const char* want;
  };
  const std::vector<Case> cases = {
      {"maps merge key by key, null removes", deployment(),
       R"({"metadata":{"labels":{"a":"1","b":"2"}},"spec":{"replicas":1}})",
       R"({"metadata":{"labels":{"a":"9","b":null,"c":"3"}}})",
       R"({"metadata":{"labels":{"a":"9","c":"3"}},"spec":{"replicas":1}})"},
      {"containers merge by name, live-only ones stay in place", deployment(),
       R"({"spec":{"template":{"spec":{"containers":[
           {"name":"a","image":"1","tty":true},{"name":"x","image":"x"},{"name":"b","image":"2"}]}}}})",
       R"({"spec":{"template":{"spec":{"containers":[
           {"name":"b","image":"3"},{"name":"a","image":"4"},{"name":"c","image":"5"}]}}}})",
       R"({"spec":{"template":{"spec":{"containers":[
           {"name":"b","image":"3"},{"name":"a","image":"4","tty":true},{"name":"x","image":"x"},
           {"name":"c","image":"5"}]}}}})"},
      {"finalizers as a set, args atomic", deployment(),
       R"({"metadata":{"finalizers":["a","b"]},"spec":{"template":{"spec":{"containers":[
           {"name":"c","args":["1","2"]}]}}}})",
       R"({"metadata":{"finalizers":["c","a"]},"spec":{"template":{"spec":{"containers":[
           {"name":"c","args":["3"]}]}}}})",
       R"({"metadata":{"finalizers":["c","a","b"]},"spec":{"template":{"spec":{"containers":[
           {"name":"c","args":["3"]}]}}}})"},
      {"atomic selector replaced", deployment(),
       R"({"spec":{"selector":{"matchLabels":{"a":"1"}}}})",
       R"({"spec":{"selector":{"matchLabels":{"b":"2"}}}})",
       R"({"spec":{"selector":{"matchLabels":{"b":"2"}}}})"},
      {"custom resource: ports by defaulted key, atomic args", widget(),
       R"({"spec":{"ports":[{"port":1,"protocol":"TCP","name":"old"}],"args":["a"]}})",
       R"({"spec":{"ports":[{"port":1,"name":"new"}],"args":["b"]}})",
       R"({"spec":{"ports":[{"port":1,"protocol":"TCP","name":"new"}],"args":["b"]}})"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(mergeApplied(json::parse(c.live), json::parse(c.config), c.type), json::parse(c.want))
        << c.name;
  }
}

// Verifies that removed paths take their values and leave no empty map behind below the top.
TEST(ApplyTest, RemovePaths) {
  json object = json::parse(R"({"metadata":{"labels":{"a":"1"}},"spec":{"template":{"spec":{
      "containers":[{"name":"c","image":"i","env":[{"name":"E","value":"v"}]}]}}}})");
  json got = removePaths(object,
                         {{"f:metadata", "f:labels", "f:a"},
                          {"f:spec", "f:template", "f:spec", "f:containers", R"(k:{"name":"c"})",
                           "f:env", R"(k:{"name":"E"})"}},
                         deployment());
  EXPECT_EQ(got, json::parse(R"({"metadata":{},"spec":{"template":{"spec":{
      "containers":[{"name":"c","image":"i"}]}}}})"));
}

FieldWriter writer(const std::string& manager, const std::string& time = "2026-01-01T00:00:00Z") {
  return {manager, "apps/v1", "", time};
}

const ManagedFieldsEntry* entryOf(const std::vector<ManagedFieldsEntry>& entries,
                                  const std::string& manager) {
  for (const ManagedFieldsEntry& e : entries) {
    if (e.manager == manager) return &e;
  }
  return nullptr;
}

const json kApplied = json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment",
    "metadata":{"name":"d","labels":{"a":"1"}},"spec":{"replicas":2}})");

// Verifies the first apply: the object is the configuration and the manager owns what it set,
// without the type and the server's metadata.
TEST(ApplyTest, ApplyCreates) {
  ApplyOutcome out =
      applyConfiguration(json::object(), kApplied, {}, writer("m"), false, deployment());
  EXPECT_TRUE(out.conflicts.empty());
  EXPECT_EQ(out.object, kApplied);
  ASSERT_EQ(out.managedFields.size(), 1u);
  EXPECT_EQ(out.managedFields[0].operation, "Apply");
  EXPECT_EQ(out.managedFields[0].fields.toFieldsV1(),
            json::parse(R"({"f:metadata":{"f:labels":{"f:a":{}}},"f:spec":{"f:replicas":{}}})"));
}

// Verifies that a field the manager applied before and omits now is removed, unless another
// manager owns it too.
TEST(ApplyTest, ReapplyRemovesFieldsNoLongerApplied) {
  ApplyOutcome first =
      applyConfiguration(json::object(), kApplied, {}, writer("m"), false, deployment());
  json config = kApplied;
  config["metadata"].erase("labels");
  config["spec"]["paused"] = true;
  ApplyOutcome second = applyConfiguration(first.object, config, first.managedFields, writer("m"),
                                           false, deployment());
  EXPECT_EQ(second.object["metadata"], json({{"name", "d"}}));
  EXPECT_EQ(second.object["spec"], json({{"replicas", 2}, {"paused", true}}));

  // Another applier sharing the label keeps it when the first drops it.
  ApplyOutcome shared = applyConfiguration(first.object, kApplied, first.managedFields,
                                           writer("other"), false, deployment());
  ASSERT_TRUE(shared.conflicts.empty());
  ApplyOutcome third = applyConfiguration(shared.object, config, shared.managedFields, writer("m"),
                                          false, deployment());
  EXPECT_EQ(third.object["metadata"]["labels"], json({{"a", "1"}}));
}

// Verifies conflicts: another value for a field an updater owns is refused with the field and
// the manager; with force the applier takes the field; the same value is shared without one.
TEST(ApplyTest, ConflictsAndForce) {
  ApplyOutcome first =
      applyConfiguration(json::object(), kApplied, {}, writer("m"), false, deployment());
  json scaled = first.object;
  scaled["spec"]["replicas"] = 5;
  std::vector<ManagedFieldsEntry> managed =
      recordUpdate(first.object, scaled, first.managedFields, writer("scaler"), deployment());
  ASSERT_NE(entryOf(managed, "scaler"), nullptr);
  EXPECT_EQ(entryOf(managed, "scaler")->fields.toFieldsV1(),
            json::parse(R"({"f:spec":{"f:replicas":{}}})"));
  EXPECT_EQ(entryOf(managed, "m")->fields.toFieldsV1(),
            json::parse(R"({"f:metadata":{"f:labels":{"f:a":{}}}})"))
      << "the update took the field from the applier";

  ApplyOutcome refused =
      applyConfiguration(scaled, kApplied, managed, writer("m"), false, deployment());
  ASSERT_EQ(refused.conflicts.size(), 1u);
  EXPECT_EQ(refused.conflicts[0].manager, R"("scaler" using apps/v1)");
  EXPECT_EQ(
      conflictMessage(refused.conflicts),
      R"(Apply failed with 1 conflict: conflict with "scaler" using apps/v1: .spec.replicas)");

  json same = kApplied;
  same["spec"]["replicas"] = 5;
  ApplyOutcome shared = applyConfiguration(scaled, same, managed, writer("m"), false, deployment());
  EXPECT_TRUE(shared.conflicts.empty());
  EXPECT_TRUE(entryOf(shared.managedFields, "scaler")->fields.contains({"f:spec", "f:replicas"}));

  ApplyOutcome forced =
      applyConfiguration(scaled, kApplied, managed, writer("m"), true, deployment());
  EXPECT_EQ(forced.object["spec"]["replicas"], 2);
  EXPECT_EQ(entryOf(forced.managedFields, "scaler"), nullptr) << "it lost its only field";
  EXPECT_TRUE(entryOf(forced.managedFields, "m")->fields.contains({"f:spec", "f:replicas"}));
}

// Verifies the message for several conflicts, grouped by manager.
TEST(ApplyTest, ConflictMessageForSeveral) {
  std::vector<FieldConflict> conflicts = {
      {R"("a")", {"f:spec", "f:replicas"}},
      {R"("a")", {"f:spec", "f:paused"}},
      {R"("b" using v1)", {"f:data", "f:x"}},
  };
  EXPECT_EQ(conflictMessage(conflicts),
            "Apply failed with 3 conflicts: conflicts with \"a\":\n- .spec.replicas\n"
            "- .spec.paused\nconflicts with \"b\" using v1:\n- .data.x");
}

// Verifies the managedFields encoding: Apply before Update, then by time, with subresource.
TEST(ApplyTest, EncodeAndDecodeManagedFields) {
  FieldSet set;
  set.insert({"f:spec", "f:replicas"});
  json encoded = encodeManagedFields({
      {"z", "Update", "apps/v1", "2026-01-01T00:00:02Z", "", set},
      {"y", "Update", "apps/v1", "2026-01-01T00:00:01Z", "status", set},
      {"x", "Apply", "apps/v1", "2026-01-01T00:00:03Z", "", set},
  });
  ASSERT_EQ(encoded.size(), 3u);
  EXPECT_EQ(encoded[0]["manager"], "x");
  EXPECT_EQ(encoded[1]["manager"], "y");
  EXPECT_EQ(encoded[1]["subresource"], "status");
  EXPECT_EQ(encoded[2], json::parse(R"({"manager":"z","operation":"Update","apiVersion":"apps/v1",
      "time":"2026-01-01T00:00:02Z","fieldsType":"FieldsV1",
      "fieldsV1":{"f:spec":{"f:replicas":{}}}})"));
  common::Result<std::vector<ManagedFieldsEntry>> decoded = decodeManagedFields(encoded);
  ASSERT_TRUE(decoded.isOk());
  EXPECT_EQ(encodeManagedFields(*decoded), encoded);
  EXPECT_FALSE(decodeManagedFields(json::parse(R"([{"fieldsType":"FieldsV2"}])")).isOk());
}

}  // namespace
}  // namespace hetbench::kubesim
