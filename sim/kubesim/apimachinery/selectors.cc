#include "apimachinery/selectors.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <map>
#include <set>
#include <utility>

#include "apimachinery/label_validation.h"
#include "hetbench/common/go_text.h"

namespace hetbench::kubesim {
namespace {

using common::goQuote;
using common::invalidError;
using common::Result;
using Op = LabelSelector::Op;
using Requirement = LabelSelector::Requirement;

// ---- Label selector lexer and parser, token for token as k8s.io/apimachinery/pkg/labels ----

enum class Token {
  kEndOfString,
  kClosedPar,
  kComma,
  kDoesNotExist,
  kDoubleEquals,
  kEquals,
  kGreaterThan,
  kIdentifier,
  kIn,
  kLessThan,
  kNotEquals,
  kNotIn,
  kOpenPar,
};

struct ScannedItem {
  Token token;
  std::string literal;
};

const std::map<std::string, Token, std::less<>>& literalTokens() {
  static const std::map<std::string, Token, std::less<>> tokens = {
      {")", Token::kClosedPar},     {",", Token::kComma},    {"!", Token::kDoesNotExist},
      {"==", Token::kDoubleEquals}, {"=", Token::kEquals},   {">", Token::kGreaterThan},
      {"in", Token::kIn},           {"<", Token::kLessThan}, {"!=", Token::kNotEquals},
      {"notin", Token::kNotIn},     {"(", Token::kOpenPar},
  };
  return tokens;
}

bool isWhitespace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

bool isSpecialSymbol(char c) {
  return c == '=' || c == '!' || c == '(' || c == ')' || c == ',' || c == '>' || c == '<';
}

// Byte-wise like the Go lexer; a NUL byte reads as the end of input there, and does here.
class Lexer {
 public:
  explicit Lexer(std::string_view s) : s_(s) {}

  ScannedItem lex() {
    char c = read();
    while (isWhitespace(c)) c = read();
    if (c == 0) return {Token::kEndOfString, ""};
    --pos_;
    return isSpecialSymbol(c) ? scanSpecialSymbol() : scanIdOrKeyword();
  }

 private:
  char read() { return pos_ < s_.size() ? s_[pos_++] : '\0'; }

  ScannedItem scanIdOrKeyword() {
    std::string buffer;
    while (true) {
      char c = read();
      if (c == 0) break;
      if (isSpecialSymbol(c) || isWhitespace(c)) {
        --pos_;
        break;
      }
      buffer += c;
    }
    auto it = literalTokens().find(buffer);
    return {it == literalTokens().end() ? Token::kIdentifier : it->second, buffer};
  }

  // Every single special symbol is a token, so the longest-match loop of the Go lexer never
  // yields its error token: it takes one symbol, or two when they form "==" or "!=".
  ScannedItem scanSpecialSymbol() {
    std::string buffer(1, read());
    if (pos_ < s_.size()) {
      auto two = literalTokens().find(buffer + s_[pos_]);
      if (two != literalTokens().end()) {
        ++pos_;
        return {two->second, two->first};
      }
    }
    return {literalTokens().find(buffer)->second, buffer};
  }

