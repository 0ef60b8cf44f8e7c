#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "hetbench/common/status.h"

namespace hetbench::common {

/// Command-line flags in the style of Kubernetes binaries: `--name=value` or `--name value`,
/// booleans as `--name` or `--name=false`, `--` ends the flags, `-h`/`--help` asks for usage.
/// A flag may have a one-letter shorthand, written as pflag (kubectl's flags) takes it: `-n ns`,
/// `-n=ns`, `-nns`, and booleans grouped (`-Aq`). Every parse error is Invalid with a message
/// naming the flag.
class FlagSet {
 public:
  /// Turns the flag's text into the target; returns Invalid with a reason on bad input.
  using Setter = std::function<Status(std::string_view)>;

  FlagSet(std::string program, std::string summary);
  FlagSet(const FlagSet&) = delete;
  FlagSet& operator=(const FlagSet&) = delete;

  void addString(std::string name, std::string* target, std::string help);
  void addBool(std::string name, bool* target, std::string help);
  void addInt(std::string name, std::int64_t* target, std::string help, std::int64_t min,
              std::int64_t max);
  void addDouble(std::string name, double* target, std::string help, double min, double max);
  void addDuration(std::string name, std::chrono::nanoseconds* target, std::string help);
  /// A comma-separated list; the flag may also be repeated.
  void addStringList(std::string name, std::vector<std::string>* target, std::string help);
  /// A flag with its own parser; `defaultText` is shown in the usage.
  void addCustom(std::string name, std::string valueName, std::string help, std::string defaultText,
                 Setter setter);

  /// Gives the flag `name`, already added, the shorthand `-letter` (a letter other than h).
  void setShorthand(std::string_view name, char letter);

  /// A flag as completion and usage see it.
  struct Info {
    std::string name;
    char shorthand = 0;  // 0: none
    bool takesValue = true;
    std::string help;
  };
  /// Every flag, in the order added (-h/--help not included).
  std::vector<Info> describe() const;

  /// Parses argv[1..]; returns the positional arguments.
  Result<std::vector<std::string>> parse(int argc, const char* const* argv);

  bool helpRequested() const { return helpRequested_; }
  std::string usage() const;

 private:
  struct Flag {
    std::string name;
    std::string valueName;  // empty for booleans
    std::string help;
    std::string defaultText;
    Setter setter;
    bool isBool = false;
    bool listAccumulates = false;
    char shorthand = 0;
    bool seen = false;
  };

  void add(Flag flag);
  Flag* find(std::string_view name);
  Flag* findShorthand(char letter);
  /// Sets `flag` from `value` as spelled `spelling` (for messages).
  Status set(Flag& flag, std::string_view spelling, std::string_view value);

  std::string program_;
  std::string summary_;
  std::vector<Flag> flags_;
  bool helpRequested_ = false;
};

}  // namespace hetbench::common
