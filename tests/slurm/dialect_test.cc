#include "hetbench/slurm/dialect.h"

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace hetbench::slurm {
namespace {

using nlohmann::json;

JobRequest request() {
  JobRequest r;
  r.name = "hb-resnet-0-0";
  r.comment = "hetbench.io/unit=ns/run/uid/0-0";
  r.partition = "gpu";
  r.account = "lab";
  r.script = "#!/bin/sh\nhetbench-train\n";
  r.workingDirectory = "/shared/hetbench";
  r.standardOutput = "/shared/hetbench/out.log";
  r.environment = {{"PATH", "/usr/bin:/bin"}, {"HETBENCH_UNIT", "0-0"}};
  r.nodes = 2;
  r.tasksPerNode = 4;
  r.gpusPerNode = 4;
  r.timeLimitMinutes = 30;
  return r;
}

TEST(SlurmDialectTest, ApiVersionsParseAsTheyAreNamed) {
  for (ApiVersion version : apiVersions()) {
    auto parsed = parseApiVersion(apiVersionName(version));
    ASSERT_TRUE(parsed.isOk());
    EXPECT_EQ(*parsed, version);
    EXPECT_EQ(dialect(version).version(), version);
  }
  auto bad = parseApiVersion("v0.0.40");
  ASSERT_FALSE(bad.isOk());
  EXPECT_TRUE(bad.status().isInvalid());
  EXPECT_EQ(bad.status().message(),
            "unsupported slurmrestd OpenAPI version \"v0.0.40\": supported: v0.0.38, v0.0.42");
}

TEST(SlurmDialectTest, PathsCarryTheVersion) {
  const Dialect& d = dialect(ApiVersion::kV0_0_42);
  EXPECT_EQ(d.submitPath(), "/slurm/v0.0.42/job/submit");
  EXPECT_EQ(d.jobPath(42), "/slurm/v0.0.42/job/42");
  EXPECT_EQ(d.jobsPath(std::nullopt), "/slurm/v0.0.42/jobs/");
  EXPECT_EQ(d.jobsPath(common::WallTime(std::chrono::seconds(1700000000))),
            "/slurm/v0.0.42/jobs/?update_time=1700000000");
  EXPECT_EQ(dialect(ApiVersion::kV0_0_38).pingPath(), "/slurm/v0.0.38/ping/");
}

TEST(SlurmDialectTest, V0038SubmitIsSbatchOptionsBesideTheScript) {
  const json body = dialect(ApiVersion::kV0_0_38).submitBody(request());
  EXPECT_EQ(body["script"], "#!/bin/sh\nhetbench-train\n");
  const json& job = body["job"];
  EXPECT_EQ(job["name"], "hb-resnet-0-0");
  EXPECT_EQ(job["comment"], "hetbench.io/unit=ns/run/uid/0-0");
  EXPECT_EQ(job["partition"], "gpu");
  EXPECT_EQ(job["account"], "lab");
  EXPECT_FALSE(job.contains("qos"));
  EXPECT_EQ(job["current_working_directory"], "/shared/hetbench");
  EXPECT_EQ(job["standard_output"], "/shared/hetbench/out.log");
  EXPECT_FALSE(job.contains("standard_error"));
  EXPECT_EQ(job["environment"], (json{{"PATH", "/usr/bin:/bin"}, {"HETBENCH_UNIT", "0-0"}}));
  EXPECT_EQ(job["nodes"], json::array({2, 2}));
  EXPECT_EQ(job["tasks_per_node"], 4);
  EXPECT_EQ(job["tasks"], 8);
  EXPECT_EQ(job["gres"], "gpu:4");
  EXPECT_EQ(job["time_limit"], 30);
  EXPECT_EQ(job["requeue"], false);
}

TEST(SlurmDialectTest, V0042SubmitPutsTheScriptInTheJob) {
  const json body = dialect(ApiVersion::kV0_0_42).submitBody(request());
  EXPECT_FALSE(body.contains("script"));
  const json& job = body["job"];
  EXPECT_EQ(job["script"], "#!/bin/sh\nhetbench-train\n");
  EXPECT_EQ(job["environment"], json::array({"PATH=/usr/bin:/bin", "HETBENCH_UNIT=0-0"}));
  EXPECT_EQ(job["nodes"], "2");
  EXPECT_FALSE(job.contains("gres"));
  EXPECT_EQ(job["tres_per_node"], "gres/gpu:4");
  EXPECT_EQ(job["time_limit"], (json{{"set", true}, {"infinite", false}, {"number", 30}}));
  EXPECT_EQ(job["requeue"], false);
}

TEST(SlurmDialectTest, NoGpusNoTimeLimitLeaveTheFieldsOut) {
  JobRequest r = request();
  r.gpusPerNode = 0;
  r.timeLimitMinutes = 0;
  for (ApiVersion version : apiVersions()) {
    const json job = dialect(version).submitBody(r)["job"];
    EXPECT_FALSE(job.contains("gres"));
    EXPECT_FALSE(job.contains("tres_per_node"));
    EXPECT_FALSE(job.contains("time_limit"));
  }
}

TEST(SlurmDialectTest, AnswersMapToStatusCodes) {
  struct Case {
    const char* name;
    Operation operation;
    Answer answer;
    common::StatusCode code;
    std::string message;
  };
  const json invalidJob = {{"errors",
                            {{{"error_number", 2017},
                              {"error", "Invalid job id specified"},
                              {"description", "Unable to find JobId=9"}}}}};
  const json alreadyDone = {
      {"errors",
       {{{"error_number", 2021}, {"error", "Job/step already completing or completed"}}}}};
  const json controllerDown = {
      {"errors",
       {{{"error_number", 1001},
         {"error", "Unable to contact slurm controller (connect failure)"}}}}};
  const json nodeConfig = {
      {"errors",
       {{{"error_number", 2014}, {"error", "Requested node configuration is not available"}}}}};
  const json noChange = {{"jobs", json::array()},
                         {"errors", {{{"error_number", 1900}, {"error", "No error"}}}}};
  const std::vector<Case> cases = {
      {"ok", Operation::kJobs, {200, R"({"jobs":[]})"}, common::StatusCode::kOk, ""},
      {"wrong token",
       Operation::kSubmit,
       {500, "Authentication failure"},
       common::StatusCode::kUnauthorized,
       "slurmrestd refused the credentials: HTTP 500: \"Authentication failure\""},
      {"401",
       Operation::kJobs,
       {401, ""},
       common::StatusCode::kUnauthorized,
       "slurmrestd refused the credentials: HTTP 401"},
      {"unknown path",
       Operation::kPing,
       {404, "Unable to find path"},
       common::StatusCode::kInvalid,
       "slurmrestd does not serve this path (is its OpenAPI plugin for this version loaded?): "
       "HTTP 404: \"Unable to find path\""},
      {"proxy",
       Operation::kJob,
       {503, "<html>"},
       common::StatusCode::kUnavailable,
       "slurmrestd: HTTP 503: \"<html>\""},
      {"not JSON",
       Operation::kJob,
       {200, "<html>"},
       common::StatusCode::kInternal,
       "slurmrestd answered with a body that is not a JSON object: HTTP 200: \"<html>\""},
      {"unknown job",
       Operation::kJob,
       {500, invalidJob.dump()},
       common::StatusCode::kNotFound,
       "slurmrestd: Unable to find JobId=9 (Invalid job id specified)"},
      {"cancel of an ended job",
       Operation::kCancel,
       {500, alreadyDone.dump()},
       common::StatusCode::kOk,
       ""},
      {"job of an ended job",
       Operation::kJob,
       {500, alreadyDone.dump()},
       common::StatusCode::kInternal,
       "slurmrestd: Job/step already completing or completed"},
      {"slurmctld down",
       Operation::kSubmit,
       {500, controllerDown.dump()},
       common::StatusCode::kUnavailable,
       "slurmrestd: Unable to contact slurm controller (connect failure)"},
      {"refused job",
       Operation::kSubmit,
       {500, nodeConfig.dump()},
       common::StatusCode::kInvalid,
       "slurmrestd: Requested node configuration is not available"},
      {"refused elsewhere",
       Operation::kJobs,
       {500, nodeConfig.dump()},
       common::StatusCode::kInternal,
       "slurmrestd: Requested node configuration is not available"},
      {"no change", Operation::kJobs, {500, noChange.dump()}, common::StatusCode::kOk, ""},
      {"22.05 refusing a token",
       Operation::kSubmit,
       {500,
        R"({"errors":[{"error_code":5005,"error":"Zero Bytes were transmitted or received"}]})"},
       common::StatusCode::kUnauthorized,
       "slurmrestd: Zero Bytes were transmitted or received (slurmctld closed the connection "
       "unanswered, as Slurm 22.05 does for a token it refuses)"},
      {"22.05 errno",
       Operation::kPartitions,
       {500, R"({"errors":[{"errno":1001,"error":"Unable to contact slurm controller"}]})"},
       common::StatusCode::kUnavailable,
       "slurmrestd: Unable to contact slurm controller"},
      {"auth error",
       Operation::kJobs,
       {500,
        json{{"errors", {{{"error_number", 6000}, {"error", "Invalid authentication credential"}}}}}
            .dump()},
       common::StatusCode::kUnauthorized,
       "slurmrestd: Invalid authentication credential"},
  };
  for (const Case& c : cases) {
    const common::Status status = answerStatus(c.operation, c.answer);
    EXPECT_EQ(status.code(), c.code) << c.name << ": " << status.toString();
    EXPECT_EQ(status.message(), c.message) << c.name;
  }
}

TEST(SlurmDialectTest, UnspecifiedErrorsAreToldApart) {
  EXPECT_TRUE(onlyUnspecifiedErrors(
      {500, R"({"errors":[{"error_number":-1,"error":"Unspecified error"}]})"}));
  EXPECT_TRUE(onlyUnspecifiedErrors({500, R"({"errors":[{"errno":-1}]})"}));
  EXPECT_FALSE(onlyUnspecifiedErrors({500, R"({"errors":[{"errno":-1},{"errno":1001}]})"}));
  EXPECT_FALSE(onlyUnspecifiedErrors({200, R"({"errors":[]})"}));
  EXPECT_FALSE(onlyUnspecifiedErrors({500, "Authentication failure"}));
  EXPECT_TRUE(answerStatus(Operation::kJobs, {304, ""}).isOk()) << "unchanged since update_time";
}

TEST(SlurmDialectTest, SubmittedReadsTheJobIdAndWarnings) {
  auto v38 = dialect(ApiVersion::kV0_0_38)
                 .readSubmitted({200, R"({"job_id":17,"step_id":"BATCH","job_submit_user_msg":"",
                                           "errors":[]})"});
  ASSERT_TRUE(v38.isOk()) << v38.status().toString();
  EXPECT_EQ(v38->id, 17);
  EXPECT_TRUE(v38->warnings.empty());
  auto v42 = dialect(ApiVersion::kV0_0_42)
                 .readSubmitted({200, R"({"job_id":18,"warnings":[{"description":"field ignored",
                                           "source":"x"}],"errors":[]})"});
  ASSERT_TRUE(v42.isOk());
  EXPECT_EQ(v42->id, 18);
  EXPECT_EQ(v42->warnings, std::vector<std::string>{"field ignored"});
  auto missing = dialect(ApiVersion::kV0_0_42).readSubmitted({200, R"({"errors":[]})"});
  ASSERT_FALSE(missing.isOk());
  EXPECT_TRUE(missing.status().isInternal());
}

