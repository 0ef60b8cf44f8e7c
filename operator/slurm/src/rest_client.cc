#include <cpprest/http_client.h>

#include <memory>
#include <string>
#include <utility>

#include "hetbench/kube/http_config.h"
#include "hetbench/slurm/client.h"

namespace hetbench::slurm {
namespace {

namespace http = web::http;
using common::Result;
using common::Status;

class RestClient : public SlurmApi {
 public:
  RestClient(ClientOptions options, std::unique_ptr<http::client::http_client> client)
      : options_(std::move(options)),
        dialect_(dialect(options_.version)),
        client_(std::move(client)) {}

  Result<Submitted> submit(const JobRequest& request) override {
    const std::string path = dialect_.submitPath();
    HETBENCH_ASSIGN_OR_RETURN(Answer answer,
                              send(http::methods::POST, path, dialect_.submitBody(request).dump()));
    Result<Submitted> submitted = dialect_.readSubmitted(answer);
    if (!submitted.isOk()) return submitted.status().withContext(context("POST", path));
    return submitted;
  }

  Result<JobInfo> job(std::int64_t id) override {
    const std::string path = dialect_.jobPath(id);
    HETBENCH_ASSIGN_OR_RETURN(Answer answer, read(path));
    Result<std::vector<JobInfo>> jobs = dialect_.readJobs(Operation::kJob, answer);
    if (!jobs.isOk()) return jobs.status().withContext(context("GET", path));
    for (JobInfo& info : *jobs) {
      if (info.id == id) return std::move(info);
    }
    return common::notFoundError(context("GET", path) + ": the answer does not hold job " +
                                 std::to_string(id));
  }

  Result<std::vector<JobInfo>> jobs(std::optional<common::WallTime> changedSince) override {
    const std::string path = dialect_.jobsPath(changedSince);
    HETBENCH_ASSIGN_OR_RETURN(Answer answer, read(path));
    Result<std::vector<JobInfo>> jobs = dialect_.readJobs(Operation::kJobs, answer);
    if (!jobs.isOk()) return jobs.status().withContext(context("GET", path));
    return jobs;
  }

  Status cancel(std::int64_t id) override {
    const std::string path = dialect_.jobPath(id);
    HETBENCH_ASSIGN_OR_RETURN(Answer answer, send(http::methods::DEL, path, ""));
    return dialect_.readCancelled(answer).withContext(context("DELETE", path));
  }

  Result<std::vector<NodeInfo>> nodes() override {
    const std::string path = dialect_.nodesPath();
    HETBENCH_ASSIGN_OR_RETURN(Answer answer, read(path));
    Result<std::vector<NodeInfo>> nodes = dialect_.readNodes(answer);
    if (!nodes.isOk()) return nodes.status().withContext(context("GET", path));
    return nodes;
  }

  Result<std::vector<PartitionInfo>> partitions() override {
    const std::string path = dialect_.partitionsPath();
    HETBENCH_ASSIGN_OR_RETURN(Answer answer, read(path));
    Result<std::vector<PartitionInfo>> partitions = dialect_.readPartitions(answer);
    if (!partitions.isOk()) return partitions.status().withContext(context("GET", path));
    return partitions;
  }

  Status ping() override {
    const std::string path = dialect_.pingPath();
    HETBENCH_ASSIGN_OR_RETURN(Answer answer, read(path));
    return dialect_.readPing(answer).withContext(context("GET", path));
  }

 private:
  std::string context(const std::string& verb, const std::string& path) const {
    return verb + " " + options_.url + path;
  }

  // A GET. Slurm 22.05's slurmrestd answers every read "Unspecified error" (-1) both when
  // slurmctld refused the token and when it could not answer; a cancellation of job 0, which
  // no job has, tells them apart: slurmctld answers it "Invalid job id" for an accepted token
  // and closes the connection on a refused one (error 5005), before it looks at the job. The
  // refusal then stands in for the read's answer.
  Result<Answer> read(const std::string& path) {
    HETBENCH_ASSIGN_OR_RETURN(Answer answer, send(http::methods::GET, path, ""));
    if (dialect_.version() != ApiVersion::kV0_0_38 || !onlyUnspecifiedErrors(answer)) {
      return answer;
    }
    Result<Answer> probe = send(http::methods::DEL, dialect_.jobPath(0), "");
    if (probe.isOk() && answerStatus(Operation::kCancel, *probe).isUnauthorized()) {
      return common::unauthorizedError(
          context("GET", path) +
          ": slurmctld refuses the token: the read came back \"Unspecified error\", and a "
          "cancellation of job 0 (which no job has) \"Zero Bytes were transmitted or received\", "
          "Slurm 22.05's answers to a refused token");
    }
    return answer;
  }

  // One request, not retried: the caller's work queue retries, and only the caller knows
  // whether a request may be sent twice.
  Result<Answer> send(const http::method& method, const std::string& path,
                      const std::string& body) {
    const std::string verb = method;
    Result<Credentials> creds =
        options_.credentials ? options_.credentials() : Result<Credentials>(Credentials{});
    if (!creds.isOk()) return creds.status().withContext("slurmrestd credentials");
    http::http_request request(method);
    request.set_request_uri(utility::conversions::to_string_t(path));
    request.headers().add("Accept", "application/json");
    if (!creds->user.empty()) request.headers().add("X-SLURM-USER-NAME", creds->user);
    if (!creds->token.empty()) request.headers().add("X-SLURM-USER-TOKEN", creds->token);
    if (method == http::methods::POST) request.set_body(body, "application/json");
    try {
      http::http_response response = client_->request(request).get();
      Answer answer;
      answer.status = response.status_code();
      answer.body = response.extract_utf8string(true).get();
      return answer;
    } catch (const std::exception& e) {
      std::string message = context(verb, path) + ": cannot reach slurmrestd: " + e.what();
      if (method == http::methods::POST) message += " (whether the job was submitted is unknown)";
      return common::unavailableError(std::move(message));
    }
  }

  const ClientOptions options_;
  const Dialect& dialect_;
  const std::unique_ptr<http::client::http_client> client_;
};

}  // namespace

Result<std::unique_ptr<SlurmApi>> makeSlurmClient(ClientOptions options) {
  std::string url = options.url;
  while (!url.empty() && url.back() == '/') url.pop_back();
  if (url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0) {
    return common::invalidError("slurmrestd URL \"" + options.url +
                                "\" must start with http:// or https://");
  }
  options.url = url;
  try {
    auto client = std::make_unique<http::client::http_client>(
        utility::conversions::to_string_t(url),
        kube::httpClientConfig(options.timeout, options.caPem, options.insecureSkipTlsVerify,
                               kube::Credentials{}));
    return std::unique_ptr<SlurmApi>(
        std::make_unique<RestClient>(std::move(options), std::move(client)));
  } catch (const std::exception& e) {
    return common::invalidError("slurmrestd URL \"" + options.url + "\": " + e.what());
  }
}

}  // namespace hetbench::slurm
