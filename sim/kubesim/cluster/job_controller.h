#pragma once

#include <set>
#include <string>

#include "cluster/controller.h"
#include "cluster/events.h"

namespace hetbench::kubesim {

/// "1,3-5" for {1, 3, 4, 5}: the form of status.completedIndexes.
std::string formatIndexes(const std::set<long long>& indexes);
/// The inverse; malformed parts are skipped.
std::set<long long> parseIndexes(const std::string& text);

/// The batch/v1 Job controller as Kubernetes 1.32 runs it: pods tracked with the
/// batch.kubernetes.io/job-tracking finalizer, parallelism and completions (NonIndexed and
/// Indexed with JOB_COMPLETION_INDEX), backoffLimit with exponential pod re-creation delay,
/// podFailurePolicy (FailJob, Ignore, Count), activeDeadlineSeconds, suspend, and
/// ttlSecondsAfterFinished; FailureTarget / SuccessCriteriaMet first, then Failed / Complete
/// once no pod is left running. It records the Job's Events as kube-controller-manager does
/// (pods created and deleted, suspended and resumed, completed or failed).
class JobController final : public Controller {
 public:
  JobController(Api& api, EventRecorder& events, std::chrono::milliseconds podBackoff);
  ~JobController() override { stop(); }

 private:
  std::optional<std::chrono::milliseconds> reconcile(const ObjectKey& key) override;
  void releaseOrphans(const ObjectKey& key);
  void record(const nlohmann::json& job, std::string_view type, std::string_view reason,
              const std::string& message);

  EventRecorder& events_;
  std::chrono::milliseconds podBackoff_;
};

}  // namespace hetbench::kubesim