common::WallTime at(std::int64_t seconds) {
  return common::WallTime(std::chrono::seconds(seconds));
}

TEST(SlurmDialectTest, V0038JobsReadWaitStatusesAndOneStateWord) {
  const json body = {{"jobs",
                      {{{"job_id", 5},
                        {"name", "a"},
                        {"comment", "c"},
                        {"partition", "gpu"},
                        {"nodes", ""},
                        {"user_name", "nobody"},
                        {"job_state", "PENDING"},
                        {"state_reason", "Resources"},
                        {"state_description", ""},
                        {"submit_time", 100},
                        {"start_time", 400},
                        {"end_time", 500},
                        {"exit_code", 0},
                        {"time_limit", 5}},
                       {{"job_id", 6},
                        {"job_state", "FAILED"},
                        {"state_reason", "NonZeroExitCode"},
                        {"submit_time", 100},
                        {"start_time", 110},
                        {"end_time", 120},
                        {"exit_code", 3 << 8},
                        {"time_limit", nullptr}},
                       {{"job_id", 7},
                        {"job_state", "CANCELLED"},
                        {"state_reason", "None"},
                        {"start_time", 110},
                        {"end_time", 130},
                        {"exit_code", 15}},
                       {{"job_id", 8},
                        {"job_state", "COMPLETING"},
                        {"start_time", 110},
                        {"end_time", 130},
                        {"exit_code", 0}}}},
                     {"errors", json::array()}};
  auto jobs = dialect(ApiVersion::kV0_0_38).readJobs(Operation::kJobs, {200, body.dump()});
  ASSERT_TRUE(jobs.isOk()) << jobs.status().toString();
  ASSERT_EQ(jobs->size(), 4U);
  const JobInfo& pending = (*jobs)[0];
  EXPECT_EQ(pending.id, 5);
  EXPECT_EQ(pending.state, JobState::kPending);
  EXPECT_EQ(pending.reason, "Resources");
  EXPECT_EQ(pending.submitTime, at(100));
  EXPECT_EQ(pending.startTime, std::nullopt) << "a pending job's start_time is only expected";
  EXPECT_EQ(pending.endTime, std::nullopt);
  EXPECT_EQ(pending.exitCode, std::nullopt);
  EXPECT_EQ(pending.timeLimitMinutes, 5);
  EXPECT_EQ(pending.user, "nobody");
  const JobInfo& failed = (*jobs)[1];
  EXPECT_EQ(failed.state, JobState::kFailed);
  EXPECT_EQ(failed.startTime, at(110));
  EXPECT_EQ(failed.endTime, at(120));
  EXPECT_EQ(failed.exitCode, 3);
  EXPECT_EQ(failed.signal, std::nullopt);
  EXPECT_EQ(failed.timeLimitMinutes, std::nullopt);
  const JobInfo& cancelled = (*jobs)[2];
  EXPECT_EQ(cancelled.state, JobState::kCancelled);
  EXPECT_EQ(cancelled.reason, "");
  EXPECT_EQ(cancelled.signal, 15);
  EXPECT_EQ(cancelled.submitTime, std::nullopt);
  EXPECT_EQ((*jobs)[3].state, JobState::kCompleting);
  EXPECT_EQ((*jobs)[3].exitCode, std::nullopt) << "not finished yet";
}

