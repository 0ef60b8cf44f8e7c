#include "hetbench/slurm/cluster.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "hetbench/common/base64.h"

namespace hetbench::slurm {
namespace {

using nlohmann::json;

json spec() {
  return {
      {"url", "https://slurm.example:6820"},
      {"openapiVersion", "v0.0.38"},
      {"user", "hetbench"},
      {"tokenSecretRef", {{"name", "jwt"}, {"key", "auth"}}},
      {"defaults", {{"partition", "gpu"}, {"account", "lab"}, {"qos", "bench"}}},
      {"output", {{"sharedFilesystem", {{"slurmPath", "/work/hb"}, {"operatorPath", "/mnt/hb"}}}}}};
}

std::vector<std::string> fieldsOf(const common::Status& status) {
  std::vector<std::string> out;
  for (const common::StatusCause& cause : status.causes()) out.push_back(cause.field);
  return out;
}

TEST(SlurmClusterSpecTest, ReadsEveryField) {
  json s = spec();
  s["caBundle"] =
      common::base64Encode("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
  auto parsed = parseClusterSpec(s);
  ASSERT_TRUE(parsed.isOk()) << parsed.status().toString();
  EXPECT_EQ(parsed->url, "https://slurm.example:6820");
  EXPECT_EQ(parsed->version, ApiVersion::kV0_0_38);
  EXPECT_EQ(parsed->user, "hetbench");
  EXPECT_EQ(parsed->token.name, "jwt");
  EXPECT_EQ(parsed->token.key, "auth");
  EXPECT_EQ(parsed->caPem.rfind("-----BEGIN CERTIFICATE-----", 0), 0U);
  EXPECT_EQ(parsed->partition, "gpu");
  EXPECT_EQ(parsed->account, "lab");
  EXPECT_EQ(parsed->qos, "bench");
  EXPECT_EQ(parsed->output.slurmPath, "/work/hb");
  EXPECT_EQ(parsed->output.operatorPath, "/mnt/hb");
  json minimal = spec();
  minimal.erase("defaults");
  minimal["tokenSecretRef"].erase("key");
  auto defaults = parseClusterSpec(minimal);
  ASSERT_TRUE(defaults.isOk());
  EXPECT_EQ(defaults->token.key, "token");
  EXPECT_EQ(defaults->partition, "");
}

TEST(SlurmClusterSpecTest, RefusesWhatCannotBeUsed) {
  struct Case {
    const char* name;
    std::function<void(json&)> change;
    std::vector<std::string> fields;
  };
  const std::vector<Case> cases = {
      {"no url", [](json& s) { s.erase("url"); }, {"spec.url"}},
      {"ftp url", [](json& s) { s["url"] = "ftp://x"; }, {"spec.url"}},
      {"unknown version",
       [](json& s) { s["openapiVersion"] = "v0.0.40"; },
       {"spec.openapiVersion"}},
      {"no version", [](json& s) { s.erase("openapiVersion"); }, {"spec.openapiVersion"}},
      {"empty user", [](json& s) { s["user"] = ""; }, {"spec.user"}},
      {"no secret", [](json& s) { s.erase("tokenSecretRef"); }, {"spec.tokenSecretRef"}},
      {"no secret name",
       [](json& s) { s["tokenSecretRef"].erase("name"); },
       {"spec.tokenSecretRef.name"}},
      {"bad CA",
       [](json& s) { s["caBundle"] = common::base64Encode("not a certificate"); },
       {"spec.caBundle"}},
      {"no output", [](json& s) { s.erase("output"); }, {"spec.output"}},
      {"relative path",
       [](json& s) { s["output"]["sharedFilesystem"]["operatorPath"] = "mnt/hb"; },
       {"spec.output.sharedFilesystem.operatorPath"}},
      {"number partition",
       [](json& s) { s["defaults"]["partition"] = 3; },
       {"spec.defaults.partition"}},
  };
  for (const Case& c : cases) {
    json s = spec();
    c.change(s);
    auto parsed = parseClusterSpec(s);
    ASSERT_FALSE(parsed.isOk()) << c.name;
    EXPECT_TRUE(parsed.status().isInvalid()) << c.name;
    EXPECT_EQ(fieldsOf(parsed.status()), c.fields) << c.name;
  }
}

}  // namespace
}  // namespace hetbench::slurm
