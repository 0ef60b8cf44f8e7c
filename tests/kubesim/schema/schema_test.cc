#include "schema/schema.h"

#include <gtest/gtest.h>

namespace hetbench::kubesim {
namespace {

using common::StatusCause;
using nlohmann::json;

const char kPrefix[] = "spec.versions[0].schema.openAPIV3Schema";

json benchmarkRunSchema() {
  return json::parse(R"({
    "type": "object",
    "properties": {
      "apiVersion": {"type": "string"},
      "kind": {"type": "string"},
      "metadata": {"type": "object"},
      "spec": {
        "type": "object",
        "required": ["benchmark"],
        "properties": {
          "benchmark": {"type": "string", "enum": ["resnet50", "cosmoflow", "deepcam", "custom"]},
          "repetitions": {"type": "integer", "minimum": 1, "maximum": 100, "default": 1},
          "scale": {"type": "number", "exclusiveMinimum": true, "minimum": 0, "multipleOf": 0.5},
          "label": {"type": "string", "minLength": 2, "maxLength": 5, "pattern": "^[a-z]+$"},
          "startAfter": {"type": "string", "format": "date-time"},
          "seedBytes": {"type": "string", "format": "byte"},
          "port": {"x-kubernetes-int-or-string": true},
          "note": {"type": "string", "nullable": true},
          "matrix": {
            "type": "object",
            "minProperties": 1,
            "additionalProperties": {
              "type": "array", "maxItems": 3, "minItems": 1,
              "items": {"type": "string", "default": "x"}
            }
          },
          "nodes": {
            "type": "array",
            "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["name"],
            "items": {
              "type": "object",
              "required": ["name"],
              "properties": {
                "name": {"type": "string"},
                "gpus": {"type": "integer", "default": 1}
              }
            }
          },
          "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
          "workload": {
            "type": "object",
            "properties": {
              "template": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}
            }
          }
        }
      },
      "status": {
        "type": "object",
        "properties": {"phase": {"type": "string"}, "completed": {"type": "integer"}}
      }
    }
  })");
}

StructuralSchema compiled() {
  auto schema = StructuralSchema::compile(benchmarkRunSchema(), kPrefix);
  EXPECT_TRUE(schema.isOk()) << schema.status().toString();
  return std::move(schema).value();
}

json object(const json& spec) {
  return {{"apiVersion", "hetbench.io/v1"},
          {"kind", "BenchmarkRun"},
          {"metadata", {{"name", "run"}}},
          {"spec", spec}};
}

// Verifies that a realistic CRD schema compiles.
TEST(SchemaCompileTest, AcceptsStructuralSchema) {
  EXPECT_TRUE(StructuralSchema::compile(benchmarkRunSchema(), kPrefix).isOk());
}

