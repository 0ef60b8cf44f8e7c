#include "hetbench/cli/logs.h"

#include <cpprest/http_client.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "hetbench/common/time.h"
#include "hetbench/kube/http_config.h"
#include "hetbench/logs/layout.h"

namespace hetbench::cli {
namespace {

namespace fs = std::filesystem;

class DirectorySource final : public LogSource {
 public:
  explicit DirectorySource(fs::path dir) : dir_(std::move(dir)) {}

  common::Result<std::vector<std::string>> list(const std::string& ns,
                                                const std::string& run) override {
    const fs::path root = dir_ / ns / run;
    std::error_code ec;
    if (!fs::is_directory(root, ec)) {
      return common::notFoundError("no logs of " + ns + "/" + run + " under " + dir_.string());
    }
    std::vector<std::string> files;
    for (auto it = fs::recursive_directory_iterator(root, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (it->is_regular_file(ec)) files.push_back(fs::relative(it->path(), root).generic_string());
    }
    if (ec) return common::unavailableError(root.string() + ": " + ec.message());
    return files;
  }

  common::Status read(const std::string& ns, const std::string& run, const std::string& path,
                      const std::function<void(std::string_view)>& out) override {
    std::ifstream in(dir_ / ns / run / path, std::ios::binary);
    if (!in) return common::notFoundError("cannot open " + (dir_ / ns / run / path).string());
    std::string chunk(64 * 1024, '\0');
    while (in.read(chunk.data(), static_cast<std::streamsize>(chunk.size())) || in.gcount() > 0)
      out(std::string_view(chunk.data(), static_cast<std::size_t>(in.gcount())));
    return common::okStatus();
  }

 private:
  fs::path dir_;
};

bool isHttps(const std::string& url) { return url.rfind("https://", 0) == 0; }

class ServerSource final : public LogSource {
 public:
  ServerSource(ServerAccess access, const kube::Credentials& creds)
      : access_(std::move(access)),
        client_(access_.url, kube::httpClientConfig(std::chrono::seconds(60), access_.caPem,
                                                    access_.insecureSkipTlsVerify, creds)) {}

  common::Result<std::vector<std::string>> list(const std::string& ns,
                                                const std::string& run) override {
    std::string body;
    HETBENCH_RETURN_IF_ERROR(
        get("/logs/" + ns + "/" + run + "/", [&](std::string_view data) { body.append(data); }));
    const nlohmann::json files = nlohmann::json::parse(body, nullptr, false);
    if (!files.is_array()) return common::internalError("the log server sent no file list");
    std::vector<std::string> out;
    for (const nlohmann::json& f : files)
      if (f.is_string()) out.push_back(f.get<std::string>());
    return out;
  }

  common::Status read(const std::string& ns, const std::string& run, const std::string& path,
                      const std::function<void(std::string_view)>& out) override {
    return get("/logs/" + ns + "/" + run + "/" + path, out);
  }

 private:
  common::Status get(const std::string& target, const std::function<void(std::string_view)>& out) {
    try {
      web::http::http_request request(web::http::methods::GET);
      request.set_request_uri(target);
      if (access_.credentials && isHttps(access_.url)) {
        HETBENCH_ASSIGN_OR_RETURN(kube::Credentials creds, access_.credentials->get());
        if (!creds.token.empty()) request.headers().add("Authorization", "Bearer " + creds.token);
      }
      web::http::http_response response = client_.request(request).get();
      const std::string body = response.extract_utf8string(true).get();
      if (response.status_code() == 404) return common::notFoundError("no logs at " + target);
      if (response.status_code() != 200) {
        return common::unavailableError("GET " + target + ": HTTP " +
                                        std::to_string(response.status_code()) + ": " + body);
      }
      out(body);
      return common::okStatus();
    } catch (const std::exception& e) {
      return common::unavailableError("GET " + target + ": " + e.what());
    }
  }