TEST(SlurmDialectTest, V0042JobsReadNoValStructsAndStateArrays) {
  const json set = {{"set", true}, {"infinite", false}};
  auto number = [&](std::int64_t n) {
    json v = set;
    v["number"] = n;
    return v;
  };
  const json body = {
      {"jobs",
       {{{"job_id", 9},
         {"name", "b"},
         {"job_state", {"RUNNING"}},
         {"state_reason", "None"},
         {"submit_time", number(100)},
         {"start_time", number(110)},
         {"end_time", number(410)},
         {"time_limit", number(5)}},
        {{"job_id", 10},
         {"job_state", {"TIMEOUT"}},
         {"state_reason", "TimeLimit"},
         {"start_time", number(110)},
         {"end_time", number(170)},
         {"exit_code",
          {{"status", {"SIGNALED"}},
           {"return_code", number(0)},
           {"signal", {{"id", number(9)}, {"name", "KILL"}}}}},
         {"time_limit", {{"set", false}, {"infinite", true}, {"number", 0}}}},
        {{"job_id", 11}, {"job_state", {"COMPLETED", "COMPLETING"}}, {"start_time", number(1)}},
        {{"job_id", 12},
         {"job_state", {"PENDING", "REQUEUED"}},
         {"start_time", {{"set", false}, {"infinite", false}, {"number", 0}}}}}},
      {"last_backfill", number(0)},
      {"last_update", number(0)}};
  auto jobs = dialect(ApiVersion::kV0_0_42).readJobs(Operation::kJobs, {200, body.dump()});
  ASSERT_TRUE(jobs.isOk()) << jobs.status().toString();
  ASSERT_EQ(jobs->size(), 4U);
  EXPECT_EQ((*jobs)[0].state, JobState::kRunning);
  EXPECT_EQ((*jobs)[0].stateText, "RUNNING");
  EXPECT_EQ((*jobs)[0].startTime, at(110));
  EXPECT_EQ((*jobs)[0].endTime, std::nullopt) << "a running job's end_time is only expected";
  EXPECT_EQ((*jobs)[0].timeLimitMinutes, 5);
  EXPECT_EQ((*jobs)[1].state, JobState::kTimeout);
  EXPECT_EQ((*jobs)[1].reason, "TimeLimit");
  EXPECT_EQ((*jobs)[1].exitCode, 0);
  EXPECT_EQ((*jobs)[1].signal, 9);
  EXPECT_EQ((*jobs)[1].timeLimitMinutes, std::nullopt);
  EXPECT_EQ((*jobs)[2].state, JobState::kCompleting);
  EXPECT_EQ((*jobs)[2].stateText, "COMPLETED,COMPLETING");
  EXPECT_EQ((*jobs)[3].state, JobState::kPending);
}

