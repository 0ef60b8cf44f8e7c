#include <gtest/gtest.h>

#include "conformance/status_util.h"
#include "testing/harness.h"

namespace hetbench::kubesim::testing {
namespace {

using nlohmann::json;

constexpr const char* kAsTable = "Accept: application/json;as=Table;v=v1;g=meta.k8s.io\r\n";

json getTable(Harness& h, const std::string& path) {
  Response r = h.request("GET", path, "", "application/json", kAsTable);
  EXPECT_EQ(r.status, 200) << r.body;
  json table = bodyJson(r);
  EXPECT_EQ(table["kind"], "Table");
  EXPECT_EQ(table["apiVersion"], "meta.k8s.io/v1");
  return table;
}

// "name:type:priority" for each column definition.
std::vector<std::string> columns(const json& table) {
  std::vector<std::string> out;
  for (const json& c : table["columnDefinitions"]) {
    out.push_back(c["name"].get<std::string>() + ":" + c["type"].get<std::string>() + ":" +
                  std::to_string(c["priority"].get<int>()));
  }
  return out;
}

// Verifies the columns kubectl get prints for built-in resources, as the API server's printers
// define them.
TEST(Table, BuiltinColumnDefinitions) {
  struct Case {
    std::string path;
    std::vector<std::string> columns;
  };
  const std::vector<Case> cases = {
      {"/api/v1/namespaces/default/pods",
       {"Name:string:0", "Ready:string:0", "Status:string:0", "Restarts:string:0", "Age:string:0",
        "IP:string:1", "Node:string:1", "Nominated Node:string:1", "Readiness Gates:string:1"}},
      {"/api/v1/nodes",
       {"Name:string:0", "Status:string:0", "Roles:string:0", "Age:string:0", "Version:string:0",
        "Internal-IP:string:1", "External-IP:string:1", "OS-Image:string:1",
        "Kernel-Version:string:1", "Container-Runtime:string:1"}},
      {"/apis/batch/v1/namespaces/default/jobs",
       {"Name:string:0", "Status:string:0", "Completions:string:0", "Duration:string:0",
        "Age:string:0", "Containers:string:1", "Images:string:1", "Selector:string:1"}},
      {"/api/v1/namespaces/default/services",
       {"Name:string:0", "Type:string:0", "Cluster-IP:string:0", "External-IP:string:0",
        "Port(s):string:0", "Age:string:0", "Selector:string:1"}},
      {"/api/v1/namespaces", {"Name:string:0", "Status:string:0", "Age:string:0"}},
      {"/api/v1/namespaces/default/configmaps",
       {"Name:string:0", "Data:integer:0", "Age:string:0"}},
      {"/apis/apps/v1/namespaces/default/deployments",
       {"Name:string:0", "Ready:string:0", "Up-to-date:integer:0", "Available:integer:0",
        "Age:string:0", "Containers:string:1", "Images:string:1", "Selector:string:1"}},
      {"/apis/apps/v1/namespaces/default/replicasets",
       {"Name:string:0", "Desired:integer:0", "Current:integer:0", "Ready:integer:0",
        "Age:string:0", "Containers:string:1", "Images:string:1", "Selector:string:1"}},
  };
  Harness h;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.path);
    json table = getTable(h, c.path);
    EXPECT_EQ(columns(table), c.columns);
    EXPECT_EQ(table["columnDefinitions"][0]["format"], "name");
    EXPECT_TRUE(table["metadata"].contains("resourceVersion")) << table["metadata"];
  }
}

// Verifies a pod's row while no node can take it, and the default PartialObjectMetadata.
TEST(Table, PodRow) {
  Harness h;
  json pod = commandPod("p", "true");
  pod["spec"]["nodeSelector"] = {{"example.com/pool", "none"}};
  ASSERT_EQ(h.post("/api/v1/namespaces/default/pods", pod).status, 201);
  json table = getTable(h, "/api/v1/namespaces/default/pods/p");
  ASSERT_EQ(table["rows"].size(), 1u);
  EXPECT_EQ(table["metadata"],
            json({{"resourceVersion", table["rows"][0]["object"]["metadata"]["resourceVersion"]}}))
      << "a single object's Table carries its resourceVersion";
  json cells = table["rows"][0]["cells"];
  ASSERT_EQ(cells.size(), 9u) << cells;
  EXPECT_EQ(cells[0], "p");
  EXPECT_EQ(cells[1], "0/1");
  EXPECT_EQ(cells[2], "Pending");
  EXPECT_EQ(cells[3], "0");
  EXPECT_EQ(cells[5], "<none>");
  EXPECT_EQ(cells[6], "<none>");
  EXPECT_EQ(cells[7], "<none>");
  EXPECT_EQ(cells[8], "<none>");
  EXPECT_EQ(table["rows"][0]["object"]["kind"], "PartialObjectMetadata");
  EXPECT_EQ(table["rows"][0]["object"]["apiVersion"], "meta.k8s.io/v1");
}

// Verifies that includeObject=Object embeds the whole object and None leaves it out.
TEST(Table, IncludeObject) {
  Harness h;
  ASSERT_EQ(h.post("/api/v1/namespaces/default/configmaps", configMap("c", {{"a", "1"}})).status,
            201);
  json full = getTable(h, "/api/v1/namespaces/default/configmaps?includeObject=Object");
  EXPECT_EQ(full["rows"][0]["object"]["data"], json({{"a", "1"}}));
  EXPECT_EQ(full["rows"][0]["cells"][1], 1);
  json none = getTable(h, "/api/v1/namespaces/default/configmaps?includeObject=None");
  EXPECT_FALSE(none["rows"][0].contains("object"));
}

