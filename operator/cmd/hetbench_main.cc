// hetbench: the command-line client. Only wiring lives here.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "hetbench/benchmark/constants.h"
#include "hetbench/cli/cluster.h"
#include "hetbench/cli/completion.h"
#include "hetbench/cli/detect.h"
#include "hetbench/cli/logs.h"
#include "hetbench/cli/report.h"
#include "hetbench/cli/report_html.h"
#include "hetbench/cli/validate.h"
#include "hetbench/common/clock.h"
#include "hetbench/common/flags.h"
#include "hetbench/kube/config.h"
#include "hetbench/kube/credentials.h"
#include "hetbench/kube/rest_client.h"

namespace benchmark = hetbench::benchmark;
namespace cli = hetbench::cli;
namespace common = hetbench::common;
namespace kube = hetbench::kube;

namespace {

/// The name the program was invoked by, for usage and errors: "hetbench", or "kubectl hetbench"
/// when kubectl runs it as a plugin.
std::string program = "hetbench";

std::string usage() {
  return "Usage: " + program +
         " COMMAND [flags]\n\n"
         "Commands:\n"
         "  report [RUN...]      the results of BenchmarkRuns as the paper's tables (or figures)\n"
         "  compare RUN_A RUN_B  the ratio B/A of every metric of the trials they share\n"
         "  logs RUN             print the kept logs of a BenchmarkRun\n"
         "  validate FILE...     check BenchmarkRuns and BenchmarkSchedules before applying them\n"
         "  detect --file CSV    the change points of a series and the verdict of its last point\n"
         "  completion bash|zsh  print a shell completion script\n"
         "  version              print the version\n\n"
         "Run '" +
         program + " COMMAND --help' for a command's flags.\n";
}

/// "hetbench logs RUN" or "kubectl hetbench logs RUN": a command's line in its usage.
std::string commandLine(const std::string& rest) { return program + " " + rest; }

int fail(const char* command, const common::Status& status, int code) {
  std::fprintf(stderr, "%s %s: %s\n", program.c_str(), command, status.message().c_str());
  return code;
}

/// Parses a command's flags into `args`; an exit code when the command should stop there
/// (usage printed: 0, a bad flag: 2).
std::optional<int> parseCommand(const char* command, common::FlagSet& flags, int argc, char** argv,
                                std::vector<std::string>& args) {
  common::Result<std::vector<std::string>> parsed = flags.parse(argc, argv);
  if (!parsed.isOk()) return fail(command, parsed.status(), 2);
  if (flags.helpRequested()) {
    std::fputs(flags.usage().c_str(), stdout);
    return 0;
  }
  args = std::move(parsed).value();
  return std::nullopt;
}

/// The whole of `file`, or of stdin for "-".
common::Result<std::string> readInput(const std::string& file) {
  std::stringstream text;
  if (file == "-") {
    text << std::cin.rdbuf();
    return text.str();
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) return common::notFoundError("cannot read " + file);
  text << in.rdbuf();
  return text.str();
}

/// How `hetbench logs --server` reaches the server: over HTTPS with the kubeconfig user's
/// credentials (none when there is no kubeconfig and none was named).
common::Result<cli::ServerAccess> serverAccess(const std::string& server,
                                               const cli::ClusterFlags& cluster,
                                               const std::string& caFile, bool insecure) {
  cli::ServerAccess access;
  access.url = server;
  access.insecureSkipTlsVerify = insecure;
  if (!caFile.empty()) {
    std::ifstream in(caFile, std::ios::binary);
    access.caPem.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (access.caPem.empty())
      return common::invalidError("--certificate-authority " + caFile + ": missing or empty");
  }
  if (server.rfind("https://", 0) != 0) return access;
  const cli::KubeEnvironment env = cli::KubeEnvironment::current();
  if (!cli::hasKubeconfig(cluster, env)) return access;
  HETBENCH_ASSIGN_OR_RETURN(kube::RestConfig config, cli::clusterConfig(cluster, env));
  static common::SystemClock clock;
  access.credentials = kube::makeCredentialProvider(config, clock);
  return access;
}

/// The flags of `hetbench logs`.
struct LogsFlags {
  cli::ClusterFlags cluster;
  std::string server;
  std::string dir;
  std::int64_t trial = -1;
  std::int64_t repetition = -1;
  bool timestamps = false;
  std::string uid;
  std::string caFile;
  bool insecure = false;

