#include "cluster/kubelet.h"

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>

#include "cluster/container_env.h"
#include "hetbench/common/go_text.h"
#include "hetbench/common/time.h"
#include "hetbench/http/openssl_util.h"

namespace hetbench::kubesim {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;
using SteadyClock = std::chrono::steady_clock;

// The pod conditions the kubelet writes; it keeps the others (PodScheduled, DisruptionTarget, a
// controller's own, such as Kueue's TerminationTarget) as they are, as its status manager does.
bool ownedByKubelet(const json& condition) {
  const std::string type = condition.value("type", "");
  return type == "PodReadyToStartContainers" || type == "Initialized" || type == "Ready" ||
         type == "ContainersReady";
}

// Points into `spec` itself, never into a copy.
const json* findContainer(const json& spec, const std::string& name, bool init) {
  auto list = spec.find(init ? "initContainers" : "containers");
  if (list == spec.end() || !list->is_array()) return nullptr;
  for (const json& c : *list) {
    if (c.value("name", "") == name) return &c;
  }
  return nullptr;
}

// The imageID a CRI runtime reports for a container's image: its repository, normalized as
// containerd names it (docker.io/library/ for Docker Hub's official images), and its digest.
// kubesim pulls nothing, so an image named without a digest gets the SHA-256 of its reference.
std::string imageId(const std::string& image) {
  std::string repository = image;
  std::string digest;
  if (const std::size_t at = repository.find('@'); at != std::string::npos) {
    digest = repository.substr(at + 1);
    repository.erase(at);
  }
  const std::size_t slash = repository.find('/');
  if (const std::size_t colon = repository.rfind(':');
      colon != std::string::npos && (slash == std::string::npos || colon > repository.rfind('/'))) {
    repository.erase(colon);
  }
  const std::string first = slash == std::string::npos ? "" : repository.substr(0, slash);
  if (slash == std::string::npos) {
    repository = "docker.io/library/" + repository;
  } else if (first.find_first_of(".:") == std::string::npos && first != "localhost") {
    repository = "docker.io/" + repository;
  }
  if (digest.empty()) digest = "sha256:" + http::ossl::sha256Hex(image);
  return repository + "@" + digest;
}

std::string secondsText(std::chrono::milliseconds d) {
  return std::to_string(std::chrono::duration_cast<std::chrono::seconds>(d).count()) + "s";
}

}  // namespace

Kubelet::Kubelet(Api& api, EventRecorder& events, KubeletOptions options)
    : Controller(api, "kubelet"), events_(events), options_(std::move(options)) {
  watch("/pods");
}

Kubelet::~Kubelet() {
  stop();
  std::lock_guard lock(mu_);
  for (auto& [key, run] : runs_) killAll(run, 0ms);
  runs_.clear();
}

std::string Kubelet::allocateIp() {
  const std::uint64_t n = nextIp_++;
  return "10.244." + std::to_string(n / 250 % 256) + "." + std::to_string(n % 250 + 2);
}

void Kubelet::record(const json& pod, const Container* c, std::string_view type,
                     std::string_view reason, const std::string& message) {
  std::string fieldPath;
  if (c != nullptr) {
    fieldPath = std::string(c->init ? "spec.initContainers{" : "spec.containers{") + c->name + "}";
  }
  events_.record({EventSource::Recorder::kCoreV1, std::string(events::kKubelet),
                  pod["spec"].value("nodeName", "")},
                 objectReference(pod, fieldPath), type, reason, message);
}

void Kubelet::killRunning(PodRun& run, const json& pod, std::chrono::milliseconds grace) {
  for (std::vector<Container>* list : {&run.init, &run.main}) {
    for (Container& c : *list) {
      if (!c.process) continue;
      if (!c.process->exitCode()) {
        record(pod, &c, events::kNormal, events::kKilling, "Stopping container " + c.name);
      }
      c.process->terminate(grace);
    }
  }
}

