#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "hetbench/common/flags.h"
#include "hetbench/common/status.h"

namespace hetbench::cli {

/// How the program was started, from the name it was invoked by (argv[0]): as `hetbench`, as
/// the kubectl plugin `kubectl-hetbench` (usage and errors then say "kubectl hetbench"), or as
/// `kubectl_complete-hetbench`, the executable kubectl (1.26 on) runs to complete a plugin's
/// arguments.
struct Invocation {
  std::string program;            // "hetbench" or "kubectl hetbench"
  std::string executable;         // the basename: "hetbench", "kubectl-hetbench", ...
  bool pluginCompletion = false;  // argv[1..] are the words to complete
};
Invocation invocationOf(std::string_view argv0);

/// cobra's ShellCompDirective bits, the last line (":N") of a completion request's answer; kubectl
/// reads them from a plugin's completion executable and passes them to its shell script.
enum CompletionDirective : int {
  kCompleteFiles =
      0,  // ShellCompDirectiveDefault: the shell completes file names when no candidate
  kCompleteError = 1,
  kCompleteNoSpace = 2,
  kCompleteNoFiles = 4,
};

/// What a command's positional arguments are, for completion.
enum class ArgumentKind { kNone, kRuns, kFiles, kShells };

/// A command as completion sees it: its flags (as FlagSet::describe gives them) and arguments.
struct CommandSpec {
  std::string name;
  std::vector<common::FlagSet::Info> flags;
  ArgumentKind arguments = ArgumentKind::kNone;
  int maxArguments = -1;                                       // -1: any number
  std::map<std::string, std::vector<std::string>> flagValues;  // flags with a fixed set of values
  std::vector<std::string> fileFlags;                          // flags whose value is a path
};

struct Completions {
  std::vector<std::string> candidates;
  int directive = kCompleteNoFiles;
};

/// The run names to offer, given the flags typed so far (by long name; a boolean as "true").
using RunLister = std::function<common::Result<std::vector<std::string>>(
    const std::map<std::string, std::string>&)>;

/// The candidates for the last of `words` (the words after the program; the last one is being
/// typed, "" for a new word): command names, a command's flags, a flag's values, or run names
/// from `runs` (an error there gives kCompleteError).
Completions complete(const std::vector<CommandSpec>& commands,
                     const std::vector<std::string>& words, const RunLister& runs);

/// cobra's answer to a completion request: one candidate per line, then ":directive".
std::string formatCompletions(const Completions& completions);

/// Shell scripts that complete `executable` by running `executable __complete WORDS...`.
std::string bashCompletionScript(std::string_view executable);
std::string zshCompletionScript(std::string_view executable);

}  // namespace hetbench::cli