  void addTo(common::FlagSet& flags) {
    cluster.addTo(flags, false);
    flags.addString("server", &server,
                    "The operator's log server, e.g. https://127.0.0.1:8082 (through kubectl "
                    "port-forward on a cluster); over HTTPS it is sent the kubeconfig user's "
                    "credentials, and needs them to allow get pods/log in the namespace.");
    flags.addString("certificate-authority", &caFile,
                    "The CA of the log server's certificate (default: the system's).");
    flags.addBool("insecure-skip-tls-verify", &insecure,
                  "Do not check the log server's certificate (the operator's own, self-signed, "
                  "when it has no --tls-cert-dir).");
    flags.addString("log-dir", &dir, "Read the operator's --log-dir directly instead.");
    flags.addInt("trial", &trial, "Only this trial (-1: all).", -1, 1'000'000);
    flags.addInt("repetition", &repetition, "Only this repetition (-1: all).", -1, 1'000'000);
    flags.addBool("timestamps", &timestamps, "Keep the kubelet's timestamp on each line.");
    flags.addString("uid", &uid,
                    "Which run of that name (its metadata.uid), when the name was deleted and "
                    "applied again (default: the one that exists).");
  }
};

int logs(int argc, char** argv) {
  common::FlagSet flags(commandLine("logs RUN"),
                        "Prints the container logs the operator kept for a BenchmarkRun, from "
                        "its log server or its log directory.");
  LogsFlags f;
  f.addTo(flags);
  std::vector<std::string> args;
  if (auto code = parseCommand("logs", flags, argc, argv, args)) return *code;
  if (args.size() != 1 || f.server.empty() == f.dir.empty()) {
    return fail("logs",
                common::invalidError("want one RUN and exactly one of --server and --log-dir"), 2);
  }
  common::Result<std::string> ns =
      cli::resolveNamespace(f.cluster, cli::KubeEnvironment::current());
  if (!ns.isOk()) return fail("logs", ns.status(), 2);
  std::unique_ptr<cli::LogSource> source;
  if (!f.dir.empty()) {
    source = cli::directorySource(f.dir);
  } else {
    auto access = serverAccess(f.server, f.cluster, f.caFile, f.insecure);
    if (!access.isOk()) return fail("logs", access.status(), 2);
    auto made = cli::serverSource(std::move(access).value());
    if (!made.isOk()) return fail("logs", made.status(), 2);
    source = std::move(made).value();
  }
  cli::LogSelection selection;
  if (f.trial >= 0) selection.trial = f.trial;
  if (f.repetition >= 0) selection.repetition = f.repetition;
  selection.timestamps = f.timestamps;
  selection.uid = f.uid;
  const common::Status printed =
      cli::printLogs(*source, ns.value(), args.front(), selection, std::cout);
  if (!printed.isOk()) return fail("logs", printed, 1);
  return 0;
}

/// Where BenchmarkRuns are read from: the cluster of a kubeconfig, or a file of
/// `kubectl get br -o json` output ("-" for standard input).
struct RunSource {
  cli::ClusterFlags cluster;
  std::string file;

  void addTo(common::FlagSet& flags) {
    cluster.addTo(flags, true);
    flags.addString("file", &file,
                    "Read `kubectl get br -o json` output from this file (- for stdin) instead of "
                    "the cluster.");
  }

  /// The runs named in `names` (all runs when empty).
  common::Result<std::vector<nlohmann::json>> read(
      const std::vector<std::string>& names, const kube::RestClientOptions& options = {}) const {
    HETBENCH_ASSIGN_OR_RETURN(Objects objects, load(names, false, options));
    return std::move(objects.runs);
  }

