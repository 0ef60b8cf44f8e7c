// The SlurmCluster reconciler against a real Slurm (Debian 12's 22.05, v0.0.38, started by the
// test) and an in-process kubesim holding the SlurmCluster and its token's Secret: Ready and its
// reasons as a real slurmrestd brings them about.

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "hetbench/benchmark/run.h"
#include "hetbench/common/base64.h"
#include "hetbench/controller/slurm_cluster_reconciler.h"
#include "support/kubesim_client.h"
#include "support/slurm_cluster.h"

namespace hetbench::controller {
namespace {

using nlohmann::json;

class NoEvents final : public kube::EventRecorder {
 public:
  void event(const json&, kube::EventType, const std::string&, const std::string&) override {}
};

/// The SlurmClusters as the API server has them, as the informer's cache would.
class ServerClusters final : public SlurmClusterCache {
 public:
  explicit ServerClusters(const std::unique_ptr<kube::KubeClient>& client) : client_(client) {}
  std::optional<json> slurmCluster(const std::string& name) const override {
    common::Result<json> got = client_->get(kSlurmClusters, "", name);
    return got.isOk() ? std::optional<json>(*got) : std::nullopt;
  }

 private:
  const std::unique_ptr<kube::KubeClient>& client_;
};

class SlurmProbeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    client_ = testing_support::kubesimClient(kubesim_, clock_);
    ASSERT_TRUE(testing_support::installCrd(
        *client_, std::string(HETBENCH_CRDS_DIR) + "/slurmcluster.yaml", kSlurmClusters));
    ASSERT_TRUE(client_
                    ->create(kube::resources::kNamespaces, "",
                             {{"apiVersion", "v1"},
                              {"kind", "Namespace"},
                              {"metadata", {{"name", "hetbench-system"}}}})
                    .isOk());
    auto slurm = testing_support::SlurmCluster::start();
    ASSERT_TRUE(slurm.isOk()) << slurm.status().toString();
    slurm_ = std::move(*slurm);
    auto token = slurm_->token();
    ASSERT_TRUE(token.isOk()) << token.status().toString();
    token_ = *token;
    const json cluster = {
        {"apiVersion", "hetbench.io/v1alpha1"},
        {"kind", "SlurmCluster"},
        {"metadata", {{"name", "local"}}},
        {"spec",
         {{"url", slurm_->restUrl()},
          {"openapiVersion", "v0.0.38"},
          {"user", slurm_->user()},
          {"tokenSecretRef", {{"name", "local-jwt"}}},
          {"defaults", {{"partition", slurm_->partition()}}},
          {"output",
           {{"sharedFilesystem",
             {{"slurmPath", slurm_->outputDir()}, {"operatorPath", slurm_->outputDir()}}}}}}}};
    ASSERT_TRUE(client_->create(kSlurmClusters, "", cluster).isOk());
    SlurmConnectorOptions connect;
    connect.secretNamespace = "hetbench-system";
    connect.requestTimeout = std::chrono::seconds(5);
    connector_ = std::make_unique<SlurmConnector>(*client_, clusters_, connect);
    reconciler_ = std::make_unique<SlurmClusterReconciler>(
        *client_, clusters_, *connector_, clock_, events_, SlurmClusterReconcilerOptions{});
  }

  void storeToken(const std::string& token) {
    const json secret = {{"apiVersion", "v1"},
                         {"kind", "Secret"},
                         {"metadata", {{"name", "local-jwt"}, {"namespace", "hetbench-system"}}},
                         {"data", {{"token", common::base64Encode(token)}}}};
    auto existing = client_->get(kube::resources::kSecrets, "hetbench-system", "local-jwt");
    if (existing.isOk()) {
      json updated = *existing;
      updated["data"] = secret["data"];
      ASSERT_TRUE(client_->update(kube::resources::kSecrets, "hetbench-system", updated).isOk());
    } else {
      ASSERT_TRUE(client_->create(kube::resources::kSecrets, "hetbench-system", secret).isOk());
    }
  }

  benchmark::Condition probe() {
    common::Result<ReconcileResult> result = reconciler_->reconcile("local");
    EXPECT_TRUE(result.isOk()) << result.status().toString();
    const json status = client_->get(kSlurmClusters, "", "local").value()["status"];
    for (const benchmark::Condition& c : benchmark::conditionsFromJson(status["conditions"]))
      if (c.type == "Ready") return c;
    return {};
  }

  common::SystemClock clock_;
  kubesim::testing::Harness kubesim_;
  std::unique_ptr<kube::KubeClient> client_;
  std::unique_ptr<testing_support::SlurmCluster> slurm_;
  std::string token_;
  NoEvents events_;
  ServerClusters clusters_{client_};
  std::unique_ptr<SlurmConnector> connector_;
  std::unique_ptr<SlurmClusterReconciler> reconciler_;
};

// Verifies Ready through a real slurmrestd: Reachable with the partition listed, Unauthorized
// for a token slurmrestd refuses, Unreachable while slurmrestd is down, Reachable again.
TEST_F(SlurmProbeTest, ReadyFollowsWhatSlurmrestdAnswers) {
  storeToken(token_ + "\n");
  benchmark::Condition ready = probe();
  EXPECT_EQ(ready.status, "True") << ready.reason << ": " << ready.message;
  EXPECT_EQ(ready.reason, "Reachable");
  const json partitions = client_->get(kSlurmClusters, "", "local").value()["status"]["partitions"];
  ASSERT_EQ(partitions.size(), 1U);
  EXPECT_EQ(partitions[0]["name"], slurm_->partition());
  EXPECT_EQ(partitions[0]["states"], json::array({"UP"}));

  storeToken(token_.substr(0, token_.size() - 4) + "AAAA");
  ready = probe();
  EXPECT_EQ(ready.status, "False");
  EXPECT_EQ(ready.reason, "Unauthorized") << ready.message;

  storeToken(token_);
  ASSERT_TRUE(slurm_->stopRest().isOk());
  ready = probe();
  EXPECT_EQ(ready.reason, "Unreachable") << ready.message;
  EXPECT_NE(ready.message.find(slurm_->restUrl()), std::string::npos) << ready.message;

  ASSERT_TRUE(slurm_->startRest().isOk());
  ready = probe();
  EXPECT_EQ(ready.reason, "Reachable") << ready.message;
}

}  // namespace
}  // namespace hetbench::controller
