#include "hetbench/cli/completion.h"

#include <gtest/gtest.h>

#include "hetbench/cli/cluster.h"

namespace hetbench::cli {
namespace {

// Verifies the program name in usage and errors and the completion mode, per invoked name.
TEST(Completion, InvocationFromTheInvokedName) {
  const std::vector<std::tuple<std::string, std::string, std::string, bool>> cases = {
      {"hetbench", "hetbench", "hetbench", false},
      {"./build/operator/cmd/hetbench", "hetbench", "hetbench", false},
      {"/usr/local/bin/kubectl-hetbench", "kubectl hetbench", "kubectl-hetbench", false},
      {"kubectl-hetbench", "kubectl hetbench", "kubectl-hetbench", false},
      {"/p/kubectl_complete-hetbench", "kubectl hetbench", "kubectl_complete-hetbench", true},
      {"", "hetbench", "", false},
  };
  for (const auto& [argv0, program, executable, completes] : cases) {
    const Invocation got = invocationOf(argv0);
    EXPECT_EQ(got.program, program) << argv0;
    EXPECT_EQ(got.executable, executable) << argv0;
    EXPECT_EQ(got.pluginCompletion, completes) << argv0;
  }
}

std::vector<CommandSpec> commands() {
  common::FlagSet report("report", "");
  ClusterFlags cluster;
  cluster.addTo(report, true);
  std::string text;
  report.addString("format", &text, "");
  report.addString("file", &text, "");
  common::FlagSet logs("logs", "");
  ClusterFlags logsCluster;
  logsCluster.addTo(logs, false);
  std::int64_t trial = 0;
  logs.addInt("trial", &trial, "", 0, 9);
  return {
      {"report",
       report.describe(),
       ArgumentKind::kRuns,
       -1,
       {{"format", {"table", "csv", "json"}}},
       {"kubeconfig", "file"}},
      {"compare", report.describe(), ArgumentKind::kRuns, 2, {}, {}},
      {"logs", logs.describe(), ArgumentKind::kRuns, 1, {}, {"kubeconfig"}},
      {"validate", {}, ArgumentKind::kFiles, -1, {}, {}},
      {"completion", {}, ArgumentKind::kShells, 1, {}, {}},
  };
}

// Verifies the candidates and directive for each position: command, flag, flag value, argument.
TEST(Completion, Candidates) {
  struct Case {
    std::vector<std::string> words;
    std::vector<std::string> want;
    int directive;
  };
  using V = std::vector<std::string>;
  const std::vector<Case> cases = {
      {{}, {"report", "compare", "logs", "validate", "completion"}, kCompleteNoFiles},
      {{"re"}, {"report"}, kCompleteNoFiles},
      {{"co"}, {"compare", "completion"}, kCompleteNoFiles},
      {{"nope", ""}, {}, kCompleteNoFiles},
      {{"report", "--fo"}, {"--format"}, kCompleteNoFiles},
      {{"report", "--a"}, {"--all-namespaces"}, kCompleteNoFiles},
      {{"report", "--format", ""}, {"table", "csv", "json"}, kCompleteNoFiles},
      {{"report", "--format", "c"}, {"csv"}, kCompleteNoFiles},
      {{"report", "--format=j"}, {"--format=json"}, kCompleteNoFiles},
      {{"report", "--kubeconfig", ""}, {}, kCompleteFiles},
      {{"report", "-n", ""}, {}, kCompleteNoFiles},
      {{"report", ""}, {"a-run", "b-run"}, kCompleteNoFiles},
      {{"report", "a"}, {"a-run"}, kCompleteNoFiles},
      {{"report", "a-run", "--format", "csv", "b"}, {"b-run"}, kCompleteNoFiles},
      {{"compare", "a-run", "b-run", ""}, {}, kCompleteNoFiles},
      {{"compare", "-n", "lab", "a-run", ""}, {"a-run", "b-run"}, kCompleteNoFiles},
      {{"logs", "a-run", ""}, {}, kCompleteNoFiles},
      {{"logs", "--trial", "1", ""}, {"a-run", "b-run"}, kCompleteNoFiles},
      {{"report", "--", "-"}, {}, kCompleteNoFiles},
      {{"validate", ""}, {}, kCompleteFiles},
      {{"completion", ""}, {"bash", "zsh"}, kCompleteNoFiles},
      {{"completion", "bash", ""}, {}, kCompleteNoFiles},
  };
  const RunLister runs = [](const std::map<std::string, std::string>&) {
    return common::Result<V>(V{"b-run", "a-run", "a-run"});
  };
  for (const Case& c : cases) {
    const Completions got = complete(commands(), c.words, runs);
    const std::string what = c.words.empty() ? "(none)" : c.words.front() + "..." + c.words.back();
    EXPECT_EQ(got.candidates, c.want) << what;
    EXPECT_EQ(got.directive, c.directive) << what;
  }
}

// Verifies that the run lister is given the cluster flags typed so far, in every spelling.
TEST(Completion, RunListerSeesTypedFlags) {
  const std::vector<std::pair<std::vector<std::string>, std::map<std::string, std::string>>> cases =
      {
          {{"report", ""}, {}},
          {{"report", "-n", "lab", ""}, {{"namespace", "lab"}}},
          {{"report", "-nlab", ""}, {{"namespace", "lab"}}},
          {{"report", "--namespace=lab", "--context", "c", ""},
           {{"namespace", "lab"}, {"context", "c"}}},
          {{"report", "-A", "--kubeconfig", "/k", ""},
           {{"all-namespaces", "true"}, {"kubeconfig", "/k"}}},
          {{"logs", "-n", "lab", ""}, {{"namespace", "lab"}}},
      };
  for (const auto& [words, want] : cases) {
    std::map<std::string, std::string> seen;
    bool called = false;
    complete(commands(), words, [&](const std::map<std::string, std::string>& typed) {
      seen = typed;
      called = true;
      return common::Result<std::vector<std::string>>(std::vector<std::string>{});
    });
    EXPECT_TRUE(called) << words[1];
    EXPECT_EQ(seen, want) << words[1];
  }
}

// Verifies that a cluster that cannot be read makes the answer an error, which shells ignore.
TEST(Completion, ListerErrorIsTheErrorDirective) {
  const Completions got =
      complete(commands(), {"report", ""}, [](const std::map<std::string, std::string>&) {
        return common::Result<std::vector<std::string>>(common::unavailableError("down"));
      });
  EXPECT_TRUE(got.candidates.empty());
  EXPECT_EQ(got.directive, kCompleteError);
}

// Verifies cobra's answer format: a candidate per line, then the directive.
TEST(Completion, FormatIsCobras) {
  EXPECT_EQ(formatCompletions({{"report", "compare"}, kCompleteNoFiles}), "report\ncompare\n:4\n");
  EXPECT_EQ(formatCompletions({{}, kCompleteFiles}), ":0\n");
}

// Verifies that the scripts register for the executable they were asked for, under a function
// name the shell accepts.
TEST(Completion, ScriptsNameTheExecutable) {
  const std::string bash = bashCompletionScript("hetbench");
  EXPECT_NE(bash.find("complete -F _hetbench hetbench\n"), std::string::npos) << bash;
  EXPECT_NE(bash.find("__complete"), std::string::npos);
  const std::string plugin = bashCompletionScript("kubectl-hetbench");
  EXPECT_NE(plugin.find("complete -F _kubectl_hetbench kubectl-hetbench\n"), std::string::npos);
  const std::string zsh = zshCompletionScript("hetbench");
  EXPECT_EQ(zsh.rfind("#compdef hetbench\n", 0), 0u) << zsh;
  EXPECT_NE(zsh.find("compdef _hetbench hetbench\n"), std::string::npos);
  EXPECT_EQ(zsh.find("@PROGRAM@"), std::string::npos);
  EXPECT_EQ(zsh.find("@FUNCTION@"), std::string::npos);
}

}  // namespace
}  // namespace hetbench::cli