  ServerAccess access_;
  web::http::client::http_client client_;
};

/// Drops the RFC 3339 timestamp the kubelet puts in front of each kept line.
std::string_view withoutTimestamp(std::string_view line) {
  const std::size_t space = line.find(' ');
  if (space == std::string_view::npos) return line;
  return common::parseRfc3339(line.substr(0, space)).isOk() ? line.substr(space + 1) : line;
}

}  // namespace

std::unique_ptr<LogSource> directorySource(fs::path dir) {
  return std::make_unique<DirectorySource>(std::move(dir));
}

common::Result<std::unique_ptr<LogSource>> serverSource(ServerAccess access) {
  // The client certificate is fixed when the connection's TLS context is made.
  kube::Credentials creds;
  if (access.credentials && isHttps(access.url)) {
    HETBENCH_ASSIGN_OR_RETURN(creds, access.credentials->get());
  }
  const std::string url = access.url;
  try {
    return std::unique_ptr<LogSource>(std::make_unique<ServerSource>(std::move(access), creds));
  } catch (const std::exception& e) {
    return common::invalidError("--server " + url + ": " + e.what());
  }
}

std::vector<std::string> selectLogFiles(const std::vector<std::string>& files,
                                        const LogSelection& selection) {
  std::vector<std::pair<std::pair<std::int64_t, std::int64_t>, std::string>> picked;
  for (const std::string& file : files) {
    if (!logs::LogLayout::isContainerLog(file)) continue;
    const auto unit = logs::LogLayout::unitOf(file);
    if (!unit) continue;
    if (selection.trial && unit->first != *selection.trial) continue;
    if (selection.repetition && unit->second != *selection.repetition) continue;
    picked.emplace_back(*unit, file);
  }
  std::sort(picked.begin(), picked.end());
  std::vector<std::string> out;
  for (auto& [unit, file] : picked) out.push_back(std::move(file));
  return out;
}

common::Result<std::string> chooseRun(const std::vector<std::string>& files,
                                      const std::string& uid) {
  std::map<std::string, bool> deleted;  // by uid
  for (const std::string& file : files) {
    const auto generation = logs::LogLayout::generationOf(file);
    if (generation)
      deleted[generation->first] |= file == logs::LogLayout::deletedMarker(generation->first);
  }
  if (!uid.empty()) {
    if (deleted.contains(uid)) return uid;
  } else {
    std::vector<std::string> live;
    for (const auto& [id, gone] : deleted)
      if (!gone) live.push_back(id);
    if (live.size() == 1) return live.front();
    if (deleted.size() == 1) return deleted.begin()->first;
  }
  std::string known;
  for (const auto& [id, gone] : deleted)
    known += (known.empty() ? "" : ", ") + id + (gone ? " (deleted)" : "");
  if (deleted.empty()) return common::notFoundError("no logs of any run of that name");
  return common::notFoundError(
      (uid.empty() ? "logs of " + std::to_string(deleted.size()) + " runs of that name"
                   : "no logs of uid " + uid) +
      ": " + known + "; pick one with --uid");
}

common::Status printLogs(LogSource& source, const std::string& ns, const std::string& run,
                         const LogSelection& selection, std::ostream& out) {
  HETBENCH_ASSIGN_OR_RETURN(std::vector<std::string> files, source.list(ns, run));
  common::Result<std::string> uid = chooseRun(files, selection.uid);
  if (!uid.isOk()) return common::notFoundError(ns + "/" + run + ": " + uid.status().message());
  std::vector<std::string> ofRun;
  for (const std::string& file : files) {
    const auto generation = logs::LogLayout::generationOf(file);
    if (generation && generation->first == uid.value()) ofRun.push_back(generation->second);
  }
  const std::vector<std::string> selected = selectLogFiles(ofRun, selection);
  if (selected.empty())
    return common::notFoundError("no container logs of " + ns + "/" + run + " match");
  for (const std::string& file : selected) {
    out << "==> " << file << " <==\n";
    std::string partial;
    HETBENCH_RETURN_IF_ERROR(
        source.read(ns, run, uid.value() + "/" + file, [&](std::string_view data) {
          partial.append(data);
          std::size_t start = 0;
          for (std::size_t nl; (nl = partial.find('\n', start)) != std::string::npos;
               start = nl + 1) {
            const std::string_view line = std::string_view(partial).substr(start, nl - start);
            out << (selection.timestamps ? line : withoutTimestamp(line)) << '\n';
          }
          partial.erase(0, start);
        }));
    if (!partial.empty())
      out << (selection.timestamps ? partial : withoutTimestamp(partial)) << '\n';
  }
  return common::okStatus();
}

}  // namespace hetbench::cli