TEST(SlurmDialectTest, AJobAnswerWithoutTheJobIsNotFound) {
  auto jobs = dialect(ApiVersion::kV0_0_42).readJobs(Operation::kJob, {200, R"({"jobs":[]})"});
  ASSERT_FALSE(jobs.isOk());
  EXPECT_TRUE(jobs.status().isNotFound());
}

TEST(SlurmDialectTest, StateWords) {
  struct Case {
    std::vector<std::string> words;
    JobState state;
  };
  const std::vector<Case> cases = {
      {{"PENDING"}, JobState::kPending},
      {{"running"}, JobState::kRunning},
      {{"RUNNING", "CONFIGURING"}, JobState::kPending},
      {{"CONFIGURING"}, JobState::kPending},
      {{"FAILED", "COMPLETING"}, JobState::kCompleting},
      {{"STAGE_OUT"}, JobState::kCompleting},
      {{"REQUEUED"}, JobState::kPending},
      {{"RESIZING"}, JobState::kRunning},
      {{"STOPPED"}, JobState::kSuspended},
      {{"OUT_OF_MEMORY"}, JobState::kOutOfMemory},
      {{"NODE_FAIL"}, JobState::kNodeFail},
      {{}, JobState::kUnknown},
      {{"SOMETHING_NEW"}, JobState::kUnknown},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(jobStateOf(c.words), c.state) << (c.words.empty() ? "" : c.words[0]);
  }
  EXPECT_TRUE(isFinished(JobState::kTimeout));
  EXPECT_FALSE(isFinished(JobState::kCompleting));
  EXPECT_FALSE(isFinished(JobState::kUnknown));
}

