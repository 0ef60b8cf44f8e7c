#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace hetbench::results::internal {

/// `value` rounded to `digits` significant digits (finite values only; others unchanged).
double roundSignificant(double value, int digits);

/// The shortest text that reads back as `value` after rounding it to `digits` significant
/// digits: "912.4", "1000", "0.05".
std::string formatNumber(double value, int digits = 5);

/// A whole string read as a finite decimal number ("179.7", "-3", "1e3"); nullopt otherwise.
std::optional<double> parseNumber(std::string_view text);

}  // namespace hetbench::results::internal