// Verifies each structural or API rule is reported with the server's field and wording.
TEST(SchemaCompileTest, RejectsNonStructuralSchemas) {
  struct Case {
    const char* schema;
    StatusCause cause;
  };
  const std::string p = kPrefix;
  const Case cases[] = {
      {R"({"type":"object","properties":{"spec":{"properties":{}}}})",
       {p + ".properties[spec].type", "FieldValueRequired",
        "Required value: must not be empty for specified object fields"}},
      {R"({"properties":{}})",
       {p + ".type", "FieldValueRequired", "Required value: must not be empty at the root"}},
      {R"({"type":"string"})",
       {p + ".type", "FieldValueInvalid", "Invalid value: \"string\": must be object at the root"}},
      {R"({"type":"object","properties":{"a":{"type":"array"}}})",
       {p + ".properties[a].items", "FieldValueRequired", "Required value: must be specified"}},
      {R"({"type":"object","properties":{"a":{"type":"array","items":{}}}})",
       {p + ".properties[a].items.type", "FieldValueRequired",
        "Required value: must not be empty for specified array items"}},
      {R"({"type":"object","properties":{"a":{"type":"object","$ref":"#/x"}}})",
       {p + ".properties[a].$ref", "FieldValueForbidden", "Forbidden: $ref is not supported"}},
      {R"({"type":"object","definitions":{"x":{"type":"string"}}})",
       {p + ".definitions", "FieldValueForbidden", "Forbidden: definitions is not supported"}},
      {R"({"type":"object","properties":{"a":{"type":"array","uniqueItems":true,"items":{"type":"string"}}}})",
       {p + ".properties[a].uniqueItems", "FieldValueForbidden",
        "Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes "
        "quadratic"}},
      {R"({"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"string"}},"additionalProperties":{"type":"string"}}}})",
       {p + ".properties[a].additionalProperties", "FieldValueForbidden",
        "Forbidden: additionalProperties and properties are mutual exclusive"}},
      {R"({"type":"object","properties":{"metadata":{"type":"object","properties":{"labels":{"type":"object"}}}}})",
       {p + ".properties[metadata]", "FieldValueForbidden",
        "Forbidden: must not specify anything other than name and generateName, but metadata is "
        "implicitly specified"}},
      {R"({"type":"object","properties":{"a":{"type":"strin"}}})",
       {p + ".properties[a].type", "FieldValueNotSupported",
        "Unsupported value: \"strin\": supported values: \"array\", \"boolean\", \"integer\", "
        "\"number\", \"object\", \"string\""}},
      {R"({"type":"object","properties":{"a":{"type":"string","pattern":"(a"}}})",
       {p + ".properties[a].pattern", "FieldValueInvalid",
        "Invalid value: \"(a\": must be a valid regular expression, but isn't: error parsing "
        "regexp: missing closing ): `(a`"}},
      {R"({"type":"object","properties":{"a":{"type":"integer","minimum":1,"default":0}}})",
       {p + ".properties[a].default", "FieldValueInvalid",
        "Invalid value: 0:  in body should be greater than or equal to 1"}},
      {R"({"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"string"}},"default":{"c":1}}}})",
       {p + ".properties[a].default", "FieldValueInvalid",
        "Invalid value: map[string]interface {}{\"c\":1}: must not have unknown fields"}},
      {R"({"type":"object","properties":{"a":{"type":"array","x-kubernetes-list-type":"map","items":{"type":"object","properties":{"k":{"type":"string"}}}}}})",
       {p + ".properties[a].x-kubernetes-list-map-keys", "FieldValueRequired",
        "Required value: must not be empty if x-kubernetes-list-type is map"}},
      {R"({"type":"object","properties":{"a":{"type":"string","x-kubernetes-preserve-unknown-fields":false}}})",
       {p + ".properties[a].x-kubernetes-preserve-unknown-fields", "FieldValueInvalid",
        "Invalid value: false: must be true or undefined"}},
      {R"({"type":"object","properties":{"metadata":{"type":"object","default":{}}}})",
       {p + ".properties[metadata].default", "FieldValueForbidden",
        "Forbidden: must not be set in top-level metadata"}},
  };
  for (const auto& c : cases) {
    auto result = StructuralSchema::compile(json::parse(c.schema), kPrefix);
    ASSERT_FALSE(result.isOk()) << c.schema;
    EXPECT_TRUE(result.status().isInvalid());
    ASSERT_EQ(result.status().causes().size(), 1u) << result.status().toString();
    EXPECT_EQ(result.status().causes()[0], c.cause) << c.schema;
  }
}

// Verifies that several problems give one cause each, sorted like the server sorts them.
TEST(SchemaCompileTest, ReportsEveryProblem) {
  auto result = StructuralSchema::compile(
      json::parse(R"({"type":"object","properties":{"b":{},"a":{"type":"array"}}})"), "x");
  ASSERT_FALSE(result.isOk());
  const common::Status status = result.status();
  const auto& causes = status.causes();
  ASSERT_EQ(causes.size(), 2u);
  EXPECT_EQ(causes[0].field, "x.properties[a].items");
  EXPECT_EQ(causes[1].field, "x.properties[b].type");
  EXPECT_EQ(status.message(),
            "[x.properties[a].items: Required value: must be specified, x.properties[b].type: "
            "Required value: must not be empty for specified object fields]");
}

