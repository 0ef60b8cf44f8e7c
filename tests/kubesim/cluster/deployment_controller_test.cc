#include "cluster/deployment_controller.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cluster/cluster.h"
#include "hetbench/common/clock.h"
#include "testing/harness.h"

namespace hetbench::kubesim {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;
using testing::Harness;

constexpr const char* kHashLabel = "pod-template-hash";
constexpr const char* kRevision = "deployment.kubernetes.io/revision";

/// An apps/v1 Deployment of busybox pods running `script`, selected by app=NAME.
class DeploymentBuilder {
 public:
  explicit DeploymentBuilder(std::string name) : name_(std::move(name)) {}
  DeploymentBuilder& replicas(std::int64_t n) {
    replicas_ = n;
    return *this;
  }
  DeploymentBuilder& script(std::string s) {
    script_ = std::move(s);
    return *this;
  }
  DeploymentBuilder& image(std::string i) {
    image_ = std::move(i);
    return *this;
  }
  DeploymentBuilder& rollingUpdate(json maxSurge, json maxUnavailable) {
    strategy_ = {
        {"type", "RollingUpdate"},
        {"rollingUpdate",
         {{"maxSurge", std::move(maxSurge)}, {"maxUnavailable", std::move(maxUnavailable)}}}};
    return *this;
  }
  DeploymentBuilder& recreate() {
    strategy_ = {{"type", "Recreate"}};
    return *this;
  }
  DeploymentBuilder& revisionHistoryLimit(std::int64_t n) {
    historyLimit_ = n;
    return *this;
  }
  json obj() const {
    json d = {{"apiVersion", "apps/v1"},
              {"kind", "Deployment"},
              {"metadata", {{"name", name_}}},
              {"spec",
               {{"replicas", replicas_},
                {"selector", {{"matchLabels", {{"app", name_}}}}},
                {"template",
                 {{"metadata", {{"labels", {{"app", name_}}}}},
                  {"spec",
                   {{"terminationGracePeriodSeconds", 1},
                    {"containers",
                     {{{"name", "main"},
                       {"image", image_},
                       {"command", {"/bin/sh", "-c", script_}}}}}}}}}}}};
    if (!strategy_.is_null()) d["spec"]["strategy"] = strategy_;
    if (historyLimit_) d["spec"]["revisionHistoryLimit"] = *historyLimit_;
    return d;
  }

 private:
  std::string name_;
  std::int64_t replicas_ = 1;
  std::string script_ = "sleep 600";
  std::string image_ = "busybox";
  json strategy_;
  std::optional<std::int64_t> historyLimit_;
};

/// What `kubectl rollout status` waits for (its DeploymentStatusViewer): the controller has seen
/// the spec, every replica is updated and available, and no old replica is left.
bool rolledOut(const json& d) {
  const json status = d.value("status", json::object());
  const std::int64_t want = d["spec"].value("replicas", std::int64_t{1});
  return status.value("observedGeneration", std::int64_t{0}) >=
             d["metadata"].value("generation", std::int64_t{0}) &&
         status.value("updatedReplicas", std::int64_t{0}) == want &&
         status.value("replicas", std::int64_t{0}) == want &&
         status.value("availableReplicas", std::int64_t{0}) == want;
}

json condition(const json& object, const std::string& type) {
  for (const json& c : object.value("status", json::object()).value("conditions", json::array())) {
    if (c.value("type", "") == type) return c;
  }
  return nullptr;
}

bool isControlledBy(const json& object, const json& owner) {
  for (const json& ref : object["metadata"].value("ownerReferences", json::array())) {
    if (ref.value("uid", "") == owner["metadata"].value("uid", "") &&
        ref.value("controller", false)) {
      return true;
    }
  }
  return false;
}

// A whole simulated cluster in process, on a FakeClock, driven through its Api.
class DeploymentControllerTest : public ::testing::Test {
 protected:
  DeploymentControllerTest() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "kubesim-deploy-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) std::abort();
    workDir_ = pattern;
    ClusterOptions options;
    options.config = defaultClusterConfig();
    options.config.missingImages = {"registry.invalid/absent:1"};
    options.workDir = workDir_;
    options.clock = &clock_;
    cluster_ = std::make_unique<Cluster>(std::move(options));
    if (!cluster_->start().isOk()) std::abort();
  }
  ~DeploymentControllerTest() override {
    cluster_.reset();
    std::error_code ec;
    std::filesystem::remove_all(workDir_, ec);
  }

