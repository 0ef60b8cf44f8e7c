#include "server/quantity.h"

#include <cctype>
#include <cmath>
#include <string>

namespace hetbench::kubesim {

std::optional<std::int64_t> parseQuantityMilli(std::string_view text) {
  if (text.empty()) return std::nullopt;
  std::size_t i = 0;
  if (text[0] == '+' || text[0] == '-') ++i;
  bool digits = false;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) != 0)) {
    ++i;
    digits = true;
  }
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) != 0)) {
      ++i;
      digits = true;
    }
  }
  if (!digits) return std::nullopt;
  const double number = std::stod(std::string(text.substr(0, i)));
  const std::string_view suffix = text.substr(i);
  double scale = 1;
  if (suffix.empty()) {
    scale = 1;
  } else if (suffix == "m") {
    scale = 1e-3;
  } else if (suffix == "k") {
    scale = 1e3;
  } else if (suffix == "M") {
    scale = 1e6;
  } else if (suffix == "G") {
    scale = 1e9;
  } else if (suffix == "T") {
    scale = 1e12;
  } else if (suffix == "P") {
    scale = 1e15;
  } else if (suffix == "E") {
    scale = 1e18;
  } else if (suffix == "Ki") {
    scale = 1024.0;
  } else if (suffix == "Mi") {
    scale = 1024.0 * 1024;
  } else if (suffix == "Gi") {
    scale = 1024.0 * 1024 * 1024;
  } else if (suffix == "Ti") {
    scale = 1024.0 * 1024 * 1024 * 1024;
  } else if (suffix == "Pi") {
    scale = 1024.0 * 1024 * 1024 * 1024 * 1024;
  } else if (suffix == "Ei") {
    scale = 1024.0 * 1024 * 1024 * 1024 * 1024 * 1024;
  } else if (suffix[0] == 'e' || suffix[0] == 'E') {
    std::size_t used = 0;
    int exponent = 0;
    try {
      exponent = std::stoi(std::string(suffix.substr(1)), &used);
    } catch (...) {
      return std::nullopt;
    }
    if (used + 1 != suffix.size()) return std::nullopt;
    scale = std::pow(10.0, exponent);
  } else {
    return std::nullopt;
  }
  const double milli = std::ceil(number * scale * 1000.0 - 1e-6);
  if (!std::isfinite(milli) || std::fabs(milli) > 9.2e18) return std::nullopt;
  return static_cast<std::int64_t>(milli);
}

std::optional<std::int64_t> quantityMilli(const nlohmann::json& value) {
  if (value.is_string()) return parseQuantityMilli(value.get<std::string>());
  if (value.is_number()) {
    const double v = value.get<double>() * 1000.0;
    if (!std::isfinite(v) || std::fabs(v) > 9.2e18) return std::nullopt;
    return static_cast<std::int64_t>(std::ceil(v));
  }
  return std::nullopt;
}

}  // namespace hetbench::kubesim
