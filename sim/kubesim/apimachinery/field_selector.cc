// Field selectors as k8s.io/apimachinery/pkg/fields parses them: comma-separated terms, each split
// at the first "!=", "==" or "=", with backslash escapes in the value.

#include <algorithm>
#include <string>
#include <utility>

#include "apimachinery/selectors.h"

namespace hetbench::kubesim {
namespace {

using common::invalidError;

// Splits at commas that are not escaped; the escapes stay in the terms.
std::vector<std::string> splitTerms(std::string_view selector) {
  std::vector<std::string> terms;
  if (selector.empty()) return terms;
  std::size_t start = 0;
  bool inSlash = false;
  for (std::size_t i = 0; i < selector.size(); ++i) {
    char c = selector[i];
    if (inSlash) {
      inSlash = false;
    } else if (c == '\\') {
      inSlash = true;
    } else if (c == ',') {
      terms.emplace_back(selector.substr(start, i - start));
      start = i + 1;
    }
  }
  terms.emplace_back(selector.substr(start));
  return terms;
}

struct Term {
  std::string lhs;
  std::string op;
  std::string rhs;
};

// The first position where any operator starts wins; "!=" and "==" before "=" at that position.
bool splitTerm(const std::string& term, Term& out) {
  static constexpr std::string_view kOperators[] = {"!=", "==", "="};
  for (std::size_t i = 0; i < term.size(); ++i) {
    for (std::string_view op : kOperators) {
      if (std::string_view(term).substr(i, op.size()) == op) {
        out = {term.substr(0, i), std::string(op), term.substr(i + op.size())};
        return true;
      }
    }
  }
  return false;
}

// The UTF-8 sequence starting at s[i] (one byte when it is not valid UTF-8).
std::size_t runeLength(std::string_view s, std::size_t i) {
  auto byte = static_cast<unsigned char>(s[i]);
  std::size_t length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1;
  return std::min(length, s.size() - i);
}

common::Result<std::string> unescapeValue(std::string_view s) {
  std::string out;
  bool inSlash = false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (inSlash) {
      if (c != '\\' && c != ',' && c != '=') {
        return invalidError("invalid field selector: invalid escape sequence: \\" +
                            std::string(s.substr(i, runeLength(s, i))));
      }
      out += c;
      inSlash = false;
    } else if (c == '\\') {
      inSlash = true;
    } else if (c == ',' || c == '=') {
      // Go prints the rune with %v, which is its code point number.
      return invalidError("invalid field selector: unescaped character in value: " +
                          std::to_string(static_cast<int>(c)));
    } else {
      out += c;
    }
  }
  if (inSlash) return invalidError("invalid field selector: invalid escape sequence: \\");
  return out;
}

std::string fieldValue(const nlohmann::json& object, std::string_view path) {
  const nlohmann::json* node = &object;
  std::size_t start = 0;
  while (true) {
    std::size_t dot = path.find('.', start);
    std::string key(path.substr(start, dot == std::string_view::npos ? dot : dot - start));
    if (!node->is_object()) return "";
    auto it = node->find(key);
    if (it == node->end()) return "";
    node = &*it;
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  if (node->is_string()) return node->get<std::string>();
  if (node->is_null()) return "";
  return node->dump();
}

}  // namespace

common::Result<FieldSelector> FieldSelector::parse(std::string_view text) {
  auto parts = splitTerms(text);
  std::sort(parts.begin(), parts.end());
  FieldSelector selector;
  for (const auto& part : parts) {
    if (part.empty()) continue;
    Term term;
    if (!splitTerm(part, term)) {
      return invalidError("invalid selector: '" + std::string(text) + "'; can't understand '" +
                          part + "'");
    }
    auto value = unescapeValue(term.rhs);
    if (!value.isOk()) return value.status();
    // The API server's identity transform drops a term with neither field nor value ("=").
    if (term.lhs.empty() && value->empty()) continue;
    selector.requirements_.push_back({term.lhs, term.op != "!=", std::move(value).value()});
  }
  return selector;
}

bool FieldSelector::matches(const nlohmann::json& object) const {
  return std::all_of(requirements_.begin(), requirements_.end(), [&](const Requirement& r) {
    return (fieldValue(object, r.field) == r.value) == r.equals;
  });
}

}  // namespace hetbench::kubesim
