#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "hetbench/common/status.h"
#include "hetbench/http/server.h"

namespace hetbench::controller {

struct BindAddress {
  std::string host;  // "0.0.0.0" for ":8081"
  std::uint16_t port = 0;
};

/// Parses a bind address as controller-runtime's flags take it: "HOST:PORT", ":PORT" (all
/// interfaces), or "0" to serve nothing (nullopt). Anything else is Invalid, naming `flag`.
common::Result<std::optional<BindAddress>> parseBindAddress(std::string_view text,
                                                            std::string_view flag);

/// Serves GET /healthz (200 while `healthy()`) and GET /readyz (200 once `ready()`), each
/// answering "ok" or a one-line reason with 500; anything else is 404.
common::Result<std::unique_ptr<http::Server>> serveProbes(const BindAddress& address,
                                                          std::function<bool()> healthy,
                                                          std::function<bool()> ready);

/// Serves the kept logs read-only: GET /logs/NAMESPACE/RUN/ lists the run's files (JSON: an
/// array of paths relative to the run), GET /logs/NAMESPACE/RUN/PATH returns one file as
/// text. Every path segment must be a plain name (letters, digits, '.', '-', '_', not starting
/// with '.'), so no request reaches outside `dir`; anything else is 400, a missing file 404.
common::Result<std::unique_ptr<http::Server>> serveLogs(const BindAddress& address,
                                                        const std::filesystem::path& dir);

}  // namespace hetbench::controller