  std::string_view s_;
  std::size_t pos_ = 0;
};

enum class Context { kKeyAndOperator, kValues };

// labels.NewRequirement's checks, with the field paths it uses when given no path. The parser
// validates keys itself first (under the path "<nil>"), so key errors here come from fromJson.
Result<Requirement> newRequirement(std::string key, Op op, std::vector<std::string> values) {
  std::vector<std::string> errs;
  auto keyErrs = detail::qualifiedNameErrors(key);
  if (!keyErrs.empty()) {
    std::string joined;
    for (const auto& e : keyErrs) joined += (joined.empty() ? "" : "; ") + e;
    errs.push_back(detail::invalidValueError("key", key, joined));
  }
  auto goSlice = [&] {
    // Empty value lists only reach here from fromJson, which passes Go's nil slice.
    if (values.empty()) return std::string("[]string(nil)");
    std::string s = "[]string{";
    for (std::size_t i = 0; i < values.size(); ++i) {
      s += (i > 0 ? ", " : "") + goQuote(values[i]);
    }
    return s + "}";
  };
  switch (op) {
    case Op::kIn:
    case Op::kNotIn:
      if (values.empty()) {
        errs.push_back("values: Invalid value: " + goSlice() +
                       ": for 'in', 'notin' operators, values set can't be empty");
      }
      break;
    case Op::kEquals:
    case Op::kNotEquals:
      if (values.size() != 1) {
        errs.push_back("values: Invalid value: " + goSlice() +
                       ": exact-match compatibility requires one single value");
      }
      break;
    case Op::kExists:
    case Op::kDoesNotExist:
      if (!values.empty()) {
        errs.push_back("values: Invalid value: " + goSlice() +
                       ": values set must be empty for exists and does not exist");
      }
      break;
    case Op::kGreaterThan:
    case Op::kLessThan:
      if (values.size() != 1) {
        errs.push_back("values: Invalid value: " + goSlice() +
                       ": for 'Gt', 'Lt' operators, exactly one value is required");
      }
      for (std::size_t i = 0; i < values.size(); ++i) {
        std::int64_t parsed = 0;
        const std::string& v = values[i];
        const char* begin = v.data() + (!v.empty() && v[0] == '+' ? 1 : 0);
        auto [end, ec] = std::from_chars(begin, v.data() + v.size(), parsed);
        if (v.empty() || ec != std::errc() || end != v.data() + v.size()) {
          errs.push_back(detail::invalidValueError("values[" + std::to_string(i) + "]", v,
                                                   "for 'Gt', 'Lt' operators, the value must be "
                                                   "an integer"));
        }
      }
      break;
  }
  for (std::size_t i = 0; i < values.size(); ++i) {
    auto valueErrs = detail::labelValueErrors(values[i]);
    if (valueErrs.empty()) continue;
    std::string joined;
    for (const auto& e : valueErrs) joined += (joined.empty() ? "" : "; ") + e;
    errs.push_back(detail::invalidValueError("values[" + std::to_string(i) + "][" + key + "]",
                                             values[i], joined));
  }
  if (!errs.empty()) return invalidError(detail::aggregateError(errs));
  return Requirement{std::move(key), op, std::move(values)};
}

class Parser {
 public:
  explicit Parser(std::string_view text) {
    Lexer lexer(text);
    while (true) {
      items_.push_back(lexer.lex());
      if (items_.back().token == Token::kEndOfString) break;
    }
  }

  // Returns the requirements or the error text (without the Invalid wrapper).
  Result<std::vector<Requirement>> parse() {
    std::vector<Requirement> requirements;
    while (true) {
      auto [tok, lit] = lookahead(Context::kValues);
      switch (tok) {
        case Token::kIdentifier:
        case Token::kDoesNotExist: {
          auto r = parseRequirement();
          if (!r.isOk())
            return invalidError("unable to parse requirement: " + r.status().message());
          requirements.push_back(std::move(r).value());
          auto [t, l] = consume(Context::kValues);
          if (t == Token::kEndOfString) return requirements;
          if (t != Token::kComma) {
            return invalidError("found '" + l + "', expected: ',' or 'end of string'");
          }
          auto [t2, l2] = lookahead(Context::kValues);
          if (t2 != Token::kIdentifier && t2 != Token::kDoesNotExist) {
            return invalidError("found '" + l2 + "', expected: identifier after ','");
          }
          break;
        }
        case Token::kEndOfString:
          return requirements;
        default:
          return invalidError("found '" + lit + "', expected: !, identifier, or 'end of string'");
      }
    }
  }

 private:
  static Token inValues(Token t, Context context) {
    return context == Context::kValues && (t == Token::kIn || t == Token::kNotIn)
               ? Token::kIdentifier
               : t;
  }
  std::pair<Token, std::string> lookahead(Context context) const {
    return {inValues(items_[pos_].token, context), items_[pos_].literal};
  }
  std::pair<Token, std::string> consume(Context context) {
    ++pos_;
    return {inValues(items_[pos_ - 1].token, context), items_[pos_ - 1].literal};
  }

  Result<Requirement> parseRequirement() {
    bool doesNotExist = false;
    auto [tok, literal] = consume(Context::kValues);
    if (tok == Token::kDoesNotExist) {
      doesNotExist = true;
      std::tie(tok, literal) = consume(Context::kValues);
    }
    if (tok != Token::kIdentifier) {
      return invalidError("found '" + literal + "', expected: identifier");
    }
    auto keyErrs = detail::qualifiedNameErrors(literal);
    if (!keyErrs.empty()) {
      std::string joined;
      for (const auto& e : keyErrs) joined += (joined.empty() ? "" : "; ") + e;
      return invalidError(detail::invalidValueError("<nil>", literal, joined));
    }
    auto next = lookahead(Context::kValues).first;
    if (doesNotExist) return newRequirement(literal, Op::kDoesNotExist, {});
    if (next == Token::kEndOfString || next == Token::kComma) {
      return newRequirement(literal, Op::kExists, {});
    }
    auto [opTok, opLit] = consume(Context::kKeyAndOperator);
    Op op;
    switch (opTok) {
      case Token::kIn:
        op = Op::kIn;
        break;
      case Token::kNotIn:
        op = Op::kNotIn;
        break;
      case Token::kEquals:
      case Token::kDoubleEquals:
        op = Op::kEquals;
        break;
      case Token::kNotEquals:
        op = Op::kNotEquals;
        break;
      case Token::kGreaterThan:
        op = Op::kGreaterThan;
        break;
      case Token::kLessThan:
        op = Op::kLessThan;
        break;
      default:
        return invalidError("found '" + opLit + "', expected: in, notin, =, ==, !=, gt, lt");
    }
    std::set<std::string> values;
    auto status =
        (op == Op::kIn || op == Op::kNotIn) ? parseValues(values) : parseExactValue(values);
    if (!status.isOk()) return status;
    return newRequirement(literal, op, std::vector<std::string>(values.begin(), values.end()));
  }

