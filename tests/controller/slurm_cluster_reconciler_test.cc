// The SlurmCluster reconciler in process over the fake client and a fake slurmrestd client: each
// reason of the Ready condition, and what is written when.
#include "hetbench/controller/slurm_cluster_reconciler.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hetbench/benchmark/run.h"
#include "hetbench/common/base64.h"
#include "kube/fake_client.h"
#include "reconciler_fakes.h"

namespace hetbench::controller::testing {
namespace {

using namespace std::chrono_literals;

/// slurmrestd as the test wants it to answer.
struct FakeSlurm {
  common::Status ping;
  common::Result<std::vector<slurm::PartitionInfo>> partitions =
      std::vector<slurm::PartitionInfo>{{"gpu", {"UP"}, "node[1-2]", 2, std::nullopt}};
  std::vector<slurm::ClientOptions> made;  // the options of each client made
};

class FakeApi final : public slurm::SlurmApi {
 public:
  explicit FakeApi(FakeSlurm& slurm) : slurm_(slurm) {}
  common::Result<slurm::Submitted> submit(const slurm::JobRequest&) override {
    return common::internalError("not used");
  }
  common::Result<slurm::JobInfo> job(std::int64_t) override {
    return common::internalError("not used");
  }
  common::Result<std::vector<slurm::JobInfo>> jobs(std::optional<common::WallTime>) override {
    return common::internalError("not used");
  }
  common::Status cancel(std::int64_t) override { return common::internalError("not used"); }
  common::Result<std::vector<slurm::NodeInfo>> nodes() override {
    return common::internalError("not used");
  }
  common::Result<std::vector<slurm::PartitionInfo>> partitions() override {
    return slurm_.partitions;
  }
  common::Status ping() override { return slurm_.ping; }

 private:
  FakeSlurm& slurm_;
};

class Clusters final : public SlurmClusterCache {
 public:
  explicit Clusters(kube::testing::FakeKubeClient& client) : client_(client) {}
  std::optional<json> slurmCluster(const std::string& name) const override {
    common::Result<json> got = client_.get(kSlurmClusters, "", name);
    if (!got.isOk()) return std::nullopt;
    return *got;
  }

 private:
  kube::testing::FakeKubeClient& client_;
};

class SlurmClusterReconcilerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SlurmConnectorOptions connect;
    connect.secretNamespace = "hetbench-system";
    connect.clients =
        [this](slurm::ClientOptions o) -> common::Result<std::unique_ptr<slurm::SlurmApi>> {
      slurm_.made.push_back(std::move(o));
      return std::unique_ptr<slurm::SlurmApi>(std::make_unique<FakeApi>(slurm_));
    };
    connector_ = std::make_unique<SlurmConnector>(client_, clusters_, connect);
    SlurmClusterReconcilerOptions options;
    options.probeInterval = 45s;
    reconciler_ = std::make_unique<SlurmClusterReconciler>(client_, clusters_, *connector_, clock_,
                                                           events_, options);
  }
  static json spec() {
    return {{"url", "https://slurm.example:6820"},
            {"openapiVersion", "v0.0.42"},
            {"user", "hetbench"},
            {"tokenSecretRef", {{"name", "cirrus-jwt"}}},
            {"defaults", {{"partition", "gpu"}}},
            {"output",
             {{"sharedFilesystem",
               {{"slurmPath", "/work/hetbench"}, {"operatorPath", "/mnt/cirrus"}}}}}};
  }
  void define(json s = spec()) {
    const json cluster = {{"apiVersion", "hetbench.io/v1alpha1"},
                          {"kind", "SlurmCluster"},
                          {"metadata", {{"name", "cirrus"}, {"generation", 1}}},
                          {"spec", std::move(s)}};
    ASSERT_TRUE(client_.create(kSlurmClusters, "", cluster).isOk());
  }
  void secret(const std::string& token, const std::string& key = "token") {
    const json object = {{"apiVersion", "v1"},
                         {"kind", "Secret"},
                         {"metadata", {{"name", "cirrus-jwt"}, {"namespace", "hetbench-system"}}},
                         {"data", {{key, common::base64Encode(token)}}}};
    ASSERT_TRUE(client_.create(kube::resources::kSecrets, "hetbench-system", object).isOk());
  }
  ReconcileResult reconcile() {
    common::Result<ReconcileResult> r = reconciler_->reconcile("cirrus");
    EXPECT_TRUE(r.isOk()) << r.status().toString();
    return r.isOk() ? *r : ReconcileResult{};
  }
  json status() { return client_.get(kSlurmClusters, "", "cirrus").value()["status"]; }
  benchmark::Condition ready() {
    for (const benchmark::Condition& c : benchmark::conditionsFromJson(status()["conditions"]))
      if (c.type == "Ready") return c;
    return {};
  }

  kube::testing::FakeKubeClient client_;
  Clusters clusters_{client_};
  common::FakeClock clock_;
  RecordingEvents events_;
  FakeSlurm slurm_;
  std::unique_ptr<SlurmConnector> connector_;
  std::unique_ptr<SlurmClusterReconciler> reconciler_;
};

