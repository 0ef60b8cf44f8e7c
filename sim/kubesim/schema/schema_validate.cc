// Validation of custom resources, following kube-openapi's SchemaValidator (validator order:
// type, allOf/anyOf/oneOf/not, string, format, number, array, enum, object) and the way
// apiextensions-apiserver turns its errors into field causes.

#include <re2/re2.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>

#include "schema/schema_internal.h"

namespace hetbench::kubesim::internal {
namespace {

// Formats the API server keeps; others are stripped before validation (formats.go).
const std::set<std::string>& supportedFormats() {
  static const std::set<std::string> kFormats = {
      "bsonobjectid", "uri",    "email",    "hostname",   "ipv4",     "ipv6",
      "cidr",         "mac",    "uuid",     "uuid3",      "uuid4",    "uuid5",
      "isbn",         "isbn10", "isbn13",   "creditcard", "ssn",      "hexcolor",
      "rgbcolor",     "byte",   "password", "date",       "duration", "datetime"};
  return kFormats;
}

std::string normalizedFormat(const Json& schema) {
  if (!schema.contains("format") || !schema["format"].is_string()) return "";
  std::string f = schema["format"].get<std::string>();
  f.erase(std::remove(f.begin(), f.end(), '-'), f.end());
  return supportedFormats().count(f) ? f : "";
}

bool fullMatch(const std::string& text, const char* pattern) {
  static std::mutex mu;
  static std::map<std::string, std::unique_ptr<RE2>> cache;
  std::lock_guard lock(mu);
  auto& re = cache[pattern];
  if (!re) re = std::make_unique<RE2>(pattern);
  return RE2::FullMatch(text, *re);
}

bool validDate(int y, int m, int d) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (m < 1 || m > 12 || d < 1) return false;
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return d <= kDays[m - 1] + (m == 2 && leap ? 1 : 0);
}

bool checkDate(const std::string& s) {
  int y = 0, m = 0, d = 0;
  if (!fullMatch(s, R"(\d{4}-\d{2}-\d{2})")) return false;
  y = std::stoi(s.substr(0, 4));
  m = std::stoi(s.substr(5, 2));
  d = std::stoi(s.substr(8, 2));
  return validDate(y, m, d);
}

bool checkFormat(const std::string& format, const std::string& s) {
  if (format == "date") return checkDate(s);
  if (format == "datetime") {
    if (s.size() < 10 || !checkDate(s.substr(0, 10))) return false;
    return fullMatch(
        s.substr(10),
        R"([Tt ]([01]\d|2[0-3]):[0-5]\d(:([0-5]\d|60)(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})?)");
  }
  if (format == "byte") {
    return s.size() % 4 == 0 && fullMatch(s, R"([A-Za-z0-9+/]*={0,2})");
  }
  if (format == "uuid" || format == "uuid3" || format == "uuid4" || format == "uuid5") {
    return fullMatch(
        s, R"([0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12})");
  }
  if (format == "ipv4") {
    return fullMatch(
        s, R"(((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d))");
  }
  return true;
}

std::vector<std::string> schemaTypes(const Json& s) {
  if (s.value("x-kubernetes-int-or-string", false)) return {"integer", "string"};
  if (s.contains("type") && s["type"].is_string()) return {s["type"].get<std::string>()};
  return {};
}

std::string joinTypes(const std::vector<std::string>& types) {
  std::string out;
  for (const auto& t : types) out += (out.empty() ? "" : ",") + t;
  return out;
}

bool contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

class Walker {
 public:
  Walker(const std::string& base, Causes& out) : base_(base), out_(out) {}

