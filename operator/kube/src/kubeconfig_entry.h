#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <string_view>

#include "hetbench/common/status.h"
#include "hetbench/kube/config.h"

namespace hetbench::kube::internal {

/// One named cluster, user or context body, with where it came from so that errors can name the
/// file and the field, and relative paths can resolve against the file's directory.
struct Entry {
  std::string file;   // the kubeconfig file that defined it
  std::string field;  // e.g. users["dev"].user
  YAML::Node body;
};

/// Invalid: "<file>: <field>.<key>: <message>" (no key: "<file>: <field>: <message>").
common::Status entryError(const Entry& entry, std::string_view key, std::string_view message);

/// A string field; empty when absent or null.
common::Result<std::string> stringField(const Entry& entry, const char* key);

/// A boolean field; false when absent or null.
common::Result<bool> boolField(const Entry& entry, const char* key);

/// Fills the server and TLS settings of `config` from a clusters[].cluster body.
common::Status applyCluster(const Entry& cluster, RestConfig* config);

/// Fills the credentials of `config` from a users[].user body.
common::Status applyUser(const Entry& user, RestConfig* config);

}  // namespace hetbench::kube::internal
