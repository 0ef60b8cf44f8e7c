#include "files.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace hetbench::kube::internal {

common::Result<std::string> readFile(const std::string& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (!std::filesystem::exists(status)) return common::notFoundError("not found");
  if (std::filesystem::is_directory(status)) return common::invalidError("is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) return common::invalidError(std::strerror(errno));
  std::ostringstream content;
  content << in.rdbuf();
  if (in.bad()) return common::invalidError("read failed");
  return content.str();
}

std::string resolvePath(const std::string& dir, const std::string& path) {
  if (path.empty() || path.front() == '/') return path;
  return (std::filesystem::path(dir) / path).lexically_normal().string();
}

std::string directoryOf(const std::string& path) {
  const auto parent = std::filesystem::path(path).parent_path();
  return parent.empty() ? "." : parent.string();
}

std::string trim(const std::string& s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  const auto last = s.find_last_not_of(" \t\r\n");
  return s.substr(first, last - first + 1);
}

bool looksLikePemCertificate(const std::string& text) {
  const auto begin = text.find("-----BEGIN CERTIFICATE-----");
  return begin != std::string::npos &&
         text.find("-----END CERTIFICATE-----", begin) != std::string::npos;
}

}  // namespace hetbench::kube::internal