  Api& api() { return cluster_->api(); }
  ResourceType deployments() { return builtinType(api(), "apps", "deployments"); }

  json create(const json& deployment) {
    ApiResult<WriteResult> created = api().create(deployments(), "default", deployment, {});
    EXPECT_TRUE(created.isOk()) << created.error().message;
    return created.isOk() ? created->object : json();
  }

  json get(const std::string& name) {
    ApiResult<json> found = api().get(deployments(), "default", name);
    return found.isOk() ? *found : json();
  }

  /// Changes the stored Deployment's spec as `kubectl edit` would.
  void edit(const std::string& name, const std::function<void(json& spec)>& change) {
    ASSERT_TRUE(updateObject(api(), deployments(), "default", name, [&](json& d) {
      change(d["spec"]);
      return true;
    }));
  }

  /// The Deployment once `kubectl rollout status` would report it rolled out (null otherwise).
  json waitRolledOut(const std::string& name) {
    json d;
    Harness::eventually([&] {
      d = get(name);
      return !d.is_null() && rolledOut(d);
    });
    return rolledOut(d) ? d : json();
  }

  /// The ReplicaSets that `deployment` controls, oldest revision first.
  std::vector<json> replicaSetsOf(const json& deployment) {
    std::vector<json> found;
    for (json& rs : api().store().list("apps/replicasets", "default").first) {
      if (isControlledBy(rs, deployment)) found.push_back(std::move(rs));
    }
    std::sort(found.begin(), found.end(), [](const json& a, const json& b) {
      return std::stoll(a["metadata"]["annotations"].value(kRevision, "0")) <
             std::stoll(b["metadata"]["annotations"].value(kRevision, "0"));
    });
    return found;
  }

  std::vector<json> podsOf(const json& replicaSet) {
    std::vector<json> found;
    for (json& p : api().store().list("/pods", "default").first) {
      if (isControlledBy(p, replicaSet)) found.push_back(std::move(p));
    }
    return found;
  }

  /// The messages of the Events with `reason` about `name`, in the order they were recorded.
  std::vector<std::string> messages(const std::string& name, const std::string& reason) {
    std::vector<json> events;
    for (json& e : api().store().list("/events", "default").first) {
      if (e["involvedObject"].value("name", "") == name && e.value("reason", "") == reason) {
        events.push_back(std::move(e));
      }
    }
    std::sort(events.begin(), events.end(), [](const json& a, const json& b) {
      return a["metadata"]["name"].get<std::string>() < b["metadata"]["name"].get<std::string>();
    });
    std::vector<std::string> found;
    for (const json& e : events) found.push_back(e.value("message", ""));
    return found;
  }

  common::FakeClock clock_;
  std::string workDir_;
  std::unique_ptr<Cluster> cluster_;
};

