#include <gtest/gtest.h>

#include "hetbench/common/time.h"
#include "schema/jsonpath.h"

namespace hetbench::kubesim {
namespace {

using nlohmann::json;

const common::WallTime kNow = *common::parseRfc3339("2026-03-10T12:00:00Z");

json run(const std::string& name, const json& spec, const std::string& created) {
  return {{"apiVersion", "hetbench.io/v1"},
          {"kind", "BenchmarkRun"},
          {"metadata", {{"name", name}, {"creationTimestamp", created}}},
          {"spec", spec}};
}

const std::vector<PrinterColumn> kColumns = {
    {"Benchmark", "string", "", "The benchmark to run", 0, ".spec.benchmark"},
    {"Reps", "integer", "", "", 0, ".spec.repetitions"},
    {"Scale", "number", "", "", 1, ".spec.scale"},
    {"Gpus", "string", "", "", 1, ".spec.gpus"},
    {"Age", "date", "", "", 0, ".metadata.creationTimestamp"},
};

// Verifies column definitions, typed cells, nulls for absent paths and ages as the server prints.
TEST(TableTest, BuildsRowsLikeTheServer) {
  const std::vector<json> objects = {
      run("a", {{"benchmark", "resnet50"}, {"repetitions", 3}, {"scale", 1.5}, {"gpus", {"a100"}}},
          "2026-03-10T11:55:00Z"),
      run("b", {{"repetitions", 2.0}, {"scale", 2}}, "2026-03-07T08:00:00Z"),
  };
  auto table = buildCustomResourceTable(kColumns, objects, {{"resourceVersion", "42"}}, "", kNow);
  ASSERT_TRUE(table.isOk()) << table.status().toString();
  EXPECT_EQ((*table)["kind"], "Table");
  EXPECT_EQ((*table)["apiVersion"], "meta.k8s.io/v1");
  EXPECT_EQ((*table)["metadata"], json({{"resourceVersion", "42"}}));
  const json& defs = (*table)["columnDefinitions"];
  ASSERT_EQ(defs.size(), 6u);
  EXPECT_EQ(defs[0]["name"], "Name");
  EXPECT_EQ(defs[0]["format"], "name");
  EXPECT_EQ(defs[1], json({{"name", "Benchmark"},
                           {"type", "string"},
                           {"format", ""},
                           {"description", "The benchmark to run"},
                           {"priority", 0}}));
  EXPECT_EQ(defs[2]["description"],
            "Custom resource definition column (in JSONPath format): .spec.repetitions");
  EXPECT_EQ(defs[3]["priority"], 1);
  const json& rows = (*table)["rows"];
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0]["cells"].dump(), R"(["a","resnet50",3,1.5,"[\"a100\"]","5m"])");
  EXPECT_EQ(rows[1]["cells"].dump(), R"(["b",null,2,2,null,"3d4h"])");
  EXPECT_EQ(rows[0]["object"], json({{"kind", "PartialObjectMetadata"},
                                     {"apiVersion", "meta.k8s.io/v1"},
                                     {"metadata", objects[0]["metadata"]}}));
}

// Verifies the default Age column when the CRD declares none.
TEST(TableTest, AddsAgeWhenNoColumns) {
  auto table = buildCustomResourceTable({}, {run("a", json::object(), "2026-03-10T11:59:30Z")},
                                        json::object(), "Metadata", kNow);
  ASSERT_TRUE(table.isOk());
  const json& defs = (*table)["columnDefinitions"];
  ASSERT_EQ(defs.size(), 2u);
  EXPECT_EQ(defs[1]["name"], "Age");
  EXPECT_EQ(defs[1]["type"], "date");
  EXPECT_EQ(defs[1]["description"].get<std::string>().rfind("CreationTimestamp is a timestamp", 0),
            0u);
  EXPECT_EQ((*table)["rows"][0]["cells"], json({"a", "30s"}));
  EXPECT_EQ((*table)["metadata"], json::object());
}

// Verifies includeObject: Object, None, and an unknown value.
TEST(TableTest, HonoursIncludeObject) {
  const json object = run("a", json::object(), "2026-03-10T11:00:00Z");
  auto full = buildCustomResourceTable(kColumns, {object}, json::object(), "Object", kNow);
  ASSERT_TRUE(full.isOk());
  EXPECT_EQ((*full)["rows"][0]["object"], object);
  auto none = buildCustomResourceTable(kColumns, {object}, json::object(), "None", kNow);
  ASSERT_TRUE(none.isOk());
  EXPECT_TRUE((*none)["rows"][0]["object"].is_null());
  auto bad = buildCustomResourceTable(kColumns, {object}, json::object(), "Everything", kNow);
  ASSERT_FALSE(bad.isOk());
  EXPECT_TRUE(bad.status().isInvalid());
  EXPECT_EQ(bad.status().message(), "unrecognized includeObject value: \"Everything\"");
}

}  // namespace
}  // namespace hetbench::kubesim
