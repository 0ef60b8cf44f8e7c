#include "hetbench/cli/completion.h"

#include <algorithm>
#include <cctype>

namespace hetbench::cli {
namespace {

constexpr std::string_view kPluginPrefix = "kubectl-";
constexpr std::string_view kPluginCompletionPrefix = "kubectl_complete-";

bool startsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

const common::FlagSet::Info* flagNamed(const CommandSpec& command, std::string_view name) {
  for (const auto& flag : command.flags)
    if (flag.name == name) return &flag;
  return nullptr;
}

const common::FlagSet::Info* flagWithShorthand(const CommandSpec& command, char letter) {
  for (const auto& flag : command.flags)
    if (flag.shorthand == letter) return &flag;
  return nullptr;
}

void addMatching(const std::vector<std::string>& from, std::string_view prefix,
                 std::string_view stem, std::vector<std::string>& to) {
  for (const std::string& item : from)
    if (startsWith(item, prefix)) to.push_back(std::string(stem) + item);
}

/// The candidates for a value of `flag` starting with `prefix`, each after `stem`.
Completions flagValue(const CommandSpec& command, const common::FlagSet::Info& flag,
                      std::string_view prefix, std::string_view stem) {
  Completions out;
  if (auto values = command.flagValues.find(flag.name); values != command.flagValues.end()) {
    addMatching(values->second, prefix, stem, out.candidates);
  } else if (std::find(command.fileFlags.begin(), command.fileFlags.end(), flag.name) !=
             command.fileFlags.end()) {
    out.directive = kCompleteFiles;
  }
  return out;
}

}  // namespace

Invocation invocationOf(std::string_view argv0) {
  const std::size_t slash = argv0.rfind('/');
  Invocation invocation;
  invocation.executable =
      std::string(slash == std::string_view::npos ? argv0 : argv0.substr(slash + 1));
  std::string_view name = invocation.executable;
  if (startsWith(name, kPluginCompletionPrefix)) {
    invocation.pluginCompletion = true;
    name.remove_prefix(kPluginCompletionPrefix.size());
    invocation.program = "kubectl " + std::string(name);
  } else if (startsWith(name, kPluginPrefix)) {
    name.remove_prefix(kPluginPrefix.size());
    invocation.program = "kubectl " + std::string(name);
  } else {
    invocation.program = name.empty() ? "hetbench" : std::string(name);
  }
  return invocation;
}

Completions complete(const std::vector<CommandSpec>& commands,
                     const std::vector<std::string>& words, const RunLister& runs) {
  const std::string current = words.empty() ? "" : words.back();
  Completions out;
  if (words.size() <= 1) {
    for (const CommandSpec& command : commands)
      if (startsWith(command.name, current)) out.candidates.push_back(command.name);
    return out;
  }
  const auto command = std::find_if(commands.begin(), commands.end(),
                                    [&](const CommandSpec& c) { return c.name == words.front(); });
  if (command == commands.end()) return out;

  // The words already typed: flags with their values, and how many arguments.
  std::map<std::string, std::string> typed;
  const common::FlagSet::Info* wantsValue = nullptr;  // the flag the current word is a value of
  bool flagsEnded = false;
  int arguments = 0;
  for (std::size_t i = 1; i + 1 < words.size(); ++i) {
    const std::string& word = words[i];
    if (wantsValue != nullptr) {
      typed[wantsValue->name] = word;
      wantsValue = nullptr;
    } else if (flagsEnded || word == "-" || !startsWith(word, "-")) {
      ++arguments;
    } else if (word == "--") {
      flagsEnded = true;
    } else if (startsWith(word, "--")) {
      const std::size_t eq = word.find('=');
      const common::FlagSet::Info* flag = flagNamed(*command, word.substr(2, eq - 2));
      if (flag == nullptr) continue;
      if (eq != std::string::npos) {
        typed[flag->name] = word.substr(eq + 1);
      } else if (flag->takesValue) {
        wantsValue = flag;
      } else {
        typed[flag->name] = "true";
      }
    } else {
      for (std::size_t k = 1; k < word.size(); ++k) {
        const common::FlagSet::Info* flag = flagWithShorthand(*command, word[k]);
        if (flag == nullptr) break;
        if (!flag->takesValue) {
          typed[flag->name] = "true";
          continue;
        }
        std::string rest = word.substr(k + 1);
        if (!rest.empty() && rest.front() == '=') rest.erase(0, 1);
        if (rest.empty() && k + 1 == word.size()) {
          wantsValue = flag;
        } else {
          typed[flag->name] = rest;
        }
        break;
      }
    }
  }

  if (wantsValue != nullptr) return flagValue(*command, *wantsValue, current, "");
  if (!flagsEnded && startsWith(current, "--") && current.find('=') != std::string::npos) {
    const std::size_t eq = current.find('=');
    const common::FlagSet::Info* flag = flagNamed(*command, current.substr(2, eq - 2));
    if (flag == nullptr || !flag->takesValue) return out;
    return flagValue(*command, *flag, current.substr(eq + 1), current.substr(0, eq + 1));
  }
  if (!flagsEnded && startsWith(current, "-")) {
    for (const auto& flag : command->flags) {
      const std::string spelled = "--" + flag.name;
      if (startsWith(spelled, current)) out.candidates.push_back(spelled);
    }
    if (startsWith("--help", current)) out.candidates.push_back("--help");
    return out;
  }
  if (command->maxArguments >= 0 && arguments >= command->maxArguments) return out;
  switch (command->arguments) {
    case ArgumentKind::kNone:
      break;
    case ArgumentKind::kFiles:
      out.directive = kCompleteFiles;
      break;
    case ArgumentKind::kShells:
      addMatching({"bash", "zsh"}, current, "", out.candidates);
      break;
    case ArgumentKind::kRuns: {
      common::Result<std::vector<std::string>> names = runs(typed);
      if (!names.isOk()) {
        out.directive = kCompleteError;
        break;
      }
      std::vector<std::string> sorted = names.value();
      std::sort(sorted.begin(), sorted.end());
      sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
      addMatching(sorted, current, "", out.candidates);
      break;
    }
  }
  return out;
}

std::string formatCompletions(const Completions& completions) {
  std::string out;
  for (const std::string& candidate : completions.candidates) out += candidate + "\n";
  return out + ":" + std::to_string(completions.directive) + "\n";
}

namespace {

/// A shell function name for an executable: "_" and its name with every character that is not
/// alphanumeric as "_".
std::string functionName(std::string_view executable) {
  std::string name = "_";
  for (char c : executable) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return name;
}

std::string replaceAll(std::string text, std::string_view from, std::string_view to) {
  for (std::size_t at = text.find(from); at != std::string::npos;
       at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

// The scripts ask the program itself (`PROGRAM __complete WORDS...`) and read its answer as
// formatCompletions writes it: the candidates, then ":directive" (bit 1 error, 2 no space after
// the word, 4 no file names when there is no candidate).
constexpr std::string_view kBashScript =
    R"(# bash completion for @PROGRAM@, from `@PROGRAM@ completion bash`:
#   source <(@PROGRAM@ completion bash)
@FUNCTION@() {
    local cur=${COMP_WORDS[COMP_CWORD]} out directive line
    COMPREPLY=()
    out=$("${COMP_WORDS[0]}" __complete "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null) || return 0
    directive=${out##*:}
    [[ $directive =~ ^[0-9]+$ ]] || directive=0
    (( directive & 1 )) && return 0
    while IFS= read -r line; do
        [[ -z $line || $line == :* ]] || COMPREPLY+=("$line")
    done <<< "$out"
    if (( ${#COMPREPLY[@]} == 0 && (directive & 4) == 0 )); then
        while IFS= read -r line; do
            [[ -n $line ]] && COMPREPLY+=("$line")
        done < <(compgen -f -- "$cur")
        compopt -o filenames 2>/dev/null
    fi
    if (( directive & 2 )); then compopt -o nospace 2>/dev/null; fi
    return 0
}
complete -F @FUNCTION@ @PROGRAM@
)";

constexpr std::string_view kZshScript = R"(#compdef @PROGRAM@
# zsh completion for @PROGRAM@, from `@PROGRAM@ completion zsh`: put it in a directory of $fpath
# as _@PROGRAM@, or `source <(@PROGRAM@ completion zsh)` after compinit.
@FUNCTION@() {
    local out directive
    local -a lines candidates
    out=$("${words[1]}" __complete "${(@)words[2,CURRENT]}" 2>/dev/null) || return 1
    lines=("${(@f)out}")
    directive=${lines[-1]#:}
    candidates=("${(@)lines[1,-2]}")
    [[ $directive == <-> ]] || directive=0
    (( directive & 1 )) && return 1
    if (( ${#candidates} == 0 )); then
        (( directive & 4 )) && return 1
        _files
        return
    fi
    if (( directive & 2 )); then
        compadd -S '' -- "${candidates[@]}"
    else
        compadd -- "${candidates[@]}"
    fi
}
if [[ ${zsh_eval_context[-1]} == loadautofunc ]]; then
    @FUNCTION@ "$@"
else
    compdef @FUNCTION@ @PROGRAM@
fi
)";

std::string script(std::string_view text, std::string_view executable) {
  return replaceAll(replaceAll(std::string(text), "@FUNCTION@", functionName(executable)),
                    "@PROGRAM@", executable);
}

}  // namespace

std::string bashCompletionScript(std::string_view executable) {
  return script(kBashScript, executable);
}

std::string zshCompletionScript(std::string_view executable) {
  return script(kZshScript, executable);
}

}  // namespace hetbench::cli
