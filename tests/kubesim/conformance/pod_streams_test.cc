#include <gtest/gtest.h>

#include "conformance/status_util.h"
#include "testing/harness.h"

namespace hetbench::kubesim::testing {
namespace {

using nlohmann::json;

constexpr const char* kWhy =
    ": its containers run as processes on the host, and it serves no streaming connections "
    "(SPDY or WebSocket)";

json podDetails() { return {{"name", "p"}, {"kind", "pods"}}; }

// Verifies that exec, attach and port-forward, which kubesim cannot stream, are refused at once
// with a 405 Status saying so (kubectl prints its message), whether the client upgrades to SPDY
// or WebSocket, after the pod's own 404.
TEST(PodStreams, ExecAttachPortForwardRefused) {
  Harness h;
  ASSERT_EQ(h.post("/api/v1/namespaces/default/pods", commandPod("p", "sleep 30")).status, 201);
  struct Case {
    const char* subresource;
    const char* method;
    const char* upgrade;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"exec?command=ls&stdout=true", "POST", "SPDY/3.1",
       std::string("kubesim does not support exec") + kWhy +
           "; run the command on the host, or read the container's output with kubectl logs"},
      {"exec?command=ls&stdout=true", "GET", "websocket",
       std::string("kubesim does not support exec") + kWhy +
           "; run the command on the host, or read the container's output with kubectl logs"},
      {"attach?stdout=true", "POST", "SPDY/3.1",
       std::string("kubesim does not support attach") + kWhy +
           "; follow the container's output with kubectl logs -f"},
      {"portforward?ports=8080", "POST", "SPDY/3.1",
       std::string("kubesim does not support port-forward") + kWhy +
           "; containers share the host's network, so connect to their ports on the host"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.method) + " " + c.subresource);
    const std::string headers =
        std::string("Connection: Upgrade\r\nUpgrade: ") + c.upgrade + "\r\n";
    expectStatus(
        h.request(c.method, std::string("/api/v1/namespaces/default/pods/p/") + c.subresource, "",
                  "", headers),
        405, "MethodNotAllowed", c.message, podDetails());
  }
  expectStatus(h.request("POST", "/api/v1/namespaces/default/pods/none/exec?command=ls"), 404,
               "NotFound", "pods \"none\" not found", {{"name", "none"}, {"kind", "pods"}});
  expectStatus(h.request("PUT", "/api/v1/namespaces/default/pods/p/exec", "{}"), 405,
               "MethodNotAllowed",
               "the server does not allow this method on the requested resource", json::object());

  json core = bodyJson(h.get("/api/v1"));
  std::map<std::string, json> listed;
  for (const json& r : core["resources"]) listed[r["name"]] = r;
  EXPECT_EQ(listed["pods/exec"]["kind"], "PodExecOptions");
  EXPECT_EQ(listed["pods/attach"]["kind"], "PodAttachOptions");
  EXPECT_EQ(listed["pods/portforward"]["kind"], "PodPortForwardOptions");
  EXPECT_EQ(listed["pods/exec"]["verbs"], json({"create", "get"}));
}

}  // namespace
}  // namespace hetbench::kubesim::testing