  /// What `hetbench report --format html` draws.
  struct Objects {
    std::vector<nlohmann::json> runs;
    std::vector<nlohmann::json> series;
  };

  /// The runs named in `names` (all when empty) and, with `series`, the BenchmarkSeries beside
  /// them (those with a point of a named run, when names are given). Reading a file, it may hold
  /// series without runs; reading a cluster without the BenchmarkSeries CRD, there are none.
  common::Result<Objects> load(const std::vector<std::string>& names, bool series,
                               const kube::RestClientOptions& options = {}) const {
    Objects objects;
    std::string ns;
    if (!file.empty()) {
      HETBENCH_ASSIGN_OR_RETURN(std::string text, readInput(file));
      if (series) {
        HETBENCH_ASSIGN_OR_RETURN(objects.runs, cli::objectsFromJson(text, "BenchmarkRun"));
        HETBENCH_ASSIGN_OR_RETURN(objects.series, cli::objectsFromJson(text, "BenchmarkSeries"));
        if (objects.runs.empty() && objects.series.empty())
          return common::invalidError("the input holds no BenchmarkRun or BenchmarkSeries");
      } else {
        HETBENCH_ASSIGN_OR_RETURN(objects.runs, cli::runsFromJson(text));
      }
      ns = cluster.ns;
    } else {
      HETBENCH_ASSIGN_OR_RETURN(kube::RestConfig config,
                                cli::clusterConfig(cluster, cli::KubeEnvironment::current()));
      ns = cli::chooseNamespace(cluster.ns, config.namespace_);
      static common::SystemClock clock;
      HETBENCH_ASSIGN_OR_RETURN(std::unique_ptr<kube::KubeClient> client,
                                kube::makeRestClient(config, options, clock));
      auto resource = [](std::string_view plural) {
        return kube::GroupVersionResource{std::string(benchmark::kGroup),
                                          std::string(benchmark::kVersion), std::string(plural),
                                          true};
      };
      const std::string listed = cluster.allNamespaces ? "" : ns;
      HETBENCH_ASSIGN_OR_RETURN(kube::ListResult runs,
                                client->list(resource(benchmark::kPlural), listed, {}));
      objects.runs = std::move(runs.items);
      if (series) {
        common::Result<kube::ListResult> found =
            client->list(resource(benchmark::kSeriesPlural), listed, {});
        if (found.isOk()) {
          objects.series = std::move(found).value().items;
        } else if (!found.status().isNotFound()) {
          return found.status();
        }
      }
    }
    // A file's runs are of any namespace unless -n names one.
    const bool anyNamespace = cluster.allNamespaces || ns.empty();
    if (names.empty()) return objects;
    std::vector<nlohmann::json> picked;
    for (const std::string& name : names) {
      auto it =
          std::find_if(objects.runs.begin(), objects.runs.end(), [&](const nlohmann::json& r) {
            return r["metadata"].value("name", "") == name &&
                   (anyNamespace || r["metadata"].value("namespace", "") == ns);
          });
      if (it == objects.runs.end()) return common::notFoundError("no BenchmarkRun " + name);
      picked.push_back(*it);
    }
    objects.runs = std::move(picked);
    std::erase_if(objects.series, [&](const nlohmann::json& s) {
      const nlohmann::json points =
          s.value("status", nlohmann::json::object()).value("points", nlohmann::json::array());
      return std::none_of(points.begin(), points.end(), [&](const nlohmann::json& p) {
        return p.is_object() &&
               std::find(names.begin(), names.end(), p.value("run", "")) != names.end();
      });
    });
    return objects;
  }
};

/// The flags of `hetbench report` and `hetbench compare`.
struct ReportFlags {
  RunSource source;
  std::string format = "table";