  common::Status parseValues(std::set<std::string>& values) {
    auto [tok, lit] = consume(Context::kValues);
    if (tok != Token::kOpenPar) return invalidError("found '" + lit + "' expected: '('");
    std::tie(tok, lit) = lookahead(Context::kValues);
    switch (tok) {
      case Token::kIdentifier:
      case Token::kComma: {
        HETBENCH_RETURN_IF_ERROR(parseIdentifiersList(values));
        // The Go parser reports the first value's literal here, not the unexpected token.
        if (consume(Context::kValues).first != Token::kClosedPar) {
          return invalidError("found '" + lit + "', expected: ')'");
        }
        return common::okStatus();
      }
      case Token::kClosedPar:
        consume(Context::kValues);
        values.insert("");
        return common::okStatus();
      default:
        return invalidError("found '" + lit + "', expected: ',', ')' or identifier");
    }
  }

  common::Status parseIdentifiersList(std::set<std::string>& values) {
    while (true) {
      auto [tok, lit] = consume(Context::kValues);
      if (tok == Token::kIdentifier) {
        values.insert(lit);
        auto [tok2, lit2] = lookahead(Context::kValues);
        if (tok2 == Token::kComma) continue;
        if (tok2 == Token::kClosedPar) return common::okStatus();
        return invalidError("found '" + lit2 + "', expected: ',' or ')'");
      }
      if (tok != Token::kComma) {
        return invalidError("found '" + lit + "', expected: ',', or identifier");
      }
      // "(,", ",)" and ",," each stand for an empty value.
      if (values.empty()) values.insert("");
      auto tok2 = lookahead(Context::kValues).first;
      if (tok2 == Token::kClosedPar) {
        values.insert("");
        return common::okStatus();
      }
      if (tok2 == Token::kComma) {
        consume(Context::kValues);
        values.insert("");
      }
    }
  }

  common::Status parseExactValue(std::set<std::string>& values) {
    auto next = lookahead(Context::kValues).first;
    if (next == Token::kEndOfString || next == Token::kComma) {
      values.insert("");
      return common::okStatus();
    }
    auto [tok, lit] = consume(Context::kValues);
    if (tok != Token::kIdentifier) return invalidError("found '" + lit + "', expected: identifier");
    values.insert(lit);
    return common::okStatus();
  }

  std::vector<ScannedItem> items_;
  std::size_t pos_ = 0;
};

void sortByKey(std::vector<Requirement>& requirements) {
  std::stable_sort(requirements.begin(), requirements.end(),
                   [](const Requirement& a, const Requirement& b) { return a.key < b.key; });
}

// The text of a JSON value as a selector compares it: strings as they are, others printed.
std::string fieldText(const nlohmann::json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_null()) return "";
  return value.dump();
}

bool parseInt64(const std::string& text, std::int64_t& out) {
  const char* begin = text.data() + (!text.empty() && text[0] == '+' ? 1 : 0);
  auto [end, ec] = std::from_chars(begin, text.data() + text.size(), out);
  return !text.empty() && ec == std::errc() && end == text.data() + text.size();
}

bool requirementMatches(const Requirement& r, const nlohmann::json& labels) {
  const nlohmann::json* value = nullptr;
  if (labels.is_object()) {
    auto it = labels.find(r.key);
    if (it != labels.end()) value = &*it;
  }
  auto contains = [&] {
    return std::find(r.values.begin(), r.values.end(), fieldText(*value)) != r.values.end();
  };
  switch (r.op) {
    case Op::kEquals:
    case Op::kIn:
      return value != nullptr && contains();
    case Op::kNotEquals:
    case Op::kNotIn:
      return value == nullptr || !contains();
    case Op::kExists:
      return value != nullptr;
    case Op::kDoesNotExist:
      return value == nullptr;
    case Op::kGreaterThan:
    case Op::kLessThan: {
      std::int64_t have = 0;
      std::int64_t want = 0;
      if (value == nullptr || r.values.size() != 1 || !parseInt64(fieldText(*value), have) ||
          !parseInt64(r.values.front(), want)) {
        return false;
      }
      return r.op == Op::kGreaterThan ? have > want : have < want;
    }
  }
  return false;
}

}  // namespace

