#include <gtest/gtest.h>

#include "conformance/status_util.h"
#include "testing/harness.h"

namespace hetbench::kubesim::testing {
namespace {

using nlohmann::json;

constexpr const char* kConfigMaps = "/api/v1/namespaces/default/configmaps";

std::vector<std::string> names(const json& list) {
  std::vector<std::string> out;
  for (const json& item : list["items"]) out.push_back(item["metadata"]["name"]);
  return out;
}

// Five configmaps: a (env=prod), b (env=dev), c (env=prod, tier=web), d (tier=db), e (none).
void seed(Harness& h) {
  for (const auto& [name, labels] :
       std::vector<std::pair<std::string, json>>{{"a", {{"env", "prod"}}},
                                                 {"b", {{"env", "dev"}}},
                                                 {"c", {{"env", "prod"}, {"tier", "web"}}},
                                                 {"d", {{"tier", "db"}}},
                                                 {"e", nullptr}}) {
    ASSERT_EQ(h.post(kConfigMaps, configMap(name, nullptr, labels)).status, 201);
  }
}

// Verifies every label selector operator against the same five objects.
TEST(List, LabelSelectors) {
  struct Case {
    std::string selector;
    std::vector<std::string> want;
  };
  const std::vector<Case> cases = {
      {"env=prod", {"a", "c"}},
      {"env==prod", {"a", "c"}},
      {"env!=prod", {"b", "d", "e"}},
      {"env%20in%20(dev,prod)", {"a", "b", "c"}},
      {"env%20notin%20(prod)", {"b", "d", "e"}},
      {"tier", {"c", "d"}},
      {"!tier", {"a", "b", "e"}},
      {"env=prod,tier=web", {"c"}},
      {"env=staging", {}},
  };
  Harness h;
  seed(h);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.selector);
    Response r = h.get(std::string(kConfigMaps) + "?labelSelector=" + c.selector);
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(names(bodyJson(r)), c.want);
  }
}

// Verifies that an unparsable label selector is 400 with the parser's message.
TEST(List, InvalidLabelSelector) {
  Harness h;
  expectStatus(h.get(std::string(kConfigMaps) + "?labelSelector=a%20in%20(x,=)"), 400, "BadRequest",
               "unable to parse requirement: found '=', expected: ',', or identifier");
  expectStatus(h.get(std::string(kConfigMaps) + "?labelSelector=a=-bad"), 400, "BadRequest",
               "unable to parse requirement: values[0][a]: Invalid value: \"-bad\": a valid "
               "label must be an empty string or consist of alphanumeric characters, '-', '_' or "
               "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
               "'my_value',  or '12345', regex used for validation is "
               "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')");
}

// Verifies field selectors on metadata and on the fields pods support, and that other fields
// are 400 "field label not supported".
TEST(List, FieldSelectors) {
  Harness h;
  seed(h);
  json list = bodyJson(h.get(std::string(kConfigMaps) + "?fieldSelector=metadata.name=b"));
  EXPECT_EQ(names(list), std::vector<std::string>{"b"});
  list = bodyJson(h.get(std::string(kConfigMaps) + "?fieldSelector=metadata.name!=b"));
  EXPECT_EQ(names(list), (std::vector<std::string>{"a", "c", "d", "e"}));
  list = bodyJson(h.get("/api/v1/configmaps?fieldSelector=metadata.namespace=default"));
  EXPECT_EQ(names(list), (std::vector<std::string>{"a", "b", "c", "d", "e"}));
  list = bodyJson(h.get("/api/v1/configmaps?fieldSelector=metadata.namespace=kube-system"));
  EXPECT_EQ(names(list), std::vector<std::string>{});
  expectStatus(h.get(std::string(kConfigMaps) + "?fieldSelector=data.a=1"), 400, "BadRequest",
               "field label not supported: data.a");
}

// Verifies pod field selectors on spec.nodeName and status.phase.
TEST(List, PodFieldSelectors) {
  Harness h;
  json pending = commandPod("pending", "true");
  pending["spec"]["nodeSelector"] = {{"example.com/pool", "none"}};
  ASSERT_EQ(h.post("/api/v1/namespaces/default/pods", pending).status, 201);
  ASSERT_EQ(h.post("/api/v1/namespaces/default/pods", commandPod("runs", "true")).status, 201);
  ASSERT_TRUE(Harness::eventually([&] {
    return names(bodyJson(h.get("/api/v1/pods?fieldSelector=status.phase=Succeeded"))) ==
           std::vector<std::string>{"runs"};
  }));
  const std::string node =
      bodyJson(h.get("/api/v1/namespaces/default/pods/runs"))["spec"]["nodeName"];
  ASSERT_FALSE(node.empty());
  EXPECT_EQ(names(bodyJson(h.get("/api/v1/pods?fieldSelector=spec.nodeName=" + node))),
            std::vector<std::string>{"runs"});
  EXPECT_EQ(names(bodyJson(h.get("/api/v1/pods?fieldSelector=spec.nodeName="))),
            std::vector<std::string>{"pending"});
  EXPECT_EQ(names(bodyJson(h.get("/api/v1/namespaces/default/pods?fieldSelector=status.phase!="
                                 "Succeeded,metadata.name=pending"))),
            std::vector<std::string>{"pending"});
  expectStatus(h.get("/api/v1/pods?fieldSelector=spec.priority=1"), 400, "BadRequest",
               "field label not supported: spec.priority");
}