void Kubelet::killAll(PodRun& run, std::chrono::milliseconds grace) {
  for (std::vector<Container>* list : {&run.init, &run.main}) {
    for (Container& c : *list) {
      if (c.process) c.process->terminate(grace);
    }
  }
}

std::optional<std::chrono::milliseconds> Kubelet::reconcile(const ObjectKey& key) {
  std::optional<json> pod = api_.store().get("/pods", key.ns, key.name);
  std::lock_guard lock(mu_);
  auto it = runs_.find({key.ns, key.name});
  const std::string uid = pod ? (*pod)["metadata"].value("uid", "") : "";
  if (it != runs_.end() && it->second.uid != uid) {
    killAll(it->second, 0ms);
    runs_.erase(it);
    it = runs_.end();
  }
  if (!pod || (*pod)["spec"].value("nodeName", "").empty()) return std::nullopt;
  // Only the kubelet of an existing node runs a pod; PodGC collects the others.
  if (it == runs_.end() &&
      !api_.store().get("/nodes", "", (*pod)["spec"]["nodeName"].get<std::string>())) {
    return std::nullopt;
  }
  const std::string phase = (*pod).value("status", json::object()).value("phase", "");
  const bool deleting = (*pod)["metadata"].contains("deletionTimestamp");
  if (it == runs_.end()) {
    if (phase == "Succeeded" || phase == "Failed") {
      if (deleting) finishDeletion(key, uid);
      return std::nullopt;
    }
    PodRun run;
    run.uid = uid;
    run.dir = options_.workDir + "/" + key.ns + "/" + key.name + "-" + uid;
    std::error_code ec;
    std::filesystem::create_directories(run.dir, ec);
    run.podIP = allocateIp();
    run.startTime = common::formatRfc3339(api_.clock().now());
    const json& spec = (*pod)["spec"];
    for (const json& c : spec.value("initContainers", json::array())) {
      run.init.push_back(Container{});
      run.init.back().name = c.value("name", "");
      run.init.back().init = true;
    }
    for (const json& c : spec.value("containers", json::array())) {
      run.main.push_back(Container{});
      run.main.back().name = c.value("name", "");
    }
    it = runs_.emplace(std::make_pair(key.ns, key.name), std::move(run)).first;
  }
  PodRun& run = it->second;

  if (deleting) {
    if (!run.terminating) {
      run.terminating = true;
      const std::int64_t grace =
          (*pod)["metadata"].value("deletionGracePeriodSeconds", std::int64_t{0});
      killRunning(run, *pod, std::chrono::seconds(grace));
    }
    for (std::vector<Container>* list : {&run.init, &run.main}) {
      for (Container& c : *list) {
        if (!c.process) continue;
        std::optional<int> code = c.process->exitCode();
        if (!code) return 50ms;
        observeExit(*pod, c, *code, "Never");
      }
    }
    run.finished = true;
    writeStatus(key, uid, statusOf(run, *pod));
    finishDeletion(key, uid);
    runs_.erase(it);
    return std::nullopt;
  }
  if (run.finished) return std::nullopt;
  std::optional<std::chrono::milliseconds> again = step(run, *pod);
  writeStatus(key, uid, statusOf(run, *pod));
  return again;
}

