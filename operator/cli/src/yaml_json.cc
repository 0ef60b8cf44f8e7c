#include "yaml_json.h"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <regex>
#include <string>

namespace hetbench::cli::internal {
namespace {

using nlohmann::json;

json plainScalar(const std::string& s) {
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  static const std::regex kInt("[-+]?[0-9]+");
  static const std::regex kFloat(R"([-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?)");
  if (std::regex_match(s, kInt)) {
    std::int64_t n = 0;
    const char* begin = s.data() + (s[0] == '+' ? 1 : 0);
    auto [end, ec] = std::from_chars(begin, s.data() + s.size(), n);
    if (ec == std::errc() && end == s.data() + s.size()) return n;
  }
  if (std::regex_match(s, kInt) || std::regex_match(s, kFloat)) {
    // Beyond int64 an integer reads as a float, as YAML decoders into JSON read it; beyond
    // double it stays text, which the field's type check then refuses.
    const double d = std::strtod(s.c_str(), nullptr);
    if (std::isfinite(d)) return d;
  }
  return s;
}

json toJson(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      json out = json::object();
      for (const auto& kv : node) out[kv.first.as<std::string>()] = toJson(kv.second);
      return out;
    }
    case YAML::NodeType::Sequence: {
      json out = json::array();
      for (const auto& item : node) out.push_back(toJson(item));
      return out;
    }
    case YAML::NodeType::Scalar:
      // A quoted or explicitly tagged scalar is a string; only plain ones are typed.
      if (node.Tag() != "?") return node.Scalar();
      return plainScalar(node.Scalar());
    default:
      return nullptr;
  }
}

}  // namespace

common::Result<std::vector<json>> yamlDocuments(std::string_view text) {
  std::vector<json> out;
  try {
    for (const YAML::Node& document : YAML::LoadAll(std::string(text))) {
      if (document.IsNull()) continue;
      out.push_back(toJson(document));
    }
  } catch (const YAML::Exception& e) {
    return common::invalidError(std::string("not YAML: ") + e.what());
  }
  return out;
}

}  // namespace hetbench::cli::internal