// Verifies that a new Deployment gets one ReplicaSet (name, labels, selector, owner reference
// and annotations as the Deployment controller writes them) whose pods carry the template hash,
// and the status and conditions `kubectl rollout status` reads once every pod is ready.
TEST_F(DeploymentControllerTest, NewDeploymentRollsOutOneReplicaSet) {
  const json created = create(DeploymentBuilder("web").replicas(3).obj());
  const json d = waitRolledOut("web");
  ASSERT_FALSE(d.is_null()) << get("web").dump();

  const std::vector<json> sets = replicaSetsOf(d);
  ASSERT_EQ(sets.size(), 1u);
  const json& rs = sets[0];
  const std::string rsName = rs["metadata"]["name"];
  const std::string hash = rs["metadata"]["labels"].value(kHashLabel, "");
  ASSERT_FALSE(hash.empty());
  EXPECT_EQ(rsName, "web-" + hash);
  EXPECT_EQ(rs["metadata"]["labels"], json({{"app", "web"}, {kHashLabel, hash}}));
  EXPECT_EQ(rs["spec"]["selector"], json({{"matchLabels", {{"app", "web"}, {kHashLabel, hash}}}}));
  EXPECT_EQ(rs["spec"]["template"]["metadata"]["labels"],
            json({{"app", "web"}, {kHashLabel, hash}}));
  EXPECT_EQ(rs["spec"]["replicas"], 3);
  EXPECT_EQ(rs["metadata"]["ownerReferences"], json::array({{{"apiVersion", "apps/v1"},
                                                             {"kind", "Deployment"},
                                                             {"name", "web"},
                                                             {"uid", created["metadata"]["uid"]},
                                                             {"controller", true},
                                                             {"blockOwnerDeletion", true}}}));
  // 3 replicas + maxSurge 25% rounded up.
  EXPECT_EQ(rs["metadata"]["annotations"], json({{kRevision, "1"},
                                                 {"deployment.kubernetes.io/desired-replicas", "3"},
                                                 {"deployment.kubernetes.io/max-replicas", "4"}}));
  EXPECT_EQ(d["metadata"]["annotations"][kRevision], "1");

  const std::vector<json> pods = podsOf(rs);
  ASSERT_EQ(pods.size(), 3u);
  std::vector<std::string> createdPods;
  for (const json& pod : pods) {
    const std::string name = pod["metadata"]["name"];
    EXPECT_EQ(name.rfind(rsName + "-", 0), 0u) << name;
    EXPECT_EQ(pod["metadata"]["generateName"], rsName + "-");
    EXPECT_EQ(pod["metadata"]["labels"], json({{"app", "web"}, {kHashLabel, hash}}));
    EXPECT_EQ(pod["metadata"]["ownerReferences"][0]["kind"], "ReplicaSet");
    EXPECT_EQ(pod["metadata"]["ownerReferences"][0]["name"], rsName);
    EXPECT_EQ(pod["metadata"]["ownerReferences"][0]["blockOwnerDeletion"], true);
    createdPods.push_back("Created pod: " + name);
  }

  EXPECT_EQ(rs["status"]["replicas"], 3);
  EXPECT_EQ(rs["status"]["readyReplicas"], 3);
  EXPECT_EQ(rs["status"]["availableReplicas"], 3);
  EXPECT_EQ(rs["status"]["fullyLabeledReplicas"], 3);
  const json& status = d["status"];
  EXPECT_EQ(status["observedGeneration"], d["metadata"]["generation"]);
  EXPECT_EQ(status["readyReplicas"], 3);
  EXPECT_FALSE(status.contains("unavailableReplicas"));
  const json available = condition(d, "Available");
  EXPECT_EQ(available["status"], "True");
  EXPECT_EQ(available["reason"], "MinimumReplicasAvailable");
  EXPECT_EQ(available["message"], "Deployment has minimum availability.");
  const json progressing = condition(d, "Progressing");
  EXPECT_EQ(progressing["status"], "True");
  EXPECT_EQ(progressing["reason"], "NewReplicaSetAvailable");
  EXPECT_EQ(progressing["message"], "ReplicaSet \"" + rsName + "\" has successfully progressed.");

  EXPECT_EQ(messages("web", "ScalingReplicaSet"),
            std::vector<std::string>({"Scaled up replica set " + rsName + " from 0 to 3"}));
  std::vector<std::string> creates = messages(rsName, "SuccessfulCreate");
  std::sort(creates.begin(), creates.end());
  std::sort(createdPods.begin(), createdPods.end());
  EXPECT_EQ(creates, createdPods);
  for (const json& e : api().store().list("/events", "default").first) {
    if (e["involvedObject"].value("name", "") == "web") {
      EXPECT_EQ(e["source"]["component"], "deployment-controller");
      EXPECT_EQ(e["involvedObject"]["kind"], "Deployment");
    } else if (e["involvedObject"].value("name", "") == rsName) {
      EXPECT_EQ(e["source"]["component"], "replicaset-controller");
      EXPECT_EQ(e["involvedObject"]["kind"], "ReplicaSet");
    }
  }
}

