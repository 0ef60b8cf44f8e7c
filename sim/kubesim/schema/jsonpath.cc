// The JSONPath subset of printer columns, evaluated with client-go's jsonpath semantics as the
// API server configures it (missing keys allowed: they select nothing).

#include "schema/jsonpath.h"

#include <cctype>
#include <cstdlib>

namespace hetbench::kubesim {
namespace {

using Json = nlohmann::json;

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  bool atEnd() const { return pos_ >= text_.size(); }
  char peek() const { return atEnd() ? '\0' : text_[pos_]; }
  bool consume(char c) {
    if (peek() != c) return false;
    ++pos_;
    return true;
  }
  void skipSpaces() {
    while (!atEnd() && std::isspace(static_cast<unsigned char>(peek()))) ++pos_;
  }
  std::size_t pos() const { return pos_; }

  // A dotted field name: everything up to the next '.', '[', space or operator.
  std::string name() {
    std::string out;
    while (!atEnd()) {
      const char c = peek();
      if (c == '.' || c == '[' || c == ']' || c == '=' || c == '!' || c == ')' ||
          std::isspace(static_cast<unsigned char>(c))) {
        break;
      }
      if (c == '\\' && pos_ + 1 < text_.size()) ++pos_;
      out += text_[pos_++];
    }
    return out;
  }

  bool quoted(std::string* out) {
    const char quote = peek();
    if (quote != '\'' && quote != '"') return false;
    ++pos_;
    while (!atEnd() && peek() != quote) {
      if (peek() == '\\' && pos_ + 1 < text_.size()) ++pos_;
      *out += text_[pos_++];
    }
    return consume(quote);
  }

  std::string until(char stop) {
    std::string out;
    while (!atEnd() && peek() != stop) out += text_[pos_++];
    return out;
  }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
};

common::Status parseError(std::string_view expression, const std::string& reason) {
  return common::invalidError("invalid JSONPath expression \"" + std::string(expression) +
                              "\": " + reason);
}

// The literal of a filter: a quoted string, true/false, or a number (int unless it has a '.').
bool parseLiteral(const std::string& text, Json* out) {
  if (text.size() >= 2 && (text.front() == '"' || text.front() == '\'') &&
      text.back() == text.front()) {
    *out = text.substr(1, text.size() - 2);
    return true;
  }
  if (text == "true" || text == "false") {
    *out = text == "true";
    return true;
  }
  if (text.empty()) return false;
  char* end = nullptr;
  if (text.find_first_of(".eE") == std::string::npos) {
    const long long v = std::strtoll(text.c_str(), &end, 10);
    if (*end != '\0') return false;
    *out = v;
    return true;
  }
  const double v = std::strtod(text.c_str(), &end);
  if (*end != '\0') return false;
  *out = v;
  return true;
}

// client-go compares only values of the same basic kind; others are an evaluation error.
enum class Kind { kString, kBool, kInt, kFloat, kOther };
Kind kindOf(const Json& v) {
  if (v.is_string()) return Kind::kString;
  if (v.is_boolean()) return Kind::kBool;
  if (v.is_number_float()) return Kind::kFloat;
  if (v.is_number()) return Kind::kInt;
  return Kind::kOther;
}

}  // namespace

