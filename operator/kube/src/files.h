#pragma once

#include <string>

#include "hetbench/common/status.h"

namespace hetbench::kube::internal {

/// The whole content of a file; NotFound when it does not exist, Invalid for any other failure
/// (a directory, no permission), with the reason in the message.
common::Result<std::string> readFile(const std::string& path);

/// `path` itself when absolute or empty, else joined to `dir`.
std::string resolvePath(const std::string& dir, const std::string& path);

/// The directory part of a file path ("." for a bare name).
std::string directoryOf(const std::string& path);

/// `s` without leading and trailing white space.
std::string trim(const std::string& s);

/// True when `text` holds at least one PEM certificate block.
bool looksLikePemCertificate(const std::string& text);

}  // namespace hetbench::kube::internal