// Verifies a rolling update with maxSurge 1 and maxUnavailable 0: the new ReplicaSet grows one
// pod at a time and the old one shrinks only after a new pod is available, never more than 5
// pods specified nor fewer than 4 available, and the revisions move on.
TEST_F(DeploymentControllerTest, RollingUpdateStaysWithinSurgeAndUnavailable) {
  create(DeploymentBuilder("roll").replicas(4).rollingUpdate(1, 0).obj());
  const json first = waitRolledOut("roll");
  ASSERT_FALSE(first.is_null());
  const std::string oldName = replicaSetsOf(first)[0]["metadata"]["name"];

  edit("roll", [](json& spec) { spec["template"]["spec"]["containers"][0]["args"] = {"new"}; });
  json d;
  bool withinBounds = true;
  Harness::eventually([&] {
    d = get("roll");
    std::int64_t specified = 0, available = 0;
    for (const json& rs : replicaSetsOf(d)) {
      specified += rs["spec"].value("replicas", std::int64_t{0});
      available += rs.value("status", json::object()).value("availableReplicas", std::int64_t{0});
    }
    if (specified > 5 || available < 4) withinBounds = false;
    return rolledOut(d);
  });
  ASSERT_TRUE(rolledOut(d)) << d.dump();
  EXPECT_TRUE(withinBounds);

  const std::vector<json> sets = replicaSetsOf(d);
  ASSERT_EQ(sets.size(), 2u);
  EXPECT_EQ(sets[0]["metadata"]["name"], oldName);
  EXPECT_EQ(sets[0]["spec"]["replicas"], 0);
  EXPECT_EQ(sets[0]["metadata"]["annotations"][kRevision], "1");
  const std::string newName = sets[1]["metadata"]["name"];
  EXPECT_NE(newName, oldName);
  EXPECT_EQ(sets[1]["metadata"]["annotations"][kRevision], "2");
  EXPECT_EQ(d["metadata"]["annotations"][kRevision], "2");
  // The rolling updater's steps: each surge pod becomes available before an old one goes.
  EXPECT_EQ(messages("roll", "ScalingReplicaSet"),
            std::vector<std::string>({"Scaled up replica set " + oldName + " from 0 to 4",
                                      "Scaled up replica set " + newName + " from 0 to 1",
                                      "Scaled down replica set " + oldName + " from 4 to 3",
                                      "Scaled up replica set " + newName + " from 1 to 2",
                                      "Scaled down replica set " + oldName + " from 3 to 2",
                                      "Scaled up replica set " + newName + " from 2 to 3",
                                      "Scaled down replica set " + oldName + " from 2 to 1",
                                      "Scaled up replica set " + newName + " from 3 to 4",
                                      "Scaled down replica set " + oldName + " from 1 to 0"}));
  EXPECT_TRUE(Harness::eventually([&] { return podsOf(sets[0]).empty(); }));
  EXPECT_EQ(messages(oldName, "SuccessfulDelete").size(), 4u);
}

// Verifies that a rollout stuck on pods that never become ready reports what `kubectl rollout
// status` shows for it: the surge pod made, no old pod removed, and every specified pod counted
// unavailable.
TEST_F(DeploymentControllerTest, StuckRolloutCountsUnavailableReplicas) {
  create(DeploymentBuilder("stuck").replicas(2).image("registry.invalid/absent:1").obj());
  json d;
  Harness::eventually([&] {
    d = get("stuck");
    return d.value("status", json::object()).value("replicas", 0) == 2 &&
           !condition(d, "Available").is_null();
  });
  EXPECT_EQ(d["status"]["unavailableReplicas"], 2);
  EXPECT_EQ(condition(d, "Available")["status"], "False");
  EXPECT_EQ(condition(d, "Available")["reason"], "MinimumReplicasUnavailable");
  EXPECT_EQ(condition(d, "Available")["message"], "Deployment does not have minimum availability.");

  edit("stuck", [](json& spec) { spec["template"]["spec"]["containers"][0]["args"] = {"v2"}; });
  // 2 replicas: maxSurge 25% rounds up to 1, maxUnavailable 25% down to 0.
  Harness::eventually([&] {
    d = get("stuck");
    return d.value("status", json::object()).value("replicas", 0) == 3 &&
           d["status"].value("observedGeneration", 0) == d["metadata"]["generation"];
  });
  const std::vector<json> sets = replicaSetsOf(d);
  ASSERT_EQ(sets.size(), 2u);
  EXPECT_EQ(sets[0]["spec"]["replicas"], 2);
  EXPECT_EQ(sets[1]["spec"]["replicas"], 1);
  EXPECT_EQ(d["status"]["updatedReplicas"], 1);
  EXPECT_EQ(d["status"]["unavailableReplicas"], 3);
  EXPECT_FALSE(d["status"].contains("availableReplicas"));
  const json progressing = condition(d, "Progressing");
  EXPECT_EQ(progressing["status"], "True");
  EXPECT_EQ(progressing["reason"], "ReplicaSetUpdated");
  EXPECT_EQ(
      progressing["message"],
      "ReplicaSet \"" + sets[1]["metadata"]["name"].get<std::string>() + "\" is progressing.");
}