// Verifies a cluster that answers: Ready=True Reachable, its partitions in the status, the
// client made from the spec and the Secret's token (trailing newline dropped), one Event, and a
// probe again after the interval; a second probe that finds the same writes nothing.
TEST_F(SlurmClusterReconcilerTest, AReachableClusterIsReady) {
  define();
  secret("jwt-token\n");
  const ReconcileResult result = reconcile();
  EXPECT_EQ(result.requeueAfter, std::chrono::nanoseconds(45s));
  EXPECT_EQ(ready().status, "True");
  EXPECT_EQ(ready().reason, "Reachable");
  EXPECT_EQ(ready().message,
            "slurmrestd v0.0.42 at https://slurm.example:6820 answers hetbench with 1 "
            "partition(s)");
  EXPECT_EQ(ready().observedGeneration, 1);
  EXPECT_EQ(
      status()["partitions"],
      (json::array(
          {{{"name", "gpu"}, {"states", {"UP"}}, {"nodes", "node[1-2]"}, {"totalNodes", 2}}})));
  ASSERT_EQ(slurm_.made.size(), 1U);
  EXPECT_EQ(slurm_.made[0].url, "https://slurm.example:6820");
  EXPECT_EQ(slurm_.made[0].version, slurm::ApiVersion::kV0_0_42);
  auto creds = slurm_.made[0].credentials();
  ASSERT_TRUE(creds.isOk());
  EXPECT_EQ(creds->user, "hetbench");
  EXPECT_EQ(creds->token, "jwt-token");
  EXPECT_EQ(events_.count("Reachable"), 1);

  const int writes = client_.callCount("updateStatus");
  reconcile();
  EXPECT_EQ(client_.callCount("updateStatus"), writes);
  EXPECT_EQ(events_.count("Reachable"), 1);
}

// Verifies each way a probe fails, as the Ready condition's reason and message, with a Warning
// Event at each change and the last partitions kept while slurmrestd cannot list them.
TEST_F(SlurmClusterReconcilerTest, EachFailureIsItsOwnReason) {
  define();
  reconcile();
  EXPECT_EQ(ready().status, "False");
  EXPECT_EQ(ready().reason, "SecretNotFound");
  EXPECT_EQ(ready().message, "Secret hetbench-system/cirrus-jwt not found");

  secret("jwt", "other");
  reconcile();
  EXPECT_EQ(ready().message, "Secret hetbench-system/cirrus-jwt has no key \"token\"");
  ASSERT_TRUE(
      client_.remove(kube::resources::kSecrets, "hetbench-system", "cirrus-jwt", {}).isOk());
  secret("jwt");

  reconcile();
  EXPECT_EQ(ready().reason, "Reachable");
  slurm_.ping = common::unavailableError(
      "GET https://slurm.example:6820/slurm/v0.0.42/ping/: "
      "cannot reach slurmrestd: Connection refused");
  reconcile();
  EXPECT_EQ(ready().status, "False");
  EXPECT_EQ(ready().reason, "Unreachable");
  EXPECT_NE(ready().message.find("Connection refused"), std::string::npos);
  EXPECT_EQ(status()["partitions"].size(), 1U) << "the last partitions are kept";

  slurm_.ping = common::okStatus();
  slurm_.partitions = common::unauthorizedError("slurmrestd: Protocol authentication error");
  reconcile();
  EXPECT_EQ(ready().reason, "Unauthorized");
  slurm_.partitions = common::internalError("slurmrestd: Unspecified error");
  reconcile();
  EXPECT_EQ(ready().reason, "SlurmError");
  slurm_.partitions = std::vector<slurm::PartitionInfo>{{"cpu", {"UP"}, "c1", 1, std::nullopt}};
  reconcile();
  EXPECT_EQ(ready().reason, "PartitionNotFound");
  EXPECT_EQ(ready().message, "slurmctld has no partition \"gpu\"");
  EXPECT_EQ(status()["partitions"][0]["name"], "cpu");
  EXPECT_EQ(events_.count("Reachable"), 1);
  EXPECT_EQ(events_.count("Unreachable"), 1);
  EXPECT_EQ(events_.count("SecretNotFound"), 1) << "a second SecretNotFound is no change";
}

// Verifies that a spec the CRD's schema would let through but the operator cannot use is
// InvalidSpec with its causes, and that no client is made for it.
TEST_F(SlurmClusterReconcilerTest, AnInvalidSpecSaysWhy) {
  json bad = spec();
  bad["openapiVersion"] = "v0.0.40";
  bad.erase("output");
  define(bad);
  secret("jwt");
  reconcile();
  EXPECT_EQ(ready().reason, "InvalidSpec");
  EXPECT_NE(ready().message.find("spec.openapiVersion: Unsupported value: \"v0.0.40\""),
            std::string::npos)
      << ready().message;
  EXPECT_NE(ready().message.find("spec.output: Required value"), std::string::npos);
  EXPECT_TRUE(slurm_.made.empty());
}

// Verifies that a deleted cluster is not probed and asks for nothing.
TEST_F(SlurmClusterReconcilerTest, ADeletedClusterIsLeftAlone) {
  EXPECT_EQ(reconcile().requeueAfter, std::nullopt);
  EXPECT_TRUE(slurm_.made.empty());
}

}  // namespace
}  // namespace hetbench::controller::testing
