#pragma once

// The REST client of the tests that talk to an in-process kubesim, and the CRDs they install.

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "hetbench/common/clock.h"
#include "hetbench/common/yaml.h"
#include "hetbench/kube/client.h"
#include "hetbench/kube/rest_client.h"
#include "testing/harness.h"

namespace hetbench::testing_support {

/// Client options for a test: retries that do not make a test wait, no rate limit to speak of.
inline kube::RestClientOptions testClientOptions() {
  kube::RestClientOptions options;
  options.qps = 1000;
  options.burst = 1000;
  options.retryBase = std::chrono::milliseconds(5);
  return options;
}

/// A REST client of `harness` over plain HTTP on 127.0.0.1.
inline std::unique_ptr<kube::KubeClient> kubesimClient(
    const kubesim::testing::Harness& harness, const common::Clock& clock,
    const kube::RestClientOptions& options = testClientOptions()) {
  kube::RestConfig config;
  config.server = "http://127.0.0.1:" + std::to_string(harness.port());
  common::Result<std::unique_ptr<kube::KubeClient>> client =
      kube::makeRestClient(config, options, clock);
  EXPECT_TRUE(client.isOk()) << client.status().toString();
  return client.isOk() ? std::move(client).value() : nullptr;
}

/// Creates the CustomResourceDefinition in the manifest `file` and waits until the API server
/// serves `served` in the default namespace.
inline ::testing::AssertionResult installCrd(kube::KubeClient& client, const std::string& file,
                                             const kube::GroupVersionResource& served) {
  const nlohmann::json crd = kubesim::testing::readManifest(file);
  if (!crd.is_object()) return ::testing::AssertionFailure() << "cannot read " << file;
  common::Result<nlohmann::json> created =
      client.create(kube::resources::kCustomResourceDefinitions, "", crd);
  if (!created.isOk())
    return ::testing::AssertionFailure() << file << ": " << created.status().toString();
  if (!kubesim::testing::Harness::eventually(
          [&] { return client.list(served, "default", {}).isOk(); })) {
    return ::testing::AssertionFailure() << file << " is not served";
  }
  return ::testing::AssertionSuccess();
}

/// Creates every object of the YAML manifest `file` (each document's resource found through
/// discovery); AlreadyExists counts as created.
inline ::testing::AssertionResult createObjects(kube::KubeClient& client, const std::string& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  common::Result<std::vector<nlohmann::json>> documents = common::yamlDocuments(text.str());
  if (!in || !documents.isOk()) return ::testing::AssertionFailure() << "cannot read " << file;
  for (const nlohmann::json& object : documents.value()) {
    if (!object.is_object()) continue;
    common::Result<kube::GroupVersionResource> gvr =
        client.resourceFor(object.value("apiVersion", ""), object.value("kind", ""));
    if (!gvr.isOk())
      return ::testing::AssertionFailure() << file << ": " << gvr.status().toString();
    const std::string ns =
        gvr.value().namespaced ? object["metadata"].value("namespace", "default") : std::string();
    common::Result<nlohmann::json> created = client.create(gvr.value(), ns, object);
    if (!created.isOk() && !created.status().isAlreadyExists())
      return ::testing::AssertionFailure() << file << ": " << created.status().toString();
  }
  return ::testing::AssertionSuccess();
}

/// A token of the service account NS/NAME from kubesim's TokenRequest, the namespace and the
/// account made first when missing; "" (and a test failure) when none can be had.
inline std::string serviceAccountToken(kubesim::testing::Harness& harness, kube::KubeClient& client,
                                       const std::string& ns, const std::string& name) {
  const nlohmann::json objects[] = {
      {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}},
      {{"apiVersion", "v1"},
       {"kind", "ServiceAccount"},
       {"metadata", {{"name", name}, {"namespace", ns}}}}};
  const kube::GroupVersionResource kServiceAccounts{"", "v1", "serviceaccounts", true};
  for (const nlohmann::json& object : objects) {
    const bool isNamespace = object["kind"] == "Namespace";
    common::Result<nlohmann::json> created =
        client.create(isNamespace ? kube::resources::kNamespaces : kServiceAccounts,
                      isNamespace ? "" : ns, object);
    EXPECT_TRUE(created.isOk() || created.status().isAlreadyExists())
        << created.status().toString();
  }
  const kubesim::testing::Response issued = harness.post(
      "/api/v1/namespaces/" + ns + "/serviceaccounts/" + name + "/token",
      {{"apiVersion", "authentication.k8s.io/v1"}, {"kind", "TokenRequest"}, {"spec", {}}});
  const nlohmann::json body = kubesim::testing::bodyJson(issued);
  EXPECT_EQ(issued.status, 201) << issued.body;
  const nlohmann::json token =
      body.is_object() ? body.value("status", nlohmann::json::object()) : nlohmann::json::object();
  EXPECT_TRUE(token.contains("token")) << issued.body;
  return token.value("token", "");
}

}  // namespace hetbench::testing_support
