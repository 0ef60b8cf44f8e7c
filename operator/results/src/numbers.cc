#include "numbers.h"

#include <array>
#include <charconv>
#include <cmath>

namespace hetbench::results::internal {

double roundSignificant(double value, int digits) {
  if (!std::isfinite(value) || value == 0) return value;
  // Scientific text with digits - 1 decimals is exactly the rounding wanted, free of the
  // error a multiply-round-divide would add.
  std::array<char, 64> buffer{};
  const auto written = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value,
                                     std::chars_format::scientific, digits - 1);
  double rounded = value;
  std::from_chars(buffer.data(), written.ptr, rounded);
  return rounded;
}

std::string formatNumber(double value, int digits) {
  std::array<char, 64> buffer{};
  const auto written =
      std::to_chars(buffer.data(), buffer.data() + buffer.size(), roundSignificant(value, digits));
  return std::string(buffer.data(), written.ptr);
}

std::optional<double> parseNumber(std::string_view text) {
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

}  // namespace hetbench::results::internal
