#include "apimachinery/label_validation.h"

#include <set>

#include "apimachinery/selectors.h"
#include "hetbench/common/go_text.h"

namespace hetbench::kubesim {

using common::goQuote;

namespace detail {
namespace {

constexpr std::size_t kQualifiedNameMaxLength = 63;
constexpr std::size_t kLabelValueMaxLength = 63;
constexpr std::size_t kDns1123SubdomainMaxLength = 253;

constexpr std::string_view kQualifiedNameFmt = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
constexpr std::string_view kQualifiedNameErrMsg =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character";
constexpr std::string_view kLabelValueFmt = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
constexpr std::string_view kLabelValueErrMsg =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character";
constexpr std::string_view kDns1123SubdomainFmt =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
constexpr std::string_view kDns1123SubdomainErrMsg =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character";

bool isAsciiAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool isLowerAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

// [A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?
bool matchesQualifiedName(std::string_view s) {
  if (s.empty() || !isAsciiAlnum(s.front()) || !isAsciiAlnum(s.back())) return false;
  for (char c : s) {
    if (!isAsciiAlnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

// Dot-separated RFC 1123 labels: [a-z0-9]([-a-z0-9]*[a-z0-9])?
bool matchesDns1123Subdomain(std::string_view s) {
  std::size_t start = 0;
  while (true) {
    std::size_t dot = s.find('.', start);
    std::string_view label = s.substr(start, dot == std::string_view::npos ? dot : dot - start);
    if (label.empty() || !isLowerAlnum(label.front()) || !isLowerAlnum(label.back())) {
      return false;
    }
    for (char c : label) {
      if (!isLowerAlnum(c) && c != '-') return false;
    }
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

// validation.RegexError, including its double space before each " or".
std::string regexError(std::string_view msg, std::string_view fmt,
                       const std::vector<std::string_view>& examples) {
  std::string out(msg);
  out += " (e.g. ";
  for (std::size_t i = 0; i < examples.size(); ++i) {
    if (i > 0) out += " or ";
    out += "'" + std::string(examples[i]) + "', ";
  }
  out += "regex used for validation is '" + std::string(fmt) + "')";
  return out;
}

std::string maxLenError(std::size_t length) {
  return "must be no more than " + std::to_string(length) + " characters";
}

std::string qualifiedNameRegexError() {
  return regexError(kQualifiedNameErrMsg, kQualifiedNameFmt, {"MyName", "my.name", "123-abc"});
}

// Length in bytes of the valid UTF-8 sequence at s[i], or 0 when it is not one.
}  // namespace

std::vector<std::string> qualifiedNameErrors(std::string_view value) {
  std::vector<std::string> errs;
  std::string_view name = value;
  std::size_t slash = value.find('/');
  if (slash != std::string_view::npos) {
    if (value.find('/', slash + 1) != std::string_view::npos) {
      errs.push_back("a qualified name " + qualifiedNameRegexError() +
                     " with an optional DNS subdomain prefix and '/' (e.g. "
                     "'example.com/MyName')");
      return errs;
    }
    std::string_view prefix = value.substr(0, slash);
    name = value.substr(slash + 1);
    if (prefix.empty()) {
      errs.push_back("prefix part must be non-empty");
    } else {
      if (prefix.size() > kDns1123SubdomainMaxLength) {
        errs.push_back("prefix part " + maxLenError(kDns1123SubdomainMaxLength));
      }
      if (!matchesDns1123Subdomain(prefix)) {
        errs.push_back("prefix part " +
                       regexError(kDns1123SubdomainErrMsg, kDns1123SubdomainFmt, {"example.com"}));
      }
    }
  }
  if (name.empty()) {
    errs.push_back("name part must be non-empty");
  } else if (name.size() > kQualifiedNameMaxLength) {
    errs.push_back("name part " + maxLenError(kQualifiedNameMaxLength));
  }
  if (!matchesQualifiedName(name)) errs.push_back("name part " + qualifiedNameRegexError());
  return errs;
}

std::vector<std::string> labelValueErrors(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > kLabelValueMaxLength) errs.push_back(maxLenError(kLabelValueMaxLength));
  if (!value.empty() && !matchesQualifiedName(value)) {
    errs.push_back(regexError(kLabelValueErrMsg, kLabelValueFmt, {"MyValue", "my_value", "12345"}));
  }
  return errs;
}

std::string invalidValueError(std::string_view path, std::string_view value,
                              std::string_view detail) {
  return std::string(path) + ": Invalid value: " + goQuote(value) + ": " + std::string(detail);
}

std::string aggregateError(const std::vector<std::string>& messages) {
  if (messages.size() == 1) return messages.front();
  std::set<std::string> seen;
  std::string joined;
  for (const auto& m : messages) {
    if (!seen.insert(m).second) continue;
    if (seen.size() > 1) joined += ", ";
    joined += m;
  }
  return seen.size() == 1 ? joined : "[" + joined + "]";
}

}  // namespace detail

std::vector<std::string> validateLabel(std::string_view key, std::string_view value) {
  std::vector<std::string> out;
  for (const auto& msg : detail::qualifiedNameErrors(key)) {
    out.push_back("Invalid value: " + goQuote(key) + ": " + msg);
  }
  for (const auto& msg : detail::labelValueErrors(value)) {
    out.push_back("Invalid value: " + goQuote(value) + ": " + msg);
  }
  return out;
}

}  // namespace hetbench::kubesim