common::Result<JsonPath> JsonPath::parse(std::string_view expression) {
  std::string_view body = expression;
  if (body.size() >= 2 && body.front() == '{' && body.back() == '}') {
    body = body.substr(1, body.size() - 2);
  }
  if (body.empty()) return parseError(expression, "empty expression");
  Parser p(body);
  JsonPath path;
  p.consume('$');
  while (!p.atEnd()) {
    Step step;
    if (p.consume('.')) {
      if (p.peek() == '.') return parseError(expression, "recursive descent is not supported");
      if (p.atEnd()) break;
      if (p.consume('*')) {
        step.kind = Step::Kind::kWildcard;
      } else {
        step.kind = Step::Kind::kField;
        step.field = p.name();
        if (step.field.empty()) return parseError(expression, "missing field name");
      }
    } else if (p.consume('[')) {
      if (p.consume('*')) {
        step.kind = Step::Kind::kWildcard;
      } else if (p.peek() == '\'' || p.peek() == '"') {
        step.kind = Step::Kind::kField;
        if (!p.quoted(&step.field)) return parseError(expression, "unterminated quoted field");
      } else if (p.consume('?')) {
        step.kind = Step::Kind::kFilter;
        if (!p.consume('(') || !p.consume('@')) {
          return parseError(expression, "a filter must look like [?(@.field==value)]");
        }
        while (p.consume('.')) {
          std::string field = p.name();
          if (field.empty()) return parseError(expression, "missing field name in filter");
          step.filterPath.push_back(field);
        }
        p.skipSpaces();
        if (p.consume('=')) {
          if (!p.consume('=')) return parseError(expression, "unsupported filter operator");
          step.filterEquals = true;
        } else if (p.consume('!')) {
          if (!p.consume('=')) return parseError(expression, "unsupported filter operator");
          step.filterEquals = false;
        } else {
          return parseError(expression, "unsupported filter operator");
        }
        p.skipSpaces();
        std::string literal = p.until(')');
        while (!literal.empty() && std::isspace(static_cast<unsigned char>(literal.back()))) {
          literal.pop_back();
        }
        if (!p.consume(')') || !parseLiteral(literal, &step.filterValue)) {
          return parseError(expression, "invalid filter value");
        }
      } else {
        const std::string number = p.until(']');
        char* end = nullptr;
        step.kind = Step::Kind::kIndex;
        step.index = std::strtoll(number.c_str(), &end, 10);
        if (number.empty() || *end != '\0') {
          return parseError(expression, "unsupported subscript \"" + number + "\"");
        }
      }
      if (!p.consume(']')) return parseError(expression, "missing ]");
    } else {
      return parseError(expression, "unexpected character at position " + std::to_string(p.pos()));
    }
    path.steps_.push_back(std::move(step));
  }
  return path;
}

std::vector<nlohmann::json> JsonPath::evaluate(const nlohmann::json& object) const {
  std::vector<const Json*> current = {&object};
  for (const Step& step : steps_) {
    std::vector<const Json*> next;
    for (const Json* value : current) {
      switch (step.kind) {
        case Step::Kind::kField:
          if (value->is_object()) {
            auto it = value->find(step.field);
            if (it != value->end()) next.push_back(&*it);
          }
          break;
        case Step::Kind::kIndex: {
          if (!value->is_array()) break;
          const auto size = static_cast<long long>(value->size());
          const long long i = step.index < 0 ? size + step.index : step.index;
          if (i < 0 || i >= size) return {};
          next.push_back(&(*value)[static_cast<std::size_t>(i)]);
          break;
        }
        case Step::Kind::kWildcard:
          if (value->is_array() || value->is_object()) {
            for (const auto& item : *value) next.push_back(&item);
          }
          break;
        case Step::Kind::kFilter: {
          if (!value->is_array()) break;
          for (const auto& item : *value) {
            const Json* left = &item;
            for (const auto& field : step.filterPath) {
              if (!left->is_object() || !left->contains(field)) {
                left = nullptr;
                break;
              }
              left = &(*left)[field];
            }
            if (left == nullptr) continue;
            if (kindOf(*left) != kindOf(step.filterValue) || kindOf(*left) == Kind::kOther) {
              return {};
            }
            if ((*left == step.filterValue) == step.filterEquals) next.push_back(&item);
          }
          break;
        }
      }
    }
    current = std::move(next);
  }
  std::vector<nlohmann::json> results;
  results.reserve(current.size());
  for (const Json* value : current) results.push_back(*value);
  return results;
}

}  // namespace hetbench::kubesim