  void value(const Json& s, const Json& v, const std::string& name) {
    if (!s.is_object()) return;
    type(s, v, name);
    if (v.is_null()) {
      enumCheck(s, v, name);
      return;
    }
    junctors(s, v, name);
    if (v.is_string()) {
      string(s, v.get<std::string>(), name);
      const std::string f = normalizedFormat(s);
      if (!f.empty() && !checkFormat(f, v.get<std::string>())) {
        typeError(name, s["format"].get<std::string>(), v.get<std::string>());
      }
    }
    if (v.is_number()) number(s, v, name);
    if (v.is_array()) array(s, v, name);
    enumCheck(s, v, name);
    if (v.is_object()) object(s, v, name);
  }

 private:
  std::string field(const std::string& name) const {
    std::string n = name;
    if (!n.empty() && n[0] == '.') n.erase(0, 1);
    if (n.empty()) return base_.empty() ? "<nil>" : base_;
    return joinPath(base_, n);
  }
  static std::string in(const std::string& name) { return name + " in body"; }

  void typeError(const std::string& name, const std::string& typeName, const std::string& got) {
    out_.push_back(typeInvalidCause(
        field(name), got, in(name) + " must be of type " + typeName + ": " + goQuote(got)));
  }

  void type(const Json& s, const Json& v, const std::string& name) {
    const auto types = schemaTypes(s);
    const std::string format = normalizedFormat(s);
    if (types.empty() && format.empty()) return;
    if (v.is_null()) {
      if (!types.empty() && !s.value("nullable", false)) {
        typeError(name, joinTypes(types), "null");
        return;
      }
      return;
    }
    const std::string got = dataType(v);
    const std::string gotFormat = got == "integer" ? "int64" : got == "number" ? "float64" : "";
    const bool floatInt = got == "number" && isJsonInteger(v) && contains(types, "integer");
    const bool intFloat = got == "integer" && contains(types, "number");
    const bool stringOrArray = v.is_string() || v.is_array();
    if (!stringOrArray && !format.empty() &&
        !(contains(types, got) || gotFormat == format || floatInt || intFloat)) {
      typeError(name, format, gotFormat);
      return;
    }
    if (!contains(types, "number") && !contains(types, "integer") && !format.empty() &&
        stringOrArray) {
      return;
    }
    if (!(contains(types, got) || floatInt || intFloat)) {
      typeError(name, joinTypes(types), got);
      return;
    }
    return;
  }

  // allOf/anyOf/oneOf/not: their messages are plain errors, which the server reports at the
  // root field with an empty value.
  void junctors(const Json& s, const Json& v, const std::string& name) {
    auto sub = [&](const Json& schema) {
      Causes causes;
      Walker(base_, causes).value(schema, v, name);
      return causes;
    };
    auto plain = [&](const std::string& message) {
      out_.push_back(invalidCause(base_.empty() ? "<nil>" : base_, "", message));
    };
    if (s.contains("allOf") && s["allOf"].is_array()) {
      bool failed = false;
      for (const auto& schema : s["allOf"]) {
        Causes causes = sub(schema);
        failed = failed || !causes.empty();
        out_.insert(out_.end(), causes.begin(), causes.end());
      }
      if (failed) plain(goQuote(name) + " must validate all the schemas (allOf)");
    }
    if (s.contains("anyOf") && s["anyOf"].is_array() && !s["anyOf"].empty()) {
      std::optional<Causes> best;
      bool ok = false;
      for (const auto& schema : s["anyOf"]) {
        Causes causes = sub(schema);
        if (causes.empty()) {
          ok = true;
          break;
        }
        if (!best) best = std::move(causes);
      }
      if (!ok) {
        plain(goQuote(name) + " must validate at least one schema (anyOf)");
        out_.insert(out_.end(), best->begin(), best->end());
      }
    }
    if (s.contains("oneOf") && s["oneOf"].is_array() && !s["oneOf"].empty()) {
      int valid = 0;
      std::optional<Causes> best;
      for (const auto& schema : s["oneOf"]) {
        Causes causes = sub(schema);
        if (causes.empty()) {
          ++valid;
        } else if (!best) {
          best = std::move(causes);
        }
      }
      if (valid != 1) {
        plain(goQuote(name) + " must validate one and only one schema (oneOf)");
        if (valid == 0) out_.insert(out_.end(), best->begin(), best->end());
      }
    }
    if (s.contains("not") && s["not"].is_object() && sub(s["not"]).empty()) {
      plain(goQuote(name) + " must not validate the schema (not)");
    }
  }

