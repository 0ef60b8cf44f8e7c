#include "hetbench/common/yaml.h"

#include <gtest/gtest.h>

namespace hetbench::common {
namespace {

using nlohmann::json;

// Verifies how plain scalars are typed: the YAML 1.2 core schema, quoted scalars strings.
TEST(Yaml, TypesPlainScalarsByTheCoreSchema) {
  struct Row {
    const char* yaml;
    json want;
  };
  const Row rows[] = {
      {"v: 3", 3},
      {"v: -12", -12},
      {"v: +7", 7},
      {"v: 1.5", 1.5},
      {"v: .5", 0.5},
      {"v: 1e3", 1000.0},
      {"v: 99999999999999999999", 1e20},
      {"v: true", true},
      {"v: False", false},
      {"v: ~", nullptr},
      {"v:", nullptr},
      {"v: null", nullptr},
      {"v: \"3\"", "3"},
      {"v: '1.5'", "1.5"},
      {"v: yes", "yes"},
      {"v: 0x1F", "0x1F"},
      {"v: 1e999", "1e999"},
      {"v: $(params.gpus)", "$(params.gpus)"},
  };
  for (const Row& row : rows) {
    Result<std::vector<json>> got = yamlDocuments(row.yaml);
    ASSERT_TRUE(got.isOk()) << row.yaml;
    ASSERT_EQ(got->size(), 1u) << row.yaml;
    EXPECT_EQ((*got)[0]["v"], row.want) << row.yaml;
  }
}

// Verifies several documents, empty ones skipped, the string mode and malformed input.
TEST(Yaml, DocumentsStringsAndErrors) {
  Result<std::vector<json>> docs = yamlDocuments("a: [1, x]\n---\n---\nb: {c: d}\n");
  ASSERT_TRUE(docs.isOk());
  ASSERT_EQ(docs->size(), 2u);
  EXPECT_EQ((*docs)[0], json({{"a", {1, "x"}}}));
  EXPECT_EQ((*docs)[1], json({{"b", {{"c", "d"}}}}));
  Result<std::vector<json>> strings = yamlDocuments("n: 64\n", YamlScalars::kStrings);
  ASSERT_TRUE(strings.isOk());
  EXPECT_EQ((*strings)[0]["n"], "64");
  EXPECT_TRUE(yamlDocuments("").value().empty());
  Result<std::vector<json>> bad = yamlDocuments("a: [unclosed\n");
  EXPECT_TRUE(bad.status().isInvalid());
  EXPECT_NE(bad.status().message().find("line"), std::string::npos) << bad.status().message();
}

}  // namespace
}  // namespace hetbench::common