std::optional<std::chrono::milliseconds> Kubelet::step(PodRun& run, const json& pod) {
  const json& spec = pod["spec"];
  const std::string policy = spec.value("restartPolicy", "Always");
  const auto now = SteadyClock::now();
  if (spec.contains("activeDeadlineSeconds") && spec["activeDeadlineSeconds"].is_number_integer()) {
    common::Result<common::WallTime> started = common::parseRfc3339(run.startTime);
    if (started.isOk() &&
        api_.clock().now() >=
            started.value() +
                std::chrono::seconds(spec["activeDeadlineSeconds"].get<std::int64_t>())) {
      run.reason = "DeadlineExceeded";
      run.message = "Pod was active on the node longer than the specified deadline";
      record(pod, nullptr, events::kNormal, events::kDeadlineExceeded, run.message);
      killRunning(run, pod, std::chrono::seconds(spec.value("terminationGracePeriodSeconds", 30)));
      for (std::vector<Container>* list : {&run.init, &run.main}) {
        for (Container& c : *list) {
          if (c.process) {
            if (std::optional<int> code = c.process->wait(5s)) {
              observeExit(pod, c, *code, "Never");
            }
          }
          c.done = true;
        }
      }
      run.finished = true;
      return std::nullopt;
    }
  }

  std::optional<std::chrono::milliseconds> wake;
  auto soonest = [&](std::chrono::milliseconds d) { wake = wake ? std::min(*wake, d) : d; };
  const std::string initPolicy = policy == "Never" ? "Never" : "OnFailure";
  for (Container& c : run.init) {
    if (c.done) {
      const json& t = c.state.value("terminated", json::object());
      if (t.value("exitCode", 0) != 0) {
        run.finished = true;
        return std::nullopt;
      }
      continue;
    }
    if (c.process) {
      std::optional<int> code = c.process->exitCode();
      if (!code) return 100ms;
      observeExit(pod, c, *code, initPolicy);
      if (c.done) continue;
    }
    if (c.restartAt && now < *c.restartAt) {
      return std::chrono::duration_cast<std::chrono::milliseconds>(*c.restartAt - now) + 1ms;
    }
    if (!startContainer(run, c, pod, spec)) return c.done ? 10ms : 1000ms;
    return 100ms;
  }

  bool allDone = true;
  for (Container& c : run.main) {
    if (c.done) continue;
    allDone = false;
    if (c.process) {
      std::optional<int> code = c.process->exitCode();
      if (!code) {
        soonest(100ms);
        continue;
      }
      observeExit(pod, c, *code, policy);
      if (c.done) continue;
    }
    if (c.restartAt && now < *c.restartAt) {
      soonest(std::chrono::duration_cast<std::chrono::milliseconds>(*c.restartAt - now) + 1ms);
      continue;
    }
    if (startContainer(run, c, pod, spec)) {
      soonest(100ms);
    } else {
      soonest(c.done ? 10ms : 1000ms);
    }
  }
  if (allDone) {
    bool everyDone = true;
    for (const Container& c : run.main) everyDone = everyDone && c.done;
    run.finished = everyDone;
  }
  return run.finished ? std::nullopt : wake;
}

