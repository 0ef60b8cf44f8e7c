#include <cmath>
#include <cstdint>
#include <limits>

#include "schema/schema_internal.h"

namespace hetbench::kubesim::internal {

bool isJsonInteger(const Json& v) {
  if (dataType(v) == "integer") return true;
  if (!v.is_number()) return false;
  const double d = asDouble(v);
  return std::isfinite(d) && std::trunc(d) == d;
}

double asDouble(const Json& v) {
  if (v.is_number_float()) return v.get<double>();
  if (v.is_number_unsigned()) return static_cast<double>(v.get<std::uint64_t>());
  if (v.is_number_integer()) return static_cast<double>(v.get<std::int64_t>());
  return 0;
}

std::int64_t runeCount(std::string_view s) {
  std::int64_t n = 0;
  for (std::size_t i = 0; i < s.size();) {
    char32_t r = 0;
    const std::size_t len = common::decodeUtf8(s, i, &r);
    i += len == 0 ? 1 : len;
    ++n;
  }
  return n;
}

std::string joinPath(const std::string& parent, const std::string& child) {
  if (parent.empty()) return child;
  if (child.empty()) return parent;
  return parent + "." + child;
}

}  // namespace hetbench::kubesim::internal
