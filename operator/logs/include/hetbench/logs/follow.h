#pragma once

// Following a file that only grows, such as a Slurm job's output on a shared file system, into
// the log directory, as the collector follows a container's log stream.

#include <cstdint>
#include <filesystem>

#include "hetbench/common/status.h"

namespace hetbench::logs {

/// Appends to `kept` what `source` holds beyond the bytes `kept` already has, so that `kept`
/// grows as `source` does and nothing is copied twice (a restarted operator goes on from the
/// kept file's end). `kept` takes at most `maxBytes` of the output, then one
/// LogCollector::truncationMarker line and no more, as a container's log does. Returns the bytes
/// appended; NotFound while `source` does not exist; Internal when a file cannot be read or
/// written.
common::Result<std::uint64_t> followFile(const std::filesystem::path& source,
                                         const std::filesystem::path& kept, std::uint64_t maxBytes);

}  // namespace hetbench::logs