TEST(SlurmDialectTest, NodesPartitionsAndPings) {
  auto nodes38 =
      dialect(ApiVersion::kV0_0_38).readNodes({200, R"({"nodes":[{"name":"node1","state":"idle",
                       "state_flags":["DRAIN"],"cpus":4,"gres":"gpu:2","partitions":["gpu"],
                       "reason":"test"}]})"});
  ASSERT_TRUE(nodes38.isOk());
  EXPECT_EQ((*nodes38)[0].states, (std::vector<std::string>{"IDLE", "DRAIN"}));
  EXPECT_EQ((*nodes38)[0].gres, "gpu:2");
  auto nodes42 = dialect(ApiVersion::kV0_0_42)
                     .readNodes({200, R"({"nodes":[{"name":"node1","state":["IDLE","DRAIN"],
                       "cpus":4,"gres":"gpu:2","partitions":["gpu"],"reason":"test"}]})"});
  ASSERT_TRUE(nodes42.isOk());
  EXPECT_EQ((*nodes42)[0].states, (*nodes38)[0].states);
  EXPECT_EQ((*nodes42)[0].partitions, std::vector<std::string>{"gpu"});

  auto parts38 = dialect(ApiVersion::kV0_0_38)
                     .readPartitions({200, R"({"partitions":[{"name":"gpu","state":"UP",
                       "nodes":"node1","total_nodes":1,"max_time_limit":-1}]})"});
  ASSERT_TRUE(parts38.isOk());
  EXPECT_EQ((*parts38)[0].states, std::vector<std::string>{"UP"});
  EXPECT_EQ((*parts38)[0].maxTimeMinutes, std::nullopt);
  auto parts42 = dialect(ApiVersion::kV0_0_42).readPartitions({200, R"({"partitions":[{"name":"gpu",
                       "partition":{"state":["UP"]},"nodes":{"configured":"node1","total":1},
                       "maximums":{"time":{"set":true,"infinite":false,"number":60}}}]})"});
  ASSERT_TRUE(parts42.isOk());
  EXPECT_EQ((*parts42)[0].nodes, "node1");
  EXPECT_EQ((*parts42)[0].totalNodes, 1);
  EXPECT_EQ((*parts42)[0].maxTimeMinutes, 60);

  EXPECT_TRUE(dialect(ApiVersion::kV0_0_38)
                  .readPing({200, R"({"pings":[{"hostname":"c","ping":"UP","mode":"primary"}]})"})
                  .isOk());
  const common::Status down =
      dialect(ApiVersion::kV0_0_42)
          .readPing({200, R"({"pings":[{"hostname":"c","responding":false}]})"});
  EXPECT_TRUE(down.isUnavailable());
  EXPECT_EQ(down.message(), "slurmctld does not answer slurmrestd's ping: c");
}

