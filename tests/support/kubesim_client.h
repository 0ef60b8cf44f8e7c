#pragma once

// The REST client of the tests that talk to an in-process kubesim, and the CRDs they install.

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>

#include "hetbench/common/clock.h"
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

}  // namespace hetbench::testing_support