bool Kubelet::startContainer(PodRun& run, Container& c, const json& pod, const json& spec) {
  const json* container = findContainer(spec, c.name, c.init);
  if (container == nullptr) return false;
  const std::string image = container->value("image", "");
  if (!ensureImage(c, pod, *container)) return false;
  // The sandbox's IP is known before any container starts, even if not yet in the stored status.
  json withIp = pod;
  withIp["status"]["podIP"] = run.podIP;
  common::Result<std::vector<std::pair<std::string, std::string>>> env =
      containerEnv(withIp, *container, api_.store());
  if (!env.isOk()) {
    c.state = {{"waiting",
                {{"reason", "CreateContainerConfigError"}, {"message", env.status().message()}}}};
    record(pod, &c, events::kWarning, events::kFailed, "Error: " + env.status().message());
    return false;
  }
  std::vector<std::string> argv;
  for (const json& a : container->value("command", json::array())) {
    argv.push_back(expandVariables(a.get<std::string>(), *env));
  }
  if (argv.empty()) {
    auto entry = options_.entrypoints.find(image);
    if (entry != options_.entrypoints.end()) argv = entry->second;
  }
  for (const json& a : container->value("args", json::array())) {
    argv.push_back(expandVariables(a.get<std::string>(), *env));
  }
  if (c.restartAt || c.log) {
    ++c.restartCount;
    c.previousLog = c.log;
  }
  c.restartAt.reset();
  const std::string logName =
      run.dir + "/" + c.name + "-" + std::to_string(c.restartCount) + ".log";
  common::Result<std::shared_ptr<ContainerLog>> log = ContainerLog::create(logName, api_.clock());
  if (!log.isOk()) {
    c.state = {
        {"waiting", {{"reason", "CreateContainerError"}, {"message", log.status().message()}}}};
    record(pod, &c, events::kWarning, events::kFailed, "Error: " + log.status().message());
    return false;
  }
  c.log = *log;
  const std::string now = common::formatRfc3339(api_.clock().now());
  c.containerID = "kubesim://" + common::shortId(random_) + common::shortId(random_);
  // The runtime has created the container; starting it (running the process) may still fail.
  record(pod, &c, events::kNormal, events::kCreated, "Created container: " + c.name);
  if (argv.empty()) {
    c.log->close();
    c.state = {{"terminated",
                {{"exitCode", 128},
                 {"reason", "StartError"},
                 {"message", "failed to create containerd task: no command specified"},
                 {"startedAt", now},
                 {"finishedAt", now},
                 {"containerID", c.containerID}}}};
    record(pod, &c, events::kWarning, events::kFailed,
           "Error: failed to create containerd task: no command specified");
    observeExit(pod, c, 128, c.init ? "OnFailure" : spec.value("restartPolicy", "Always"));
    return false;
  }
  ProcessSpec process;
  process.argv = std::move(argv);
  process.workingDir = run.dir;
  bool hasPath = false;
  for (const auto& [k, v] : *env) hasPath = hasPath || k == "PATH";
  if (!hasPath) {
    const char* path = std::getenv("PATH");
    process.env.push_back(std::string("PATH=") + (path ? path : "/usr/local/bin:/usr/bin:/bin"));
  }
  process.env.push_back("HOME=" + run.dir);
  process.env.push_back("HOSTNAME=" + spec.value("hostname", pod["metadata"].value("name", "")));
  for (const auto& [k, v] : *env) process.env.push_back(k + "=" + v);
  common::Result<std::unique_ptr<Process>> started = Process::start(process, c.log);
  if (!started.isOk()) {
    c.log->close();
    c.state = {{"terminated",
                {{"exitCode", 128},
                 {"reason", "StartError"},
                 {"message", started.status().message()},
                 {"startedAt", now},
                 {"finishedAt", now},
                 {"containerID", c.containerID}}}};
    record(pod, &c, events::kWarning, events::kFailed, "Error: " + started.status().message());
    observeExit(pod, c, 128, c.init ? "OnFailure" : spec.value("restartPolicy", "Always"));
    return false;
  }
  c.process = std::move(*started);
  c.state = {{"running", {{"startedAt", now}}}};
  record(pod, &c, events::kNormal, events::kStarted, "Started container " + c.name);
  return true;
}