  void addTo(common::FlagSet& flags, bool html = false) {
    source.addTo(flags);
    flags.addString("format", &format,
                    html ? "table, markdown, csv, json or html (one self-contained page with the "
                           "figures, the runs' BenchmarkSeries' histories among them, and the "
                           "table)."
                         : "table, markdown, csv or json.");
  }
};

int report(int argc, char** argv) {
  common::FlagSet flags(commandLine("report [RUN...]"),
                        "Prints the judged trials of BenchmarkRuns: hardware, accelerators, "
                        "compute and effective throughput, compute fraction, energy "
                        "efficiency and verdict.");
  ReportFlags f;
  f.addTo(flags, true);
  std::vector<std::string> args;
  if (auto code = parseCommand("report", flags, argc, argv, args)) return *code;
  if (f.format == "html") {
    const cli::PlottingLibrary library = cli::builtInPlottingLibrary();
    if (!library.complete()) {
      return fail("report",
                  common::unavailableError(
                      "--format html: built without the plotting library; run scripts/npm-tools "
                      "and rebuild"),
                  1);
    }
    common::Result<RunSource::Objects> objects = f.source.load(args, true);
    if (!objects.isOk()) return fail("report", objects.status(), 1);
    const std::vector<cli::ReportRow> rows = cli::reportRows(objects.value().runs);
    common::Result<std::string> page = cli::renderHtmlReport(rows, objects.value().series, library);
    if (!page.isOk()) return fail("report", page.status(), 1);
    std::fputs(page.value().c_str(), stdout);
    return 0;
  }
  common::Result<cli::Format> chosen = cli::parseFormat(f.format);
  if (!chosen.isOk()) return fail("report", chosen.status(), 2);
  common::Result<std::vector<nlohmann::json>> runs = f.source.read(args);
  if (!runs.isOk()) return fail("report", runs.status(), 1);
  const std::vector<cli::ReportRow> rows = cli::reportRows(runs.value());
  if (rows.empty() && chosen.value() != cli::Format::kJson) {
    return fail("report", common::notFoundError("no run has a finished trial yet"), 1);
  }
  std::fputs(cli::renderReport(rows, chosen.value()).c_str(), stdout);
  return 0;
}

int compare(int argc, char** argv) {
  common::FlagSet flags(commandLine("compare RUN_A RUN_B"),
                        "Prints, for every trial the runs share (same parameters), each metric "
                        "of both and the ratio B/A.");
  ReportFlags f;
  f.addTo(flags);
  std::vector<std::string> args;
  if (auto code = parseCommand("compare", flags, argc, argv, args)) return *code;
  if (args.size() != 2) return fail("compare", common::invalidError("want RUN_A RUN_B"), 2);
  common::Result<cli::Format> chosen = cli::parseFormat(f.format);
  if (!chosen.isOk()) return fail("compare", chosen.status(), 2);
  common::Result<std::vector<nlohmann::json>> runs = f.source.read(args);
  if (!runs.isOk()) return fail("compare", runs.status(), 1);
  common::Result<std::vector<cli::ComparisonRow>> rows =
      cli::compareRuns(runs.value()[0], runs.value()[1]);
  if (!rows.isOk()) return fail("compare", rows.status(), 1);
  std::fputs(cli::renderComparison(rows.value(), chosen.value()).c_str(), stdout);
  return 0;
}

/// validate reads no cluster: its namespace is "default" unless -n names one.
void addValidateFlags(common::FlagSet& flags, std::string& ns) {
  flags.addString("namespace", &ns, "The namespace of objects that name none.");
  flags.setShorthand("namespace", 'n');
}

int validate(int argc, char** argv) {
  common::FlagSet flags(commandLine("validate FILE..."),
                        "Checks the BenchmarkRuns and BenchmarkSchedules in YAML or JSON files "
                        "(- for stdin) offline, as the operator will check them, and prints each "
                        "one's causes. Exits 1 when one is invalid.");
  std::string ns = "default";
  addValidateFlags(flags, ns);
  std::vector<std::string> args;
  if (auto code = parseCommand("validate", flags, argc, argv, args)) return *code;
  if (args.empty()) return fail("validate", common::invalidError("want at least one FILE"), 2);
  bool allValid = true;
  for (const std::string& file : args) {
    common::Result<std::string> text = readInput(file);
    if (!text.isOk()) return fail("validate", text.status(), 2);
    common::Result<std::vector<cli::Validation>> found = cli::validateManifests(text.value(), ns);
    if (!found.isOk())
      return fail("validate", common::invalidError(file + ": " + found.status().message()), 2);
    for (const cli::Validation& v : found.value())
      if (v.checked && !v.valid) allValid = false;
    std::fputs(cli::renderValidations(file, found.value()).c_str(), stdout);
  }
  return allValid ? 0 : 1;
}

/// The flags of `hetbench detect`.
struct DetectFlags {
  std::string file;
  std::string direction = "higher";
  cli::DetectOptions options;
  double minChange = options.screening.minChange;
  std::int64_t minPoints = static_cast<std::int64_t>(options.screening.minPoints);