Result<LabelSelector> LabelSelector::parse(std::string_view text) {
  auto requirements = Parser(text).parse();
  if (!requirements.isOk()) return requirements.status();
  LabelSelector selector;
  selector.requirements_ = std::move(requirements).value();
  sortByKey(selector.requirements_);
  return selector;
}

// Mirrors metav1.LabelSelectorAsSelector. A null selector is treated as the empty one here; the
// API server's "nothing" selector for a nil pointer is the caller's concern.
Result<LabelSelector> LabelSelector::fromJson(const nlohmann::json& labelSelector) {
  LabelSelector selector;
  if (labelSelector.is_null()) return selector;
  if (!labelSelector.is_object()) {
    return invalidError("json: cannot unmarshal " + std::string(labelSelector.type_name()) +
                        " into Go value of type v1.LabelSelector");
  }
  if (auto it = labelSelector.find("matchLabels"); it != labelSelector.end() && !it->is_null()) {
    if (!it->is_object()) {
      return invalidError("json: cannot unmarshal " + std::string(it->type_name()) +
                          " into Go struct field LabelSelector.matchLabels of type "
                          "map[string]string");
    }
    for (const auto& [key, value] : it->items()) {
      if (!value.is_string()) {
        return invalidError("json: cannot unmarshal " + std::string(value.type_name()) +
                            " into Go struct field LabelSelector.matchLabels of type string");
      }
      auto r = newRequirement(key, Op::kEquals, {value.get<std::string>()});
      if (!r.isOk()) return r.status();
      selector.requirements_.push_back(std::move(r).value());
    }
  }
  if (auto it = labelSelector.find("matchExpressions");
      it != labelSelector.end() && !it->is_null()) {
    if (!it->is_array()) {
      return invalidError("json: cannot unmarshal " + std::string(it->type_name()) +
                          " into Go struct field LabelSelector.matchExpressions of type "
                          "[]v1.LabelSelectorRequirement");
    }
    for (const auto& expr : *it) {
      if (!expr.is_object()) {
        return invalidError("json: cannot unmarshal " + std::string(expr.type_name()) +
                            " into Go struct field LabelSelector.matchExpressions of type "
                            "v1.LabelSelectorRequirement");
      }
      std::string key =
          expr.contains("key") && expr["key"].is_string() ? expr["key"].get<std::string>() : "";
      std::string op = expr.contains("operator") && expr["operator"].is_string()
                           ? expr["operator"].get<std::string>()
                           : "";
      std::vector<std::string> values;
      if (auto v = expr.find("values"); v != expr.end() && v->is_array()) {
        for (const auto& item : *v) {
          if (!item.is_string()) {
            return invalidError("json: cannot unmarshal " + std::string(item.type_name()) +
                                " into Go struct field LabelSelectorRequirement.matchExpressions."
                                "values of type string");
          }
          values.push_back(item.get<std::string>());
        }
      }
      static const std::map<std::string, Op, std::less<>> operators = {
          {"In", Op::kIn},
          {"NotIn", Op::kNotIn},
          {"Exists", Op::kExists},
          {"DoesNotExist", Op::kDoesNotExist},
      };
      auto found = operators.find(op);
      if (found == operators.end()) {
        return invalidError(goQuote(op) + " is not a valid label selector operator");
      }
      auto r = newRequirement(key, found->second, std::move(values));
      if (!r.isOk()) return r.status();
      selector.requirements_.push_back(std::move(r).value());
    }
  }
  sortByKey(selector.requirements_);
  return selector;
}

std::string LabelSelector::toString() const {
  std::string out;
  for (const Requirement& r : requirements_) {
    if (!out.empty()) out += ",";
    if (r.op == Op::kDoesNotExist) out += "!";
    out += r.key;
    std::vector<std::string> values = r.values;
    std::sort(values.begin(), values.end());
    std::string list;
    for (const std::string& v : values) list += (list.empty() ? "" : ",") + v;
    switch (r.op) {
      case Op::kEquals:
        out += "=" + list;
        break;
      case Op::kNotEquals:
        out += "!=" + list;
        break;
      case Op::kIn:
        out += " in (" + list + ")";
        break;
      case Op::kNotIn:
        out += " notin (" + list + ")";
        break;
      case Op::kGreaterThan:
        out += ">" + list;
        break;
      case Op::kLessThan:
        out += "<" + list;
        break;
      case Op::kExists:
      case Op::kDoesNotExist:
        break;
    }
  }
  return out;
}

bool LabelSelector::matches(const nlohmann::json& labels) const {
  return std::all_of(requirements_.begin(), requirements_.end(),
                     [&](const Requirement& r) { return requirementMatches(r, labels); });
}

}  // namespace hetbench::kubesim