  void string(const Json& s, const std::string& v, const std::string& name) {
    if (s.contains("maxLength") && s["maxLength"].is_number()) {
      const auto max = s["maxLength"].get<std::int64_t>();
      if (runeCount(v) > max) {
        out_.push_back(tooLongCause(field(name), max));
        return;
      }
    }
    if (s.contains("minLength") && s["minLength"].is_number()) {
      const auto min = s["minLength"].get<std::int64_t>();
      if (runeCount(v) < min) {
        out_.push_back(
            invalidCause(field(name), v,
                         in(name) + " should be at least " + std::to_string(min) + " chars long"));
        return;
      }
    }
    if (s.contains("pattern") && s["pattern"].is_string()) {
      const std::string pattern = s["pattern"].get<std::string>();
      std::string error;
      const RE2* re = compiledPattern(pattern, &error);
      if (re != nullptr && !RE2::PartialMatch(v, *re)) {
        out_.push_back(invalidCause(field(name), v, in(name) + " should match '" + pattern + "'"));
      }
    }
  }

  void number(const Json& s, const Json& v, const std::string& name) {
    const bool intData = dataType(v) == "integer";
    // kube-openapi compares integers natively when the bound is integral, else as floats.
    auto bound = [&](const Json& b, bool* asInt) {
      *asInt = intData && isJsonInteger(b);
      return *asInt ? std::to_string(static_cast<std::int64_t>(asDouble(b))) : goFloat(asDouble(b));
    };
    const double x = asDouble(v);
    if (s.contains("multipleOf") && s["multipleOf"].is_number()) {
      bool asInt = false;
      const std::string shown = bound(s["multipleOf"], &asInt);
      const double f = asDouble(s["multipleOf"]);
      bool ok = true;
      if (asInt) {
        const auto factor = static_cast<std::int64_t>(f);
        ok = factor == 0 || v.get<std::int64_t>() % factor == 0;
      } else if (f != 0) {
        const double mult = f < 1 ? 1 / f * x : x / f;
        ok = std::isfinite(mult) && std::abs(mult - std::round(mult)) <= 1e-9 * std::abs(mult);
      }
      if (!ok) {
        out_.push_back(
            invalidCause(field(name), v, in(name) + " should be a multiple of " + shown));
      }
    }
    if (s.contains("minimum") && s["minimum"].is_number()) {
      bool asInt = false;
      const std::string shown = bound(s["minimum"], &asInt);
      const bool exclusive = s.value("exclusiveMinimum", false);
      const double m = asDouble(s["minimum"]);
      const bool bad = exclusive ? x <= m : x < m;
      if (bad) {
        out_.push_back(invalidCause(
            field(name), v,
            in(name) + " should be greater than " + (exclusive ? "" : "or equal to ") + shown));
      }
    }
    if (s.contains("maximum") && s["maximum"].is_number()) {
      bool asInt = false;
      const std::string shown = bound(s["maximum"], &asInt);
      const bool exclusive = s.value("exclusiveMaximum", false);
      const double m = asDouble(s["maximum"]);
      const bool bad = exclusive ? x >= m : x > m;
      if (bad) {
        out_.push_back(invalidCause(
            field(name), v,
            in(name) + " should be less than " + (exclusive ? "" : "or equal to ") + shown));
      }
    }
  }