bool Kubelet::ensureImage(Container& c, const json& pod, const json& container) {
  const std::string image = container.value("image", "");
  const std::string quoted = common::goQuote(image);
  if (std::find(options_.missingImages.begin(), options_.missingImages.end(), image) !=
      options_.missingImages.end()) {
    // Pulls are retried with the kubelet's back-off, not on every status change.
    const auto now = SteadyClock::now();
    if (c.pullRetryAt && now < *c.pullRetryAt) return false;
    ++c.pullAttempts;
    std::chrono::milliseconds delay = options_.restartBackoff;
    for (int i = 1; i < c.pullAttempts && delay < options_.maxRestartBackoff; ++i) delay *= 2;
    c.pullRetryAt = now + std::min(delay, options_.maxRestartBackoff);
    const std::string pullError = "failed to pull and unpack image " + quoted + ": not found";
    if (c.pullAttempts == 1) {
      c.state = {{"waiting", {{"reason", "ErrImagePull"}, {"message", pullError}}}};
      record(pod, &c, events::kNormal, events::kPulling, "Pulling image " + quoted);
      record(pod, &c, events::kWarning, events::kFailed,
             "Failed to pull image " + quoted + ": " + pullError);
      record(pod, &c, events::kWarning, events::kFailed, "Error: ErrImagePull");
    } else {
      c.state = {
          {"waiting",
           {{"reason", "ImagePullBackOff"}, {"message", "Back-off pulling image " + quoted}}}};
      record(pod, &c, events::kNormal, events::kBackOff, "Back-off pulling image " + quoted);
      record(pod, &c, events::kWarning, events::kFailed, "Error: ImagePullBackOff");
    }
    return false;
  }
  // Images are never fetched: a pull succeeds at once and leaves the image on the node, where
  // IfNotPresent then finds it; Never always finds it.
  const std::string policy = container.value("imagePullPolicy", "IfNotPresent");
  std::set<std::string>& pulled = pulledImages_[pod["spec"].value("nodeName", "")];
  if (policy == "Always" || (policy == "IfNotPresent" && !pulled.count(image))) {
    record(pod, &c, events::kNormal, events::kPulling, "Pulling image " + quoted);
    record(pod, &c, events::kNormal, events::kPulled,
           "Successfully pulled image " + quoted +
               " in 0s (0s including waiting). Image size: 0 bytes.");
    pulled.insert(image);
  } else {
    record(pod, &c, events::kNormal, events::kPulled,
           "Container image " + quoted + " already present on machine");
  }
  return true;
}

void Kubelet::observeExit(const json& pod, Container& c, int code,
                          const std::string& restartPolicy) {
  const std::string now = common::formatRfc3339(api_.clock().now());
  if (c.process) {
    const std::string startedAt = c.state.value("running", json::object()).value("startedAt", now);
    c.state = {{"terminated",
                {{"exitCode", code},
                 {"reason", code == 0 ? "Completed" : "Error"},
                 {"startedAt", startedAt},
                 {"finishedAt", now},
                 {"containerID", c.containerID}}}};
    c.process.reset();
    if (c.log) c.log->close();
  }
  const bool restart = restartPolicy == "Always" || (restartPolicy == "OnFailure" && code != 0);
  if (!restart) {
    c.done = true;
    return;
  }
  std::chrono::milliseconds delay = 0ms;
  if (c.restartCount > 0) {
    delay = options_.restartBackoff;
    for (int i = 1; i < c.restartCount && delay < options_.maxRestartBackoff; ++i) delay *= 2;
    delay = std::min(delay, options_.maxRestartBackoff);
  }
  c.lastState = c.state;
  c.restartAt = SteadyClock::now() + delay;
  if (delay > 0ms) {
    c.state = {{"waiting",
                {{"reason", "CrashLoopBackOff"},
                 {"message",
                  "back-off " + secondsText(delay) + " restarting failed container=" + c.name}}}};
    // format.Pod's "name_namespace(uid)".
    const json& meta = pod["metadata"];
    record(pod, &c, events::kWarning, events::kBackOff,
           "Back-off restarting failed container " + c.name + " in pod " + meta.value("name", "") +
               "_" + meta.value("namespace", "") + "(" + meta.value("uid", "") + ")");
  }
}

