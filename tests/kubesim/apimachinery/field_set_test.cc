#include "apimachinery/field_set.h"

#include <gtest/gtest.h>

namespace hetbench::kubesim {
namespace {

using nlohmann::json;

// Verifies that FieldsV1 reads and writes back unchanged, "." marking a member with paths below.
TEST(FieldSetTest, FieldsV1RoundTrips) {
  const std::vector<const char*> cases = {
      R"({})",
      R"({"f:data":{"f:a":{}}})",
      R"({"f:metadata":{"f:labels":{".":{},"f:app":{}}}})",
      R"({"f:spec":{"f:containers":{"k:{\"name\":\"c\"}":{".":{},"f:image":{},"f:name":{}}}}})",
      R"({"f:metadata":{"f:finalizers":{"v:\"a\"":{},"v:\"b\"":{}}}})",
      R"({"f:list":{"i:0":{}}})",
  };
  for (const char* text : cases) {
    common::Result<FieldSet> set = FieldSet::fromFieldsV1(json::parse(text));
    ASSERT_TRUE(set.isOk()) << text << ": " << set.status().message();
    EXPECT_EQ(set->toFieldsV1(), json::parse(text)) << text;
  }
}

// Verifies that a FieldsV1 document that is not one is refused.
TEST(FieldSetTest, MalformedFieldsV1IsInvalid) {
  for (const char* text :
       {R"([])", R"({"spec":{}})", R"({"f:a":1})", R"({"k:notjson":{}})", R"({"i:x":{}})"}) {
    EXPECT_FALSE(FieldSet::fromFieldsV1(json::parse(text)).isOk()) << text;
  }
}

// Verifies membership, the set operations and that paths print as in conflict messages.
TEST(FieldSetTest, OperationsAndPathStrings) {
  FieldSet a;
  a.insert({"f:spec", "f:replicas"});
  a.insert({"f:spec", "f:template"});
  FieldSet b;
  b.insert({"f:spec", "f:replicas"});
  b.insert({"f:metadata", "f:labels", "f:x"});
  EXPECT_TRUE(a.contains({"f:spec", "f:replicas"}));
  EXPECT_FALSE(a.contains({"f:spec"}));
  EXPECT_TRUE(a.touches({"f:spec"}));
  EXPECT_FALSE(a.touches({"f:status"}));
  EXPECT_EQ(a.intersect(b).members(), std::vector<FieldSet::Path>({{"f:spec", "f:replicas"}}));
  EXPECT_EQ(a.minus(b).members(), std::vector<FieldSet::Path>({{"f:spec", "f:template"}}));
  EXPECT_EQ(a.unite(b).members().size(), 3u);
  EXPECT_TRUE(a.minus(a).empty());
  EXPECT_EQ(a.minus(a).toFieldsV1(), json::object());

  EXPECT_EQ(pathString({"f:spec", "f:replicas"}), ".spec.replicas");
  EXPECT_EQ(pathString({"f:spec", R"(k:{"containerPort":80,"protocol":"TCP"})", "f:name"}),
            R"(.spec[containerPort=80,protocol="TCP"].name)");
  EXPECT_EQ(pathString({"f:metadata", "f:finalizers", R"(v:"a")"}),
            R"(.metadata.finalizers[="a"])");
  EXPECT_EQ(pathString({"f:args", "i:2"}), ".args[2]");
}

}  // namespace
}  // namespace hetbench::kubesim