  void array(const Json& s, const Json& v, const std::string& name) {
    if (s.contains("items") && s["items"].is_object()) {
      for (std::size_t i = 0; i < v.size(); ++i) {
        value(s["items"], v[i], name + "[" + std::to_string(i) + "]");
      }
    }
    const auto size = static_cast<std::int64_t>(v.size());
    if (s.contains("minItems") && s["minItems"].is_number()) {
      const auto min = s["minItems"].get<std::int64_t>();
      if (size < min) {
        out_.push_back(
            invalidCause(field(name), size,
                         in(name) + " should have at least " + std::to_string(min) + " items"));
      }
    }
    if (s.contains("maxItems") && s["maxItems"].is_number()) {
      const auto max = s["maxItems"].get<std::int64_t>();
      if (size > max) out_.push_back(tooManyCause(field(name), size, max));
    }
    if (s.value("uniqueItems", false)) {
      for (std::size_t i = 0; i < v.size(); ++i) {
        for (std::size_t j = i + 1; j < v.size(); ++j) {
          if (v[i] == v[j]) {
            out_.push_back(
                invalidCause(field(name), "", in(name) + " shouldn't contain duplicates"));
            return;
          }
        }
      }
    }
  }

  void enumCheck(const Json& s, const Json& v, const std::string& name) {
    if (!s.contains("enum") || !s["enum"].is_array() || s["enum"].empty()) return;
    for (const auto& allowed : s["enum"]) {
      if (!v.is_null() && allowed == v) return;
    }
    std::vector<std::string> supported;
    for (const auto& allowed : s["enum"]) {
      supported.push_back(allowed.is_string() ? allowed.get<std::string>() : allowed.dump());
    }
    out_.push_back(notSupportedCause(field(name), v, supported));
  }

  void object(const Json& s, const Json& v, const std::string& name) {
    const auto size = static_cast<std::int64_t>(v.size());
    if (s.contains("minProperties") && s["minProperties"].is_number()) {
      const auto min = s["minProperties"].get<std::int64_t>();
      if (size < min) {
        out_.push_back(invalidCause(
            field(name), size,
            in(name) + " should have at least " + std::to_string(min) + " properties"));
        return;
      }
    }
    if (s.contains("maxProperties") && s["maxProperties"].is_number()) {
      const auto max = s["maxProperties"].get<std::int64_t>();
      if (size > max) {
        out_.push_back(tooManyCause(field(name), size, max));
        return;
      }
    }
    static const Json kEmpty = Json::object();
    const Json& props =
        s.contains("properties") && s["properties"].is_object() ? s["properties"] : kEmpty;
    if (s.contains("additionalProperties")) {
      const Json& ap = s["additionalProperties"];
      for (const auto& [key, item] : v.items()) {
        if (props.contains(key)) continue;
        if (ap.is_boolean() && !ap.get<bool>()) {
          out_.push_back(invalidCause(field(name), key,
                                      name + "." + key + " in body is a forbidden property"));
        } else if (ap.is_object()) {
          value(ap, item, name + "." + key);
        }
      }
    }
    for (const auto& [key, schema] : props.items()) {
      if (v.contains(key)) value(schema, v[key], name.empty() ? key : name + "." + key);
    }
    if (s.contains("required") && s["required"].is_array()) {
      for (const auto& key : s["required"]) {
        if (key.is_string() && !v.contains(key.get<std::string>())) {
          out_.push_back(requiredCause(field(name + "." + key.get<std::string>())));
        }
      }
    }
  }