// Answers of Slurm 24.11.5's slurmrestd (data_parser v0.0.42), recorded on loopback with the
// requests named in tests/slurm/v0.0.42/README.
Answer recorded(int status, const std::string& name) {
  std::ifstream in(std::string(HETBENCH_SLURM_ANSWERS) + "/" + name + ".json");
  std::stringstream body;
  body << in.rdbuf();
  EXPECT_FALSE(body.str().empty()) << name;
  return {status, body.str()};
}

TEST(SlurmDialectTest, RecordedV0042JobsRead) {
  const Dialect& d = dialect(ApiVersion::kV0_0_42);
  struct Case {
    const char* name;
    JobState state;
    std::string reason;
    std::optional<int> exitCode;
    std::optional<int> signal;
    bool started;
    bool ended;
  };
  const std::vector<Case> cases = {
      {"job_pending", JobState::kPending, "Resources", std::nullopt, std::nullopt, false, false},
      {"job_running", JobState::kRunning, "", std::nullopt, std::nullopt, true, false},
      {"job_completed", JobState::kCompleted, "", 0, std::nullopt, true, true},
      {"job_failed", JobState::kFailed, "NonZeroExitCode", 3, std::nullopt, true, true},
      {"job_cancelled_running_final", JobState::kCancelled, "", std::nullopt, 15, true, true},
      {"job_timeout", JobState::kTimeout, "TimeLimit", std::nullopt, 15, true, true},
  };
  for (const Case& c : cases) {
    auto jobs = d.readJobs(Operation::kJob, recorded(200, c.name));
    ASSERT_TRUE(jobs.isOk()) << c.name << ": " << jobs.status().toString();
    ASSERT_EQ(jobs->size(), 1U) << c.name;
    const JobInfo& job = (*jobs)[0];
    EXPECT_GT(job.id, 0) << c.name;
    EXPECT_EQ(job.state, c.state) << c.name << ": " << job.stateText;
    EXPECT_EQ(job.reason, c.reason) << c.name;
    EXPECT_EQ(job.exitCode, c.exitCode) << c.name;
    EXPECT_EQ(job.signal, c.signal) << c.name;
    EXPECT_EQ(job.startTime.has_value(), c.started) << c.name;
    EXPECT_EQ(job.endTime.has_value(), c.ended) << c.name;
    EXPECT_TRUE(job.submitTime.has_value()) << c.name;
    EXPECT_EQ(job.user, "nobody") << c.name;
    EXPECT_EQ(job.partition, "gpu") << c.name;
  }
  auto timeout = d.readJobs(Operation::kJob, recorded(200, "job_timeout"));
  ASSERT_TRUE(timeout.isOk());
  EXPECT_EQ((*timeout)[0].timeLimitMinutes, 1);
  EXPECT_LT(*(*timeout)[0].startTime, *(*timeout)[0].endTime);
}