json Kubelet::statusOf(const PodRun& run, const json& pod) const {
  const json& spec = pod["spec"];
  const json old = pod.value("status", json::object());
  const std::string now = common::formatRfc3339(api_.clock().now());
  auto containerStatus = [&](const Container& c) {
    const json* container = findContainer(spec, c.name, c.init);
    json s = {{"name", c.name},
              {"state", c.state},
              {"lastState", c.lastState},
              {"ready", c.state.contains("running")},
              {"restartCount", c.restartCount},
              {"image", container ? container->value("image", "") : ""},
              {"imageID", ""},
              {"started", c.state.contains("running")}};
    // Both IDs exist once the runtime has created the container.
    if (!c.containerID.empty()) {
      s["containerID"] = c.containerID;
      s["imageID"] = imageId(s["image"].get<std::string>());
    }
    return s;
  };
  json statuses = json::array();
  bool allRunning = !run.main.empty();
  bool allStarted = true;
  int failed = 0;
  for (const Container& c : run.main) {
    statuses.push_back(containerStatus(c));
    allRunning = allRunning && c.state.contains("running");
    allStarted = allStarted && (c.process || c.done || c.restartAt || c.restartCount > 0);
    if (c.state.contains("terminated") && c.state["terminated"].value("exitCode", 0) != 0) ++failed;
  }
  json initStatuses = json::array();
  bool initialized = true;
  for (const Container& c : run.init) {
    initStatuses.push_back(containerStatus(c));
    initialized = initialized && c.done;
  }
  std::string phase = "Pending";
  if (run.finished) {
    phase = failed == 0 && run.reason.empty() ? "Succeeded" : "Failed";
    for (const Container& c : run.init) {
      if (c.state.contains("terminated") && c.state["terminated"].value("exitCode", 0) != 0) {
        phase = "Failed";
      }
    }
  } else if (initialized && allStarted) {
    phase = "Running";
  }
  auto condition = [&](const char* type, bool value, const char* reason) {
    const std::string status = value ? "True" : "False";
    json c = {{"type", type},
              {"status", status},
              {"lastProbeTime", nullptr},
              {"lastTransitionTime", now}};
    // The transition time moves only when the status does; the reason follows the pod.
    for (const json& previous : old.value("conditions", json::array())) {
      if (previous.value("type", "") == type && previous.value("status", "") == status) {
        c["lastTransitionTime"] = previous.value("lastTransitionTime", now);
      }
    }
    if (!value && reason != nullptr) c["reason"] = reason;
    return c;
  };
  const bool ready = allRunning && !run.finished;
  const char* notReady = phase == "Failed"      ? "PodFailed"
                         : phase == "Succeeded" ? "PodCompleted"
                                                : "ContainersNotReady";
  json conditions = json::array();
  conditions.push_back(
      condition("PodReadyToStartContainers", !run.finished || !run.terminating, nullptr));
  conditions.push_back(condition("Initialized", initialized, "ContainersNotInitialized"));
  conditions.push_back(condition("Ready", ready, notReady));
  conditions.push_back(condition("ContainersReady", ready, notReady));
  std::string hostIP = "10.0.0.10";
  if (std::optional<json> node = api_.store().get("/nodes", "", spec.value("nodeName", ""))) {
    for (const json& a : (*node)["status"].value("addresses", json::array())) {
      if (a.value("type", "") == "InternalIP") hostIP = a.value("address", hostIP);
    }
  }
  json status = {{"phase", phase},
                 {"conditions", conditions},
                 {"hostIP", hostIP},
                 {"hostIPs", {{{"ip", hostIP}}}},
                 {"podIP", run.podIP},
                 {"podIPs", {{{"ip", run.podIP}}}},
                 {"startTime", run.startTime},
                 {"containerStatuses", statuses},
                 {"qosClass", old.value("qosClass", "BestEffort")}};
  if (!run.init.empty()) status["initContainerStatuses"] = initStatuses;
  if (!run.reason.empty()) {
    status["reason"] = run.reason;
    status["message"] = run.message;
  }
  return status;
}

void Kubelet::writeStatus(const ObjectKey& key, const std::string& uid, const json& status) {
  (void)api_.store().mutate(
      "/pods", key.ns, key.name,
      [&](const std::optional<json>& current) -> common::Result<std::optional<json>> {
        if (!current || (*current)["metadata"].value("uid", "") != uid) return current;
        json next = *current;
        // The conditions the kubelet does not own are those of the pod as it is now: one that
        // the scheduler or a controller wrote since `status` was computed is not lost.
        json conditions = json::array();
        for (const json& c : status.value("conditions", json::array()))
          if (ownedByKubelet(c)) conditions.push_back(c);
        for (const json& c :
             next.value("status", json::object()).value("conditions", json::array()))
          if (!ownedByKubelet(c)) conditions.push_back(c);
        next["status"] = status;
        next["status"]["conditions"] = std::move(conditions);
        return std::optional<json>(std::move(next));
      });
}