// Verifies Recreate: the old ReplicaSet goes to zero, and the new one gets pods only once every
// old pod is gone, a terminating one included.
TEST_F(DeploymentControllerTest, RecreateWaitsForOldPodsToTerminate) {
  // The old pods ignore SIGTERM, so they stay terminating for their grace period (1s).
  create(DeploymentBuilder("re").replicas(2).recreate().script("trap '' TERM; sleep 600").obj());
  const json first = waitRolledOut("re");
  ASSERT_FALSE(first.is_null());
  const json oldSet = replicaSetsOf(first)[0];

  edit("re", [](json& spec) {
    spec["template"]["spec"]["containers"][0]["command"] = {"/bin/sh", "-c", "sleep 600"};
  });
  bool overlapped = false;
  bool sawTerminating = false;
  json d;
  Harness::eventually([&] {
    d = get("re");
    // New pods first, then old ones: new pods stay and old ones do not come back, so old pods
    // read after new ones existed really overlapped them (the other order would race).
    bool newPods = false;
    for (const json& rs : replicaSetsOf(d)) {
      if (rs["metadata"]["uid"] != oldSet["metadata"]["uid"] && !podsOf(rs).empty()) {
        newPods = true;
      }
    }
    // As the controller counts them: an old pod in a terminal phase, which the kubelet may not
    // have removed yet, runs nothing and does not hold the new ones back.
    bool oldPodsRunning = false;
    for (const json& p : podsOf(oldSet)) {
      if (p["metadata"].contains("deletionTimestamp")) sawTerminating = true;
      const std::string phase = p.value("status", json::object()).value("phase", "");
      if (phase != "Succeeded" && phase != "Failed") oldPodsRunning = true;
    }
    if (newPods && oldPodsRunning) overlapped = true;
    return rolledOut(d);
  });
  ASSERT_TRUE(rolledOut(d)) << d.dump();
  EXPECT_TRUE(sawTerminating);
  EXPECT_FALSE(overlapped);
  const std::vector<json> sets = replicaSetsOf(d);
  ASSERT_EQ(sets.size(), 2u);
  const std::string oldName = oldSet["metadata"]["name"];
  const std::string newName = sets[1]["metadata"]["name"];
  EXPECT_EQ(messages("re", "ScalingReplicaSet"),
            std::vector<std::string>({"Scaled up replica set " + oldName + " from 0 to 2",
                                      "Scaled down replica set " + oldName + " from 2 to 0",
                                      "Scaled up replica set " + newName + " from 0 to 2"}));
  // Recreate has no surge: max-replicas is the replica count.
  EXPECT_EQ(sets[1]["metadata"]["annotations"]["deployment.kubernetes.io/max-replicas"], "2");
}

// Verifies that changing spec.replicas scales the one ReplicaSet up and down, with its
// annotations, Events and pods following.
TEST_F(DeploymentControllerTest, ScalesReplicaSetWithSpecReplicas) {
  create(DeploymentBuilder("scale").replicas(2).obj());
  ASSERT_FALSE(waitRolledOut("scale").is_null());
  edit("scale", [](json& spec) { spec["replicas"] = 4; });
  ASSERT_FALSE(waitRolledOut("scale").is_null());
  edit("scale", [](json& spec) { spec["replicas"] = 1; });
  const json d = waitRolledOut("scale");
  ASSERT_FALSE(d.is_null());

  const std::vector<json> sets = replicaSetsOf(d);
  ASSERT_EQ(sets.size(), 1u);
  const std::string name = sets[0]["metadata"]["name"];
  EXPECT_EQ(sets[0]["spec"]["replicas"], 1);
  EXPECT_EQ(sets[0]["metadata"]["annotations"]["deployment.kubernetes.io/desired-replicas"], "1");
  // 1 replica + maxSurge 25% rounded up.
  EXPECT_EQ(sets[0]["metadata"]["annotations"]["deployment.kubernetes.io/max-replicas"], "2");
  EXPECT_EQ(sets[0]["metadata"]["annotations"][kRevision], "1");
  EXPECT_EQ(messages("scale", "ScalingReplicaSet"),
            std::vector<std::string>({"Scaled up replica set " + name + " from 0 to 2",
                                      "Scaled up replica set " + name + " from 2 to 4",
                                      "Scaled down replica set " + name + " from 4 to 1"}));
  EXPECT_EQ(messages(name, "SuccessfulCreate").size(), 4u);
  EXPECT_EQ(messages(name, "SuccessfulDelete").size(), 3u);
  EXPECT_TRUE(Harness::eventually([&] { return podsOf(sets[0]).size() == 1; }));
}