TEST(SlurmDialectTest, RecordedV0042AnswersMapToStatusCodes) {
  const Dialect& d = dialect(ApiVersion::kV0_0_42);
  auto unknown = d.readJobs(Operation::kJob, recorded(404, "job_unknown"));
  EXPECT_TRUE(unknown.status().isNotFound()) << unknown.status().toString();
  EXPECT_TRUE(d.readCancelled(recorded(200, "delete_unknown")).isNotFound());
  EXPECT_TRUE(d.readCancelled(recorded(200, "delete_finished")).isOk());
  EXPECT_TRUE(d.readCancelled(recorded(200, "delete_running")).isOk());
  EXPECT_TRUE(d.readPing(recorded(200, "ping")).isOk());
  EXPECT_TRUE(d.readPing(recorded(200, "ctld_down_ping")).isUnavailable());

  auto wrongToken = d.readSubmitted(recorded(511, "auth_wrong_token_submit"));
  EXPECT_TRUE(wrongToken.status().isUnauthorized()) << wrongToken.status().toString();
  EXPECT_EQ(wrongToken.status().message(),
            "slurmrestd: Batch job submission failed (Protocol authentication error)");
  auto noToken = d.readSubmitted(recorded(401, "auth_no_token_submit"));
  EXPECT_TRUE(noToken.status().isUnauthorized()) << noToken.status().toString();
  auto controllerDown = d.readSubmitted(recorded(502, "ctld_down_submit"));
  EXPECT_TRUE(controllerDown.status().isUnavailable()) << controllerDown.status().toString();
  auto tooMany = d.readSubmitted(recorded(500, "submit_bad_tpn_toomany"));
  EXPECT_TRUE(tooMany.status().isInvalid()) << tooMany.status().toString();
  EXPECT_EQ(tooMany.status().message(),
            "slurmrestd: Batch job submission failed (Requested node configuration is not "
            "available)");

  auto submitted = d.readSubmitted(recorded(200, "submit_tres_per_node"));
  ASSERT_TRUE(submitted.isOk()) << submitted.status().toString();
  EXPECT_GT(submitted->id, 0);
  auto ignoredField = d.readSubmitted(recorded(200, "submit_gres_field"));
  ASSERT_TRUE(ignoredField.isOk());
  EXPECT_EQ(ignoredField->warnings,
            std::vector<std::string>{
                "Ignoring unknown field \"gres\" of type string in DATA_PARSER_JOB_DESC_MSG"});

  auto unchanged = d.readJobs(Operation::kJobs, recorded(200, "jobs_update_time_future"));
  ASSERT_TRUE(unchanged.isOk()) << unchanged.status().toString();
  EXPECT_TRUE(unchanged->empty());

  auto nodes = d.readNodes(recorded(200, "nodes"));
  ASSERT_TRUE(nodes.isOk());
  ASSERT_EQ(nodes->size(), 1U);
  EXPECT_EQ((*nodes)[0].gres, "gpu:2");
  EXPECT_EQ((*nodes)[0].cpus, 4);
  auto partitions = d.readPartitions(recorded(200, "partitions_down"));
  ASSERT_TRUE(partitions.isOk());
  EXPECT_EQ((*partitions)[0].states, std::vector<std::string>{"DOWN"});
  EXPECT_EQ((*partitions)[0].nodes, "node1");
  EXPECT_EQ((*partitions)[0].maxTimeMinutes, std::nullopt);
}

}  // namespace
}  // namespace hetbench::slurm
