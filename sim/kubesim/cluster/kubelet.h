#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "cluster/container_log.h"
#include "cluster/controller.h"
#include "cluster/events.h"
#include "cluster/process.h"
#include "hetbench/common/ids.h"
#include "server/pod_logs.h"

namespace hetbench::kubesim {

struct KubeletOptions {
  /// Scratch space: one working directory per pod, holding its container logs.
  std::string workDir;
  std::vector<std::string> missingImages;
  std::map<std::string, std::vector<std::string>> entrypoints;
  /// CrashLoopBackOff: the first restart is immediate, then base, 2*base, ... up to max.
  std::chrono::milliseconds restartBackoff{std::chrono::seconds(10)};
  std::chrono::milliseconds maxRestartBackoff{std::chrono::minutes(5)};
};

/// The kubelet of every simulated node: runs the containers of pods bound to a node as local
/// processes and reports their state as a real kubelet does (phase, conditions,
/// containerStatuses, restarts and back-off, image pull failures, graceful termination,
/// activeDeadlineSeconds), records the Events a kubelet records about them (pulling, creating,
/// starting, killing, back-off, failures), and serves their logs.
class Kubelet final : public Controller, public PodLogSource {
 public:
  Kubelet(Api& api, EventRecorder& events, KubeletOptions options);
  ~Kubelet() override;

  std::optional<ApiError> streamLog(const std::string& ns, const std::string& pod,
                                    const PodLogOptions& options, http::ResponseWriter& out,
                                    const std::function<bool()>& cut) override;

 private:
  struct Container {
    std::string name;
    bool init = false;
    std::unique_ptr<Process> process;
    std::shared_ptr<ContainerLog> log;
    std::shared_ptr<ContainerLog> previousLog;
    int restartCount = 0;
    nlohmann::json state = {{"waiting", {{"reason", "ContainerCreating"}}}};
    nlohmann::json lastState = nlohmann::json::object();
    std::string containerID;
    bool done = false;  // terminated and not to be restarted
    std::optional<std::chrono::steady_clock::time_point> restartAt;
    int pullAttempts = 0;
    std::optional<std::chrono::steady_clock::time_point> pullRetryAt;  // image pull back-off
  };
  struct PodRun {
    std::string uid;
    std::string dir;
    std::string podIP;
    std::string startTime;
    std::vector<Container> init;
    std::vector<Container> main;
    bool terminating = false;
    bool finished = false;
    std::string reason;
    std::string message;
  };

  std::optional<std::chrono::milliseconds> reconcile(const ObjectKey& key) override;
  std::optional<std::chrono::milliseconds> step(PodRun& run, const nlohmann::json& pod);
  bool startContainer(PodRun& run, Container& c, const nlohmann::json& pod,
                      const nlohmann::json& spec);
  /// Whether the container's image is there to run, recording the image manager's Events.
  bool ensureImage(Container& c, const nlohmann::json& pod, const nlohmann::json& container);
  void observeExit(const nlohmann::json& pod, Container& c, int code,
                   const std::string& restartPolicy);
  /// An Event from the pod's node about the pod, or about one of its containers.
  void record(const nlohmann::json& pod, const Container* c, std::string_view type,
              std::string_view reason, const std::string& message);
  /// Stops the containers of a pod, with a Killing Event for each that still runs.
  void killRunning(PodRun& run, const nlohmann::json& pod, std::chrono::milliseconds grace);
  nlohmann::json statusOf(const PodRun& run, const nlohmann::json& pod) const;
  void writeStatus(const ObjectKey& key, const std::string& uid, const nlohmann::json& status);
  void finishDeletion(const ObjectKey& key, const std::string& uid);
  void killAll(PodRun& run, std::chrono::milliseconds grace);
  std::string allocateIp();

  EventRecorder& events_;
  KubeletOptions options_;
  std::mutex mu_;
  std::map<std::string, std::set<std::string>> pulledImages_;   // node -> images pulled there
  std::map<std::pair<std::string, std::string>, PodRun> runs_;  // (namespace, name)
  std::uint64_t nextIp_ = 0;
  common::SystemRandom random_;
};

}  // namespace hetbench::kubesim