  void addTo(common::FlagSet& flags) {
    flags.addString("file", &file, "The series (- for stdin).");
    flags.addString("direction", &direction, "Which way is better: higher or lower.");
    flags.addDouble("min-change", &minChange,
                    "The smallest change, as a fraction, that is ever a change point or suspect.",
                    0, 1);
    flags.addInt("min-points", &minPoints,
                 "Stable points below which the last point gets no verdict (InsufficientHistory).",
                 2, 1000);
  }
};

int detect(int argc, char** argv) {
  common::FlagSet flags(
      commandLine("detect --file SERIES.csv"),
      "Prints, as JSON, what the operator's method makes of a series of trials: its change points "
      "and the screening of its last point against the points since the latest change "
      "(docs/metrics.md). The CSV has a header with the columns time and value and optionally "
      "spread (the standard deviation of a trial's repetitions), then one trial per line, "
      "oldest first.");
  DetectFlags f;
  f.addTo(flags);
  std::string& file = f.file;
  std::string& direction = f.direction;
  cli::DetectOptions& options = f.options;
  std::vector<std::string> args;
  if (auto code = parseCommand("detect", flags, argc, argv, args)) return *code;
  if (file.empty() || !args.empty()) {
    return fail("detect", common::invalidError("want --file SERIES.csv and no arguments"), 2);
  }
  if (direction != "higher" && direction != "lower") {
    return fail("detect", common::invalidError("--direction: want higher or lower"), 2);
  }
  options.direction = direction == "higher" ? hetbench::results::Direction::kHigher
                                            : hetbench::results::Direction::kLower;
  options.changePoints.minMagnitude = f.minChange;
  options.screening.minChange = f.minChange;
  options.screening.minPoints = static_cast<std::size_t>(f.minPoints);
  common::Result<std::string> text = readInput(file);
  if (!text.isOk()) return fail("detect", text.status(), 2);
  common::Result<std::vector<cli::SeriesPoint>> series = cli::parseSeriesCsv(text.value());
  if (!series.isOk()) {
    return fail("detect", common::invalidError(file + ": " + series.status().message()), 2);
  }
  std::puts(cli::detect(series.value(), options).dump(2).c_str());
  return 0;
}

/// Every command as completion sees it, from the same flag definitions the commands parse.
std::vector<cli::CommandSpec> commandSpecs() {
  const auto described = [](auto& target) {
    common::FlagSet flags("", "");
    target.addTo(flags);
    return flags.describe();
  };
  const std::vector<std::string> formats = {"table", "markdown", "csv", "json"};
  std::vector<std::string> reportFormats = formats;
  reportFormats.push_back("html");
  std::vector<cli::CommandSpec> specs;
  ReportFlags report;
  const auto reportFlags = described(report);
  specs.push_back({"report",
                   reportFlags,
                   cli::ArgumentKind::kRuns,
                   -1,
                   {{"format", reportFormats}},
                   {"kubeconfig", "file"}});
  specs.push_back({"compare",
                   reportFlags,
                   cli::ArgumentKind::kRuns,
                   2,
                   {{"format", formats}},
                   {"kubeconfig", "file"}});
  LogsFlags logs;
  specs.push_back({"logs",
                   described(logs),
                   cli::ArgumentKind::kRuns,
                   1,
                   {},
                   {"kubeconfig", "certificate-authority", "log-dir"}});
  common::FlagSet validate("", "");
  std::string ns;
  addValidateFlags(validate, ns);
  specs.push_back({"validate", validate.describe(), cli::ArgumentKind::kFiles, -1, {}, {}});
  DetectFlags detect;
  specs.push_back({"detect",
                   described(detect),
                   cli::ArgumentKind::kNone,
                   0,
                   {{"direction", {"higher", "lower"}}},
                   {"file"}});
  specs.push_back({"completion", {}, cli::ArgumentKind::kShells, 1, {}, {}});
  specs.push_back({"version", {}, cli::ArgumentKind::kNone, 0, {}, {}});
  return specs;
}

/// Run names for completion: those the command would read with the flags typed so far, asked
/// of the cluster briefly and without retries.
common::Result<std::vector<std::string>> runNames(const std::map<std::string, std::string>& typed) {
  const auto value = [&](const char* name) {
    auto it = typed.find(name);
    return it == typed.end() ? std::string() : it->second;
  };
  RunSource source;
  source.cluster.kubeconfig = value("kubeconfig");
  source.cluster.context = value("context");
  source.cluster.ns = value("namespace");
  source.cluster.allNamespaces = value("all-namespaces") == "true";
  source.file = value("file") == "-" ? "" : value("file");
  kube::RestClientOptions options;
  options.requestTimeout = std::chrono::seconds(5);
  options.maxRetries = 0;
  HETBENCH_ASSIGN_OR_RETURN(std::vector<nlohmann::json> runs, source.read({}, options));
  std::vector<std::string> names;
  for (const nlohmann::json& run : runs) {
    const auto metadata = run.find("metadata");
    if (metadata != run.end() && metadata->is_object())
      names.push_back(metadata->value("name", ""));
  }
  return names;
}

/// `hetbench __complete WORDS...` (and kubectl_complete-hetbench WORDS...): cobra's protocol.
int completeWords(int argc, char** argv) {
  const std::vector<std::string> words(argv, argv + argc);
  std::fputs(cli::formatCompletions(cli::complete(commandSpecs(), words, runNames)).c_str(),
             stdout);
  return 0;
}

int completion(const cli::Invocation& invocation, int argc, char** argv) {
  common::FlagSet flags(commandLine("completion bash|zsh"),
                        "Prints a script that completes commands, flags, their values and run "
                        "names (read from the cluster as the command would read them) in bash "
                        "(source <(hetbench completion bash)) or zsh. kubectl completes "
                        "`kubectl hetbench` through kubectl_complete-hetbench instead.");
  std::vector<std::string> args;
  if (auto code = parseCommand("completion", flags, argc, argv, args)) return *code;
  if (args.size() != 1 || (args[0] != "bash" && args[0] != "zsh")) {
    return fail("completion", common::invalidError("want bash or zsh"), 2);
  }
  const std::string script = args[0] == "bash" ? cli::bashCompletionScript(invocation.executable)
                                               : cli::zshCompletionScript(invocation.executable);
  std::fputs(script.c_str(), stdout);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const cli::Invocation invocation = cli::invocationOf(argc > 0 ? argv[0] : "hetbench");
  program = invocation.program;
  if (invocation.pluginCompletion) return completeWords(argc - 1, argv + 1);
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
    std::fputs(usage().c_str(), argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const std::string command = argv[1];
  if (command == "logs") return logs(argc - 1, argv + 1);
  if (command == "report") return report(argc - 1, argv + 1);
  if (command == "compare") return compare(argc - 1, argv + 1);
  if (command == "validate") return validate(argc - 1, argv + 1);
  if (command == "detect") return detect(argc - 1, argv + 1);
  if (command == "completion") return completion(invocation, argc - 1, argv + 1);
  if (command == "__complete") return completeWords(argc - 2, argv + 2);
  if (command == "version") {
    std::puts("hetbench " HETBENCH_VERSION);
    return 0;
  }
  std::fprintf(stderr, "%s: unknown command \"%s\"\n%s", program.c_str(), command.c_str(),
               usage().c_str());
  return 2;
}