  const std::string& base_;
  Causes& out_;
};

// Go's regexp/syntax error codes for RE2's error codes.
std::string goRegexpCode(RE2::ErrorCode code) {
  switch (code) {
    case RE2::ErrorBadEscape:
      return "invalid escape sequence";
    case RE2::ErrorBadCharClass:
      return "invalid character class";
    case RE2::ErrorBadCharRange:
      return "invalid character class range";
    case RE2::ErrorMissingBracket:
      return "missing closing ]";
    case RE2::ErrorMissingParen:
      return "missing closing )";
    case RE2::ErrorUnexpectedParen:
      return "unexpected )";
    case RE2::ErrorTrailingBackslash:
      return "trailing backslash at end of expression";
    case RE2::ErrorRepeatArgument:
      return "missing argument to repetition operator";
    case RE2::ErrorRepeatSize:
      return "invalid repeat count";
    case RE2::ErrorRepeatOp:
      return "invalid nested repetition operator";
    case RE2::ErrorBadPerlOp:
      return "invalid or unsupported Perl syntax";
    case RE2::ErrorBadUTF8:
      return "invalid UTF-8";
    case RE2::ErrorBadNamedCapture:
      return "invalid named capture";
    default:
      return "unexpected error";
  }
}

void listTypes(const Json& s, const Json& v, const std::string& path, Causes& out) {
  if (!s.is_object()) return;
  if (v.is_object()) {
    for (const auto& [key, item] : v.items()) {
      if (s.contains("properties") && s["properties"].contains(key)) {
        listTypes(s["properties"][key], item, joinPath(path, key), out);
      } else if (s.contains("additionalProperties") && s["additionalProperties"].is_object()) {
        listTypes(s["additionalProperties"], item, joinPath(path, key), out);
      }
    }
    return;
  }
  if (!v.is_array()) return;
  const std::string listType = s.value("x-kubernetes-list-type", "");
  auto index = [&](std::size_t i) { return path + "[" + std::to_string(i) + "]"; };
  if (listType == "set") {
    for (std::size_t i = 0; i < v.size(); ++i) {
      for (std::size_t j = 0; j < i; ++j) {
        if (v[j] == v[i]) {
          out.push_back(duplicateCause(index(i), v[i]));
          break;
        }
      }
    }
  } else if (listType == "map" && s.contains("x-kubernetes-list-map-keys")) {
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (!v[i].is_null() && !v[i].is_object()) {
        out.push_back(
            invalidCause(index(i), v[i], "must be an object for an array of list-type map"));
        return;
      }
    }
    auto keyOf = [&](const Json& item) {
      Json key = Json::object();
      for (const auto& k : s["x-kubernetes-list-map-keys"]) {
        const std::string name = k.get<std::string>();
        if (item.is_object() && item.contains(name)) {
          key[name] = item[name];
        } else if (s["items"]["properties"][name].contains("default")) {
          key[name] = s["items"]["properties"][name]["default"];
        }
      }
      return key;
    };
    for (std::size_t i = 0; i < v.size(); ++i) {
      const Json key = keyOf(v[i]);
      for (std::size_t j = 0; j < i; ++j) {
        if (keyOf(v[j]) == key) {
          Json shown = Json::object();
          for (const auto& k : s["x-kubernetes-list-map-keys"]) {
            const std::string name = k.get<std::string>();
            shown[name] = v[i].is_object() && v[i].contains(name) ? v[i][name] : Json();
          }
          out.push_back(duplicateCause(index(i), shown));
          break;
        }
      }
    }
  }
  if (s.contains("items")) {
    for (std::size_t i = 0; i < v.size(); ++i) listTypes(s["items"], v[i], index(i), out);
  }
}

}  // namespace

const RE2* compiledPattern(const std::string& pattern, std::string* goError) {
  static std::mutex mu;
  static std::map<std::string, std::unique_ptr<RE2>> cache;
  std::lock_guard lock(mu);
  auto& re = cache[pattern];
  if (!re) {
    RE2::Options options;
    options.set_log_errors(false);
    re = std::make_unique<RE2>(pattern, options);
  }
  if (!re->ok()) {
    if (goError != nullptr) {
      *goError =
          "error parsing regexp: " + goRegexpCode(re->error_code()) + ": `" + re->error_arg() + "`";
    }
    return nullptr;
  }
  return re.get();
}

void validateValue(const Json& schema, const Json& value, const std::string& name,
                   const std::string& base, Causes& out) {
  Walker(base, out).value(schema, value, name);
}

void validateListTypes(const Json& schema, const Json& value, const std::string& path,
                       Causes& out) {
  listTypes(schema, value, path, out);
}

}  // namespace hetbench::kubesim::internal