// Verifies that a node's row reports its readiness and kubelet version.
TEST(Table, NodeRow) {
  Harness h;
  json table = getTable(h, "/api/v1/nodes");
  ASSERT_FALSE(table["rows"].empty());
  json cells = table["rows"][0]["cells"];
  ASSERT_EQ(cells.size(), 10u) << cells;
  EXPECT_EQ(cells[1], "Ready");
  EXPECT_EQ(cells[4].get<std::string>().rfind("v1.", 0), 0u) << cells;
}

// Verifies the rows of a rolled-out Deployment and its ReplicaSet as kube-apiserver prints them:
// counts as integers, the selector in label-selector syntax.
TEST(Table, DeploymentAndReplicaSetRows) {
  Harness h;
  json deployment = {{"apiVersion", "apps/v1"},
                     {"kind", "Deployment"},
                     {"metadata", {{"name", "web"}}},
                     {"spec",
                      {{"replicas", 2},
                       {"selector",
                        {{"matchLabels", {{"app", "web"}}},
                         {"matchExpressions",
                          {{{"key", "tier"}, {"operator", "In"}, {"values", {"front", "edge"}}}}}}},
                       {"template",
                        {{"metadata", {{"labels", {{"app", "web"}, {"tier", "front"}}}}},
                         {"spec", commandPod("unused", "sleep 600")["spec"]}}}}}};
  deployment["spec"]["template"]["spec"].erase("restartPolicy");
  ASSERT_EQ(h.post("/apis/apps/v1/namespaces/default/deployments", deployment).status, 201);
  json row;
  ASSERT_TRUE(Harness::eventually([&] {
    json table = getTable(h, "/apis/apps/v1/namespaces/default/deployments/web");
    row = table["rows"][0]["cells"];
    return row[2] == 2 && row[3] == 2;
  })) << row;
  ASSERT_EQ(row.size(), 8u);
  EXPECT_EQ(row[0], "web");
  EXPECT_EQ(row[1], "2/2");
  EXPECT_EQ(row[5], "main");
  EXPECT_EQ(row[6], "busybox");
  EXPECT_EQ(row[7], "app=web,tier in (edge,front)");

  json table = getTable(h, "/apis/apps/v1/namespaces/default/replicasets");
  ASSERT_EQ(table["rows"].size(), 1u);
  row = table["rows"][0]["cells"];
  ASSERT_EQ(row.size(), 8u);
  const std::string name = row[0];
  const std::string hash = name.substr(std::string("web-").size());
  EXPECT_EQ(name.rfind("web-", 0), 0u) << name;
  EXPECT_EQ(row[1], 2);
  EXPECT_EQ(row[2], 2);
  EXPECT_EQ(row[3], 2);
  EXPECT_EQ(row[5], "main");
  EXPECT_EQ(row[6], "busybox");
  EXPECT_EQ(row[7], "app=web,pod-template-hash=" + hash + ",tier in (edge,front)");
}

// Verifies a Service's row: ports with their protocol, and the selector of the wide column as
// labels.FormatLabels writes it.
TEST(Table, ServiceRow) {
  Harness h;
  const json ports = {{{"port", 80}}, {{"port", 53}, {"protocol", "UDP"}}};
  const json svc = {
      {"apiVersion", "v1"},
      {"kind", "Service"},
      {"metadata", {{"name", "web"}}},
      {"spec", {{"selector", {{"tier", "front"}, {"app", "web"}}}, {"ports", ports}}}};
  ASSERT_EQ(h.post("/api/v1/namespaces/default/services", svc).status, 201);
  json row = getTable(h, "/api/v1/namespaces/default/services/web")["rows"][0]["cells"];
  ASSERT_EQ(row.size(), 7u) << row;
  EXPECT_EQ(row[0], "web");
  EXPECT_EQ(row[1], "ClusterIP");
  EXPECT_EQ(row[4], "80/TCP,53/UDP");
  EXPECT_EQ(row[6], "app=web,tier=front");
}

// Verifies that fields sent as JSON null read as absent: client-go writes an Event's unset
// eventTime, series and related as null.
TEST(Table, NullFieldsReadAsAbsent) {
  Harness h;
  const json event = {
      {"apiVersion", "v1"},
      {"kind", "Event"},
      {"metadata", {{"name", "e"}}},
      {"involvedObject", {{"kind", "Pod"}, {"name", "p"}, {"namespace", "default"}}},
      {"reason", "Tested"},
      {"message", "null fields"},
      {"type", "Normal"},
      {"source", {{"component", "test"}}},
      {"firstTimestamp", nullptr},
      {"lastTimestamp", nullptr},
      {"eventTime", nullptr},
      {"series", nullptr},
      {"related", nullptr},
      {"count", 1}};
  ASSERT_EQ(h.post("/api/v1/namespaces/default/events", event).status, 201);
  json table = getTable(h, "/api/v1/namespaces/default/events");
  ASSERT_EQ(table["rows"].size(), 1u) << table;
  EXPECT_EQ(table["rows"][0]["cells"],
            json({"<unknown>", "Normal", "Tested", "pod/p", "null fields"}));

  ASSERT_EQ(h.post("/api/v1/namespaces/default/configmaps", {{"apiVersion", "v1"},
                                                             {"kind", "ConfigMap"},
                                                             {"metadata", {{"name", "c"}}},
                                                             {"data", nullptr},
                                                             {"binaryData", nullptr}})
                .status,
            201);
  json configMaps = getTable(h, "/api/v1/namespaces/default/configmaps/c");
  EXPECT_EQ(configMaps["rows"][0]["cells"][1], 0);
}

}  // namespace
}  // namespace hetbench::kubesim::testing
