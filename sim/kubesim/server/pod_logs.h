#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "hetbench/common/clock.h"
#include "hetbench/http/server.h"
#include "server/api_error.h"

namespace hetbench::kubesim {

/// The query of GET pods/NAME/log.
struct PodLogOptions {
  std::string container;
  bool follow = false;
  bool timestamps = false;
  bool previous = false;
  std::optional<common::WallTime> sinceTime;
  std::optional<std::int64_t> sinceSeconds;
  std::optional<std::int64_t> tailLines;
  std::optional<std::int64_t> limitBytes;
};

/// Where container logs come from: kubesim's kubelet.
class PodLogSource {
 public:
  virtual ~PodLogSource() = default;
  /// Streams a container's log into `out`. Returns an error, before writing anything, when the
  /// request cannot be served (unknown container, container not started). `cut` turns true
  /// when a fault injection asks to break the stream.
  virtual std::optional<ApiError> streamLog(const std::string& ns, const std::string& pod,
                                            const PodLogOptions& options, http::ResponseWriter& out,
                                            const std::function<bool()>& cut) = 0;
};

}  // namespace hetbench::kubesim
