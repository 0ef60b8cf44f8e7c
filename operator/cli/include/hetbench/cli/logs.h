#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "hetbench/common/status.h"
#include "hetbench/kube/credentials.h"

namespace hetbench::cli {

/// Where the kept logs are read from: the operator's log server or its log directory.
class LogSource {
 public:
  virtual ~LogSource() = default;
  /// The files of every run of that name, relative to the name's directory
  /// ("UID/0-1/POD/CONTAINER.log").
  virtual common::Result<std::vector<std::string>> list(const std::string& ns,
                                                        const std::string& run) = 0;
  /// Passes one file's content to `out` in pieces.
  virtual common::Status read(const std::string& ns, const std::string& run,
                              const std::string& path,
                              const std::function<void(std::string_view)>& out) = 0;
};

/// Reads `<dir>/<namespace>/<run>/...` directly (on the operator's host, or a copy of it).
std::unique_ptr<LogSource> directorySource(std::filesystem::path dir);
/// How the operator's log server is reached: its URL, how its certificate is checked, and the
/// credentials presented to it (a kubeconfig user's; sent over HTTPS only, never in clear).
struct ServerAccess {
  std::string url;
  std::string caPem;  // the CA of the server's certificate; empty: the system's
  bool insecureSkipTlsVerify = false;
  std::shared_ptr<kube::CredentialProvider> credentials;  // nullptr: none
};

/// Reads through the operator's `--logs-bind-address` server, e.g. "https://127.0.0.1:8082"
/// (through `kubectl port-forward` on a cluster). A 401 or 403 is Unavailable with the
/// server's reason.
common::Result<std::unique_ptr<LogSource>> serverSource(ServerAccess access);

struct LogSelection {
  std::optional<std::int64_t> trial;
  std::optional<std::int64_t> repetition;
  bool timestamps = false;  // keep the kubelet's timestamp in front of each line
  std::string uid;          // which run of the name; "" for the one that exists
};

/// Which run of a name to show, from the files of every run of it (LogSource::list): the one
/// of `uid` when given; else the only one whose run has not been seen deleted, or the only one
/// at all. NotFound with the uids (and whether each run is deleted) when that is not one.
common::Result<std::string> chooseRun(const std::vector<std::string>& files,
                                      const std::string& uid);

/// The container logs among one run's `files` (relative to its directory, "0-1/POD/C.log") that
/// `selection` picks, in order (trial, repetition, pod, container); manifests are left out.
std::vector<std::string> selectLogFiles(const std::vector<std::string>& files,
                                        const LogSelection& selection);

/// Prints each selected log of the run `chooseRun` picks behind a `==> 0-1/POD/CONTAINER.log
/// <==` header; NotFound when the name has no logs, no run fits, or the selection picks none.
common::Status printLogs(LogSource& source, const std::string& ns, const std::string& run,
                         const LogSelection& selection, std::ostream& out);

}  // namespace hetbench::cli
