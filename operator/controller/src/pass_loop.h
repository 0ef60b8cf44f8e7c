#pragma once

// The shape both reconcilers share: a pass over one object computes its writes and buffers its
// Events; a pass that meets a Conflict (its cache was behind the controller's own writes) is
// redone from a fresh GET, and only the pass that succeeds sends its Events, so that a redone
// pass does not repeat them. Any other error goes back to the work queue's rate-limited retry.
// Internal to the controller.

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "hetbench/common/status.h"
#include "hetbench/controller/reconciler.h"
#include "hetbench/kube/client.h"
#include "hetbench/kube/events.h"

namespace hetbench::controller::detail {

struct PendingEvent {
  kube::EventType type;
  std::string reason;
  std::string message;
};

/// The Events of one pass, sent once it has succeeded.
class EventBuffer {
 public:
  const std::vector<PendingEvent>& events() const { return events_; }

 protected:
  void event(kube::EventType type, std::string_view reason, std::string message) {
    events_.push_back({type, std::string(reason), std::move(message)});
  }

 private:
  std::vector<PendingEvent> events_;
};

/// Runs `make(object).execute()` up to `attempts` times (see above); `done` sees the pass that
/// succeeded. A pass type has execute(), events() and object() (the object as last written).
template <typename Make, typename Done>
common::Result<ReconcileResult> runPasses(kube::KubeClient& client,
                                          const kube::GroupVersionResource& resource,
                                          const std::string& ns, const std::string& name,
                                          nlohmann::json object, int attempts,
                                          kube::EventRecorder& recorder, Make&& make, Done&& done) {
  for (int attempt = 1;; ++attempt) {
    auto pass = make(std::move(object));
    common::Result<ReconcileResult> result = pass.execute();
    if (result.isOk()) {
      for (const PendingEvent& e : pass.events())
        recorder.event(pass.object(), e.type, e.reason, e.message);
      done(pass);
      return result;
    }
    if (!result.status().isConflict() || attempt >= attempts) return result;
    common::Result<nlohmann::json> fresh = client.get(resource, ns, name);
    if (fresh.status().isNotFound()) return ReconcileResult{};
    if (!fresh.isOk()) return fresh.status();
    object = std::move(fresh).value();
  }
}

}  // namespace hetbench::controller::detail
