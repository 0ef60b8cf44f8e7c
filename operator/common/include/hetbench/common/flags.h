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
/// Every parse error is Invalid with a message naming the flag.
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
    bool seen = false;
  };

  void add(Flag flag);
  Flag* find(std::string_view name);

  std::string program_;
  std::string summary_;
  std::vector<Flag> flags_;
  bool helpRequested_ = false;
};

}  // namespace hetbench::common
