#include <gtest/gtest.h>

#include "testing/harness.h"

namespace hetbench::kubesim::testing {
namespace {

using nlohmann::json;

// Verifies that a pod created over HTTP runs to Succeeded and its log is served.
TEST(Smoke, PodRunsAndLogs) {
  Harness h;
  Response created = h.post("/api/v1/namespaces/default/pods", commandPod("p", "echo hello"));
  ASSERT_EQ(created.status, 201) << created.body;
  ASSERT_TRUE(Harness::eventually([&] {
    return bodyJson(h.get("/api/v1/namespaces/default/pods/p"))["status"].value("phase", "") ==
           "Succeeded";
  }));
  Response log = h.get("/api/v1/namespaces/default/pods/p/log");
  EXPECT_EQ(log.status, 200);
  EXPECT_EQ(log.body, "hello\n");
}

}  // namespace
}  // namespace hetbench::kubesim::testing
