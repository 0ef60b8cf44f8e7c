#include "hetbench/common/flags.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <sstream>

#include "hetbench/common/duration.h"

namespace hetbench::common {
namespace {

std::vector<std::string> splitList(std::string_view text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    std::string_view item = text.substr(start, comma - start);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (!item.empty()) out.emplace_back(item);
    start = comma + 1;
  }
  return out;
}

std::string formatDouble(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

}  // namespace

FlagSet::FlagSet(std::string program, std::string summary)
    : program_(std::move(program)), summary_(std::move(summary)) {}

void FlagSet::add(Flag flag) { flags_.push_back(std::move(flag)); }

FlagSet::Flag* FlagSet::find(std::string_view name) {
  for (Flag& f : flags_) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

void FlagSet::addCustom(std::string name, std::string valueName, std::string help,
                        std::string defaultText, Setter setter) {
  add(Flag{std::move(name), std::move(valueName), std::move(help), std::move(defaultText),
           std::move(setter)});
}

void FlagSet::addString(std::string name, std::string* target, std::string help) {
  addCustom(std::move(name), "string", std::move(help), *target, [target](std::string_view v) {
    *target = std::string(v);
    return okStatus();
  });
}

void FlagSet::addBool(std::string name, bool* target, std::string help) {
  Flag flag{std::move(name), "", std::move(help), *target ? "true" : "false",
            [target](std::string_view v) {
              if (v == "true" || v == "1") {
                *target = true;
              } else if (v == "false" || v == "0") {
                *target = false;
              } else {
                return invalidError("expected true or false, got \"" + std::string(v) + "\"");
              }
              return okStatus();
            }};
  flag.isBool = true;
  add(std::move(flag));
}

void FlagSet::addInt(std::string name, std::int64_t* target, std::string help, std::int64_t min,
                     std::int64_t max) {
  addCustom(std::move(name), "int", std::move(help), std::to_string(*target),
            [target, min, max](std::string_view v) {
              std::int64_t parsed = 0;
              const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), parsed);
              if (ec != std::errc() || end != v.data() + v.size()) {
                return invalidError("expected an integer, got \"" + std::string(v) + "\"");
              }
              if (parsed < min || parsed > max) {
                return invalidError("must be between " + std::to_string(min) + " and " +
                                    std::to_string(max) + ", got " + std::to_string(parsed));
              }
              *target = parsed;
              return okStatus();
            });
}

void FlagSet::addDouble(std::string name, double* target, std::string help, double min,
                        double max) {
  addCustom(std::move(name), "float", std::move(help), formatDouble(*target),
            [target, min, max](std::string_view v) {
              double parsed = 0;
              const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), parsed);
              if (ec != std::errc() || end != v.data() + v.size() || !std::isfinite(parsed)) {
                return invalidError("expected a number, got \"" + std::string(v) + "\"");
              }
              if (parsed < min || parsed > max) {
                return invalidError("must be between " + formatDouble(min) + " and " +
                                    formatDouble(max) + ", got " + std::string(v));
              }
              *target = parsed;
              return okStatus();
            });
}

void FlagSet::addDuration(std::string name, std::chrono::nanoseconds* target, std::string help) {
  addCustom(std::move(name), "duration", std::move(help), formatDuration(*target),
            [target](std::string_view v) {
              Result<std::chrono::nanoseconds> parsed = parseDuration(v);
              if (!parsed.isOk()) return parsed.status();
              *target = *parsed;
              return okStatus();
            });
}

void FlagSet::addStringList(std::string name, std::vector<std::string>* target, std::string help) {
  std::string defaultText;
  for (const std::string& item : *target) {
    if (!defaultText.empty()) defaultText += ',';
    defaultText += item;
  }
  Flag flag{std::move(name), "strings", std::move(help), std::move(defaultText), nullptr};
  flag.listAccumulates = true;
  flag.setter = [this, target, flagName = flag.name](std::string_view v) {
    // The first occurrence replaces the default; repeats append.
    if (!find(flagName)->seen) target->clear();
    for (std::string& item : splitList(v)) target->push_back(std::move(item));
    return okStatus();
  };
  add(std::move(flag));
}

