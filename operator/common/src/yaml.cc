#include "hetbench/common/yaml.h"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <regex>
#include <string>

namespace hetbench::common {
namespace {

using nlohmann::json;

json plainScalar(const std::string& s) {
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  static const std::regex kInt("[-+]?[0-9]+");
  static const std::regex kFloat(R"([-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?)");
  const bool integer = std::regex_match(s, kInt);
  if (integer) {
    std::int64_t n = 0;
    const char* begin = s.data() + (s[0] == '+' ? 1 : 0);
    auto [end, ec] = std::from_chars(begin, s.data() + s.size(), n);
    if (ec == std::errc() && end == s.data() + s.size()) return n;
  }
  if (integer || std::regex_match(s, kFloat)) {
    // Beyond int64 an integer reads as a float, as YAML decoders into JSON read it; beyond
    // double it stays text, which a field's type check then refuses.
    const double d = std::strtod(s.c_str(), nullptr);
    if (std::isfinite(d)) return d;
  }
  return s;
}

json toJson(const YAML::Node& node, YamlScalars scalars) {
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      json out = json::object();
      for (const auto& kv : node) out[kv.first.as<std::string>()] = toJson(kv.second, scalars);
      return out;
    }
    case YAML::NodeType::Sequence: {
      json out = json::array();
      for (const auto& item : node) out.push_back(toJson(item, scalars));
      return out;
    }
    case YAML::NodeType::Scalar:
      // A quoted or explicitly tagged scalar is a string; only plain ones are typed.
      if (scalars == YamlScalars::kStrings || node.Tag() != "?") return node.Scalar();
      return plainScalar(node.Scalar());
    default:
      return nullptr;
  }
}

}  // namespace

Result<std::vector<json>> yamlDocuments(std::string_view text, YamlScalars scalars) {
  std::vector<json> out;
  try {
    for (const YAML::Node& document : YAML::LoadAll(std::string(text))) {
      if (document.IsNull()) continue;
      out.push_back(toJson(document, scalars));
    }
  } catch (const YAML::Exception& e) {
    return invalidError(e.what());
  }
  return out;
}

}  // namespace hetbench::common