// Verifies limit/continue paging: remainingItemCount counts down and the last page has no
// continue token.
TEST(List, Paging) {
  Harness h;
  seed(h);
  json page = bodyJson(h.get(std::string(kConfigMaps) + "?limit=2"));
  EXPECT_EQ(names(page), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(page["metadata"]["remainingItemCount"], 3);
  const std::string listRv = page["metadata"]["resourceVersion"];
  ASSERT_TRUE(h.post(kConfigMaps, configMap("bb")).status == 201);
  page = bodyJson(h.get(std::string(kConfigMaps) +
                        "?limit=2&continue=" + page["metadata"]["continue"].get<std::string>()));
  ASSERT_TRUE(page.contains("items")) << page;
  EXPECT_EQ(names(page), (std::vector<std::string>{"c", "d"}))
      << "a page continues the first page's snapshot";
  EXPECT_EQ(page["metadata"]["resourceVersion"], listRv);
  EXPECT_EQ(page["metadata"]["remainingItemCount"], 1);
  page = bodyJson(h.get(std::string(kConfigMaps) +
                        "?limit=2&continue=" + page["metadata"]["continue"].get<std::string>()));
  EXPECT_EQ(names(page), std::vector<std::string>{"e"});
  EXPECT_FALSE(page["metadata"].contains("continue")) << page;
  EXPECT_FALSE(page["metadata"].contains("remainingItemCount")) << page;
}

// Verifies that with a selector a page has no remainingItemCount (the server cannot count
// the matching items it has not read).
TEST(List, PagingWithSelectorHasNoRemainingCount) {
  Harness h;
  seed(h);
  json page = bodyJson(h.get(std::string(kConfigMaps) + "?limit=1&labelSelector=env"));
  EXPECT_EQ(names(page), std::vector<std::string>{"a"});
  EXPECT_TRUE(page["metadata"].contains("continue"));
  EXPECT_FALSE(page["metadata"].contains("remainingItemCount")) << page;
}

// Verifies that a continue token older than the history is 410 Expired, with a fresh token in
// the Status that lists the rest at the latest version.
TEST(List, ExpiredContinue) {
  Harness h;
  seed(h);
  json page = bodyJson(h.get(std::string(kConfigMaps) + "?limit=2"));
  ASSERT_EQ(h.post(kConfigMaps, configMap("f")).status, 201);
  ASSERT_EQ(h.post("/kubesim/faults", {{"expireHistory", true}}).status, 200);
  Response r = h.get(std::string(kConfigMaps) +
                     "?limit=2&continue=" + page["metadata"]["continue"].get<std::string>());
  EXPECT_EQ(r.status, 410) << r.body;
  json status = bodyJson(r);
  EXPECT_EQ(status["reason"], "Expired");
  EXPECT_EQ(status["message"],
            "The provided continue parameter is too old to display a consistent list result. You "
            "can start a new list without the continue parameter, or use the continue token in "
            "this response to retrieve the remainder of the results. Continuing with the "
            "provided token results in an inconsistent list - objects that were created, "
            "modified, or deleted between the time the first chunk was returned and now may "
            "show up in the list.");
  EXPECT_FALSE(status.contains("details"));
  ASSERT_TRUE(status["metadata"].contains("continue")) << status;
  json rest = bodyJson(h.get(std::string(kConfigMaps) +
                             "?continue=" + status["metadata"]["continue"].get<std::string>()));
  EXPECT_EQ(names(rest), (std::vector<std::string>{"c", "d", "e", "f"}));
}

// Verifies that a malformed continue token is 400.
TEST(List, MalformedContinue) {
  Harness h;
  Response r = h.get(std::string(kConfigMaps) + "?continue=%21%21");
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_EQ(bodyJson(r)["reason"], "BadRequest");
}

// Verifies that listing without a namespace spans every namespace.
TEST(List, AllNamespaces) {
  Harness h;
  ASSERT_EQ(h.post("/api/v1/namespaces/kube-system/configmaps", configMap("sys")).status, 201);
  ASSERT_EQ(h.post(kConfigMaps, configMap("app")).status, 201);
  json list = bodyJson(h.get("/api/v1/configmaps"));
  EXPECT_EQ(list["kind"], "ConfigMapList");
  EXPECT_EQ(list["apiVersion"], "v1");
  std::vector<std::string> where;
  for (const json& item : list["items"]) {
    where.push_back(item["metadata"]["namespace"].get<std::string>() + "/" +
                    item["metadata"]["name"].get<std::string>());
    EXPECT_FALSE(item.contains("kind")) << "list items carry no type meta";
  }
  EXPECT_EQ(where, (std::vector<std::string>{"default/app", "kube-system/sys"}));
}

// Verifies that resourceVersion=0 (served from the watch cache) ignores limit.
TEST(List, ResourceVersionZeroIgnoresLimit) {
  Harness h;
  seed(h);
  json list = bodyJson(h.get(std::string(kConfigMaps) + "?limit=2&resourceVersion=0"));
  EXPECT_EQ(names(list).size(), 5u);
  EXPECT_FALSE(list["metadata"].contains("continue"));
}

}  // namespace
}  // namespace hetbench::kubesim::testing