// Verifies each validation rule's cause: field, reason and the API server's message.
TEST(SchemaValidateTest, ReportsServerMessages) {
  struct Case {
    json spec;
    StatusCause cause;
  };
  const Case cases[] = {
      {{{"benchmark", "bert"}},
       {"spec.benchmark", "FieldValueNotSupported",
        "Unsupported value: \"bert\": supported values: \"resnet50\", \"cosmoflow\", "
        "\"deepcam\", \"custom\""}},
      {json::object(), {"spec.benchmark", "FieldValueRequired", "Required value"}},
      {{{"benchmark", "custom"}, {"repetitions", -1}},
       {"spec.repetitions", "FieldValueInvalid",
        "Invalid value: -1: spec.repetitions in body should be greater than or equal to 1"}},
      {{{"benchmark", "custom"}, {"repetitions", 101}},
       {"spec.repetitions", "FieldValueInvalid",
        "Invalid value: 101: spec.repetitions in body should be less than or equal to 100"}},
      {{{"benchmark", "custom"}, {"repetitions", "string"}},
       {"spec.repetitions", "FieldValueTypeInvalid",
        "Invalid value: \"string\": spec.repetitions in body must be of type integer: "
        "\"string\""}},
      {{{"benchmark", "custom"}, {"repetitions", 1.5}},
       {"spec.repetitions", "FieldValueTypeInvalid",
        "Invalid value: \"number\": spec.repetitions in body must be of type integer: "
        "\"number\""}},
      {{{"benchmark", "custom"}, {"scale", 0}},
       {"spec.scale", "FieldValueInvalid",
        "Invalid value: 0: spec.scale in body should be greater than 0"}},
      {{{"benchmark", "custom"}, {"scale", 1.25}},
       {"spec.scale", "FieldValueInvalid",
        "Invalid value: 1.25: spec.scale in body should be a multiple of 0.5"}},
      {{{"benchmark", "custom"}, {"label", "toolong"}},
       {"spec.label", "FieldValueTooLong", "Too long: may not be more than 5 bytes"}},
      {{{"benchmark", "custom"}, {"label", "a"}},
       {"spec.label", "FieldValueInvalid",
        "Invalid value: \"a\": spec.label in body should be at least 2 chars long"}},
      {{{"benchmark", "custom"}, {"label", "AB"}},
       {"spec.label", "FieldValueInvalid",
        "Invalid value: \"AB\": spec.label in body should match '^[a-z]+$'"}},
      {{{"benchmark", "custom"}, {"startAfter", "yesterday"}},
       {"spec.startAfter", "FieldValueTypeInvalid",
        "Invalid value: \"yesterday\": spec.startAfter in body must be of type date-time: "
        "\"yesterday\""}},
      {{{"benchmark", "custom"}, {"seedBytes", "abc"}},
       {"spec.seedBytes", "FieldValueTypeInvalid",
        "Invalid value: \"abc\": spec.seedBytes in body must be of type byte: \"abc\""}},
      {{{"benchmark", "custom"}, {"port", true}},
       {"spec.port", "FieldValueTypeInvalid",
        "Invalid value: \"boolean\": spec.port in body must be of type integer,string: "
        "\"boolean\""}},
      {{{"benchmark", "custom"}, {"matrix", json::object()}},
       {"spec.matrix", "FieldValueInvalid",
        "Invalid value: 0: spec.matrix in body should have at least 1 properties"}},
      {{{"benchmark", "custom"}, {"matrix", {{"gpus", {"a", "b", "c", "d"}}}}},
       {"spec.matrix.gpus", "FieldValueTooMany", "Too many: 4: must have at most 3 items"}},
      {{{"benchmark", "custom"}, {"matrix", {{"gpus", json::array()}}}},
       {"spec.matrix.gpus", "FieldValueInvalid",
        "Invalid value: 0: spec.matrix.gpus in body should have at least 1 items"}},
      {{{"benchmark", "custom"}, {"matrix", {{"gpus", {"a", 7}}}}},
       {"spec.matrix.gpus[1]", "FieldValueTypeInvalid",
        "Invalid value: \"integer\": spec.matrix.gpus[1] in body must be of type string: "
        "\"integer\""}},
      {{{"benchmark", "custom"}, {"matrix", {{"gpus", {"a", nullptr}}}}},
       {"spec.matrix.gpus[1]", "FieldValueTypeInvalid",
        "Invalid value: \"null\": spec.matrix.gpus[1] in body must be of type string: "
        "\"null\""}},
      {{{"benchmark", "custom"}, {"tags", {"a", "b", "a"}}},
       {"spec.tags[2]", "FieldValueDuplicate", "Duplicate value: \"a\""}},
      {{{"benchmark", "custom"}, {"nodes", {{{"name", "n1"}}, {{"name", "n1"}, {"gpus", 2}}}}},
       {"spec.nodes[1]", "FieldValueDuplicate",
        "Duplicate value: map[string]interface {}{\"name\":\"n1\"}"}},
      {{{"benchmark", "custom"}, {"nodes", {{{"gpus", 2}}}}},
       {"spec.nodes[0].name", "FieldValueRequired", "Required value"}},
  };
  const StructuralSchema schema = compiled();
  for (const auto& c : cases) {
    const auto causes = schema.validate(object(c.spec));
    ASSERT_EQ(causes.size(), 1u) << c.spec.dump() << ": " << causes.size();
    EXPECT_EQ(causes[0], c.cause) << c.spec.dump();
  }
}