void Kubelet::finishDeletion(const ObjectKey& key, const std::string& uid) {
  // As the kubelet's final delete with a zero grace period: gone now unless finalizers hold it.
  (void)api_.store().mutate(
      "/pods", key.ns, key.name,
      [&](const std::optional<json>& current) -> common::Result<std::optional<json>> {
        if (!current || (*current)["metadata"].value("uid", "") != uid) return current;
        const json& finalizers = (*current)["metadata"].value("finalizers", json::array());
        if (finalizers.empty()) return std::optional<json>();
        json next = *current;
        next["metadata"]["deletionGracePeriodSeconds"] = 0;
        return std::optional<json>(std::move(next));
      });
}

std::optional<ApiError> Kubelet::streamLog(const std::string& ns, const std::string& pod,
                                           const PodLogOptions& options, http::ResponseWriter& out,
                                           const std::function<bool()>& cut) {
  std::shared_ptr<ContainerLog> log;
  {
    std::lock_guard lock(mu_);
    auto it = runs_.find({ns, pod});
    std::optional<json> object = api_.store().get("/pods", ns, pod);
    std::vector<std::string> names, initNames;
    if (object) {
      for (const json& c : (*object)["spec"].value("containers", json::array()))
        names.push_back(c.value("name", ""));
      for (const json& c : (*object)["spec"].value("initContainers", json::array()))
        initNames.push_back(c.value("name", ""));
    }
    std::string container = options.container;
    if (container.empty()) {
      if (names.size() != 1) {
        auto joined = [](const std::vector<std::string>& v) {
          std::string s;
          for (const std::string& n : v) s += (s.empty() ? "" : " ") + n;
          return s;
        };
        ApiError e = errors::badRequest(
            "a container name must be specified for pod " + pod + ", choose one of: [" +
            joined(names) + "]" +
            (initNames.empty() ? ""
                               : " or one of the init containers: [" + joined(initNames) + "]"));
        return e;
      }
      container = names[0];
    }
    if (std::find(names.begin(), names.end(), container) == names.end() &&
        std::find(initNames.begin(), initNames.end(), container) == initNames.end()) {
      return errors::badRequest("container " + container + " is not valid for pod " + pod);
    }
    const Container* c = nullptr;
    if (it != runs_.end()) {
      for (const std::vector<Container>* list : {&it->second.init, &it->second.main}) {
        for (const Container& candidate : *list) {
          if (candidate.name == container) c = &candidate;
        }
      }
    }
    if (options.previous) {
      if (c == nullptr || !c->previousLog) {
        return errors::badRequest("previous terminated container \"" + container + "\" in pod \"" +
                                  pod + "\" not found");
      }
      log = c->previousLog;
    } else {
      if (c == nullptr || !c->log) {
        std::string reason = "ContainerCreating";
        if (c != nullptr && c->state.contains("waiting")) {
          reason = c->state["waiting"].value("reason", reason);
        }
        return errors::badRequest(
            "container \"" + container + "\" in pod \"" + pod + "\" is waiting to start: " +
            (reason == "ErrImagePull"       ? "image can't be pulled"
             : reason == "ImagePullBackOff" ? "trying and failing to pull image"
                                            : reason));
      }
      log = c->log;
    }
  }
  LogSelection selection;
  selection.follow = options.follow;
  selection.timestamps = options.timestamps;
  selection.tailLines = options.tailLines;
  selection.limitBytes = options.limitBytes;
  if (options.sinceTime) selection.since = options.sinceTime;
  if (options.sinceSeconds) {
    selection.since = api_.clock().now() - std::chrono::seconds(*options.sinceSeconds);
  }
  log->stream(selection, out, cut);
  return std::nullopt;
}

}  // namespace hetbench::kubesim