// Verifies that going back to an earlier template reuses its ReplicaSet with the next revision
// (`kubectl rollout undo`), and that revisionHistoryLimit deletes the oldest idle ReplicaSets.
TEST_F(DeploymentControllerTest, RollbackReusesReplicaSetAndHistoryIsPruned) {
  create(DeploymentBuilder("hist").replicas(1).revisionHistoryLimit(1).obj());
  const json first = waitRolledOut("hist");
  ASSERT_FALSE(first.is_null());
  const std::string firstName = replicaSetsOf(first)[0]["metadata"]["name"];

  edit("hist", [](json& spec) { spec["template"]["spec"]["containers"][0]["args"] = {"2"}; });
  json d = waitRolledOut("hist");
  ASSERT_FALSE(d.is_null());
  ASSERT_EQ(replicaSetsOf(d).size(), 2u);
  const std::string secondName = replicaSetsOf(d)[1]["metadata"]["name"];

  // Back to the first template: its ReplicaSet is the new one again, at revision 3.
  edit("hist", [](json& spec) { spec["template"]["spec"]["containers"][0].erase("args"); });
  d = waitRolledOut("hist");
  ASSERT_FALSE(d.is_null());
  std::vector<json> sets = replicaSetsOf(d);
  ASSERT_EQ(sets.size(), 2u);
  EXPECT_EQ(sets[0]["metadata"]["name"], secondName);
  EXPECT_EQ(sets[1]["metadata"]["name"], firstName);
  EXPECT_EQ(sets[1]["metadata"]["annotations"][kRevision], "3");
  EXPECT_EQ(d["metadata"]["annotations"][kRevision], "3");

  // A third template: two idle old ReplicaSets, one over the limit, the older revision goes.
  edit("hist", [](json& spec) { spec["template"]["spec"]["containers"][0]["args"] = {"4"}; });
  ASSERT_FALSE(waitRolledOut("hist").is_null());
  EXPECT_TRUE(Harness::eventually([&] {
    sets = replicaSetsOf(get("hist"));
    return sets.size() == 2u;
  }));
  ASSERT_EQ(sets.size(), 2u);
  EXPECT_EQ(sets[0]["metadata"]["name"], firstName);
  EXPECT_EQ(sets[1]["metadata"]["annotations"][kRevision], "4");
}

// Verifies that deleting a Deployment in the background or the foreground deletes its
// ReplicaSets and their pods through the garbage collector, the foreground one only after them.
TEST_F(DeploymentControllerTest, DeletionPropagatesToReplicaSetsAndPods) {
  for (const std::string policy : {"Background", "Foreground"}) {
    SCOPED_TRACE(policy);
    const std::string name = "del-" + std::string(policy == "Background" ? "bg" : "fg");
    create(DeploymentBuilder(name).replicas(2).obj());
    const json d = waitRolledOut(name);
    ASSERT_FALSE(d.is_null());
    const json rs = replicaSetsOf(d)[0];
    ASSERT_EQ(podsOf(rs).size(), 2u);

    DeleteOptions options;
    options.propagationPolicy = policy;
    ApiResult<json> removed = api().remove(deployments(), "default", name, options);
    ASSERT_TRUE(removed.isOk()) << removed.error().message;
    if (policy == "Foreground") {
      // Kept, with the finalizer, until the garbage collector has deleted its dependents.
      EXPECT_EQ((*removed)["metadata"]["finalizers"], json::array({"foregroundDeletion"}));
    }
    EXPECT_TRUE(Harness::eventually(
        [&] { return get(name).is_null() && replicaSetsOf(d).empty() && podsOf(rs).empty(); }));
  }
}

}  // namespace
}  // namespace hetbench::kubesim