// Verifies values the server accepts: integral floats as integers, nullable nulls, int-or-string.
TEST(SchemaValidateTest, AcceptsValidValues) {
  const json specs[] = {
      {{"benchmark", "resnet50"}, {"repetitions", 3.0}},
      {{"benchmark", "deepcam"}, {"note", nullptr}, {"port", "http"}},
      {{"benchmark", "custom"}, {"port", 8080}, {"startAfter", "2026-01-02T03:04:05Z"}},
      {{"benchmark", "custom"}, {"seedBytes", "aGk="}, {"label", "abc"}},
      {{"benchmark", "cosmoflow"}, {"workload", {{"template", {{"any", {{"thing", 1}}}}}}}},
  };
  const StructuralSchema schema = compiled();
  for (const auto& spec : specs) {
    EXPECT_TRUE(schema.validate(object(spec)).empty()) << spec.dump();
  }
}

// Verifies pruning drops unknown fields and reports their paths, except where preserved.
TEST(SchemaPruneTest, DropsUnknownFields) {
  const StructuralSchema schema = compiled();
  json obj = object({{"benchmark", "custom"},
                     {"bogus", 1},
                     {"nodes", {{{"name", "a"}, {"extra", true}}}},
                     {"workload", {{"template", {{"kept", 1}}}, {"dropped", 2}}}});
  obj["topLevel"] = "x";
  obj["metadata"]["whatever"] = 1;
  const auto pruned = schema.prune(obj);
  EXPECT_EQ(pruned, (std::vector<std::string>{"spec.bogus", "spec.nodes[0].extra",
                                              "spec.workload.dropped", "topLevel"}));
  EXPECT_FALSE(obj.contains("topLevel"));
  EXPECT_EQ(obj["spec"]["workload"], json({{"template", {{"kept", 1}}}}));
  EXPECT_EQ(obj["metadata"]["whatever"], 1);
}

// Verifies defaults fill absent fields, inside items and additionalProperties, and replace
// non-nullable nulls, while nullable nulls stay.
TEST(SchemaDefaultTest, AppliesDefaults) {
  const StructuralSchema schema = compiled();
  json obj = object({{"benchmark", "custom"},
                     {"note", nullptr},
                     {"label", nullptr},
                     {"nodes", {{{"name", "a"}}, {{"name", "b"}, {"gpus", 4}}}},
                     {"matrix", {{"gpus", {"a", nullptr}}}}});
  schema.applyDefaults(obj);
  EXPECT_EQ(obj["spec"]["repetitions"], 1);
  EXPECT_TRUE(obj["spec"]["note"].is_null());
  EXPECT_FALSE(obj["spec"].contains("label"));
  EXPECT_EQ(obj["spec"]["nodes"][0]["gpus"], 1);
  EXPECT_EQ(obj["spec"]["nodes"][1]["gpus"], 4);
  EXPECT_EQ(obj["spec"]["matrix"]["gpus"], json({"a", "x"}));
}

// Verifies sub-schema lookup by dotted path.
TEST(SchemaAtTest, FindsSubSchemas) {
  const StructuralSchema schema = compiled();
  ASSERT_NE(schema.at("status"), nullptr);
  EXPECT_EQ((*schema.at("status"))["type"], "object");
  ASSERT_NE(schema.at("spec.repetitions"), nullptr);
  EXPECT_EQ((*schema.at("spec.repetitions"))["default"], 1);
  ASSERT_NE(schema.at("spec.matrix.gpus"), nullptr);
  EXPECT_EQ((*schema.at("spec.matrix.gpus"))["type"], "array");
  EXPECT_EQ(schema.at("spec.nothing"), nullptr);
}

}  // namespace
}  // namespace hetbench::kubesim