FlagSet::Flag* FlagSet::findShorthand(char letter) {
  for (Flag& f : flags_) {
    if (f.shorthand == letter) return &f;
  }
  return nullptr;
}

void FlagSet::setShorthand(std::string_view name, char letter) {
  Flag* flag = find(name);
  if (flag != nullptr) flag->shorthand = letter;
}

std::vector<FlagSet::Info> FlagSet::describe() const {
  std::vector<Info> out;
  for (const Flag& f : flags_) out.push_back(Info{f.name, f.shorthand, !f.isBool, f.help});
  return out;
}

Status FlagSet::set(Flag& flag, std::string_view spelling, std::string_view value) {
  if (flag.seen && !flag.listAccumulates) {
    return invalidError("flag " + std::string(spelling) + " given more than once");
  }
  Status status = flag.setter(value);
  if (!status.isOk()) {
    return invalidError("invalid value for " + std::string(spelling) + ": " + status.message());
  }
  flag.seen = true;
  return okStatus();
}

Result<std::vector<std::string>> FlagSet::parse(int argc, const char* const* argv) {
  std::vector<std::string> positional;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--") {
      for (++i; i < argc; ++i) positional.emplace_back(argv[i]);
      break;
    }
    if (arg == "-h" || arg == "--help" || arg == "-help") {
      helpRequested_ = true;
      continue;
    }
    // A lone "-" is an argument: stdin, by the usual convention.
    if (arg.size() < 2 || arg.front() != '-') {
      positional.emplace_back(arg);
      continue;
    }
    if (arg[1] != '-') {
      // Shorthands: booleans may be grouped; a flag with a value takes the rest of the word
      // (after an optional '=') or else the next argument.
      for (std::size_t k = 1; k < arg.size(); ++k) {
        const std::string spelling = std::string("-") + arg[k];
        Flag* flag = findShorthand(arg[k]);
        if (flag == nullptr) {
          return invalidError("unknown flag " + spelling +
                              (arg.size() > 2 ? " in " + std::string(arg) : std::string()) +
                              " (flags are written --name)");
        }
        std::string_view rest = arg.substr(k + 1);
        if (flag->isBool && (rest.empty() || rest.front() != '=')) {
          HETBENCH_RETURN_IF_ERROR(set(*flag, spelling, "true"));
          continue;
        }
        if (!rest.empty() && rest.front() == '=') rest.remove_prefix(1);
        if (rest.empty() && k + 1 == arg.size()) {
          if (i + 1 >= argc) return invalidError("flag " + spelling + " needs a value");
          rest = argv[++i];
        }
        HETBENCH_RETURN_IF_ERROR(set(*flag, spelling, rest));
        break;
      }
      continue;
    }
    const std::string_view body = arg.substr(2);
    const std::size_t eq = body.find('=');
    const std::string_view name = body.substr(0, eq);
    Flag* flag = find(name);
    if (flag == nullptr) return invalidError("unknown flag --" + std::string(name));
    std::string_view value;
    if (eq != std::string_view::npos) {
      value = body.substr(eq + 1);
    } else if (flag->isBool) {
      value = "true";
    } else {
      if (i + 1 >= argc) return invalidError("flag --" + std::string(name) + " needs a value");
      value = argv[++i];
    }
    HETBENCH_RETURN_IF_ERROR(set(*flag, "--" + std::string(name), value));
  }
  return positional;
}

std::string FlagSet::usage() const {
  std::ostringstream out;
  out << "Usage: " << program_ << " [flags]\n\n" << summary_ << "\n\nFlags:\n";
  std::vector<const Flag*> sorted;
  for (const Flag& f : flags_) sorted.push_back(&f);
  std::sort(sorted.begin(), sorted.end(),
            [](const Flag* a, const Flag* b) { return a->name < b->name; });
  for (const Flag* f : sorted) {
    out << (f->shorthand != 0 ? std::string("  -") + f->shorthand + ", --" : std::string("  --"))
        << f->name;
    if (!f->valueName.empty()) out << ' ' << f->valueName;
    out << "\n      " << f->help;
    if (!f->defaultText.empty()) out << " (default " << f->defaultText << ")";
    out << '\n';
  }
  out << "  -h, --help\n      Print this help and exit.\n";
  return out.str();
}

}  // namespace hetbench::common
