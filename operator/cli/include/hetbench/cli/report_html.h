#pragma once

// `hetbench report --format html`: one self-contained page with the papers' figures
// (report_figures.h) drawn by Vega-Lite, whose bundles are inlined, and the report's table.

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "hetbench/cli/report.h"
#include "hetbench/common/status.h"

namespace hetbench::cli {

/// The minified bundles of vega, vega-lite and vega-embed that the page inlines, in that order.
struct PlottingLibrary {
  std::string_view vega;
  std::string_view vegaLite;
  std::string_view vegaEmbed;

  bool complete() const { return !vega.empty() && !vegaLite.empty() && !vegaEmbed.empty(); }
};

/// The bundles built into this program: CMake embeds them from .cache/npm-tools, which
/// scripts/npm-tools fills; all empty when the build found none. Defined in a generated source.
PlottingLibrary builtInPlottingLibrary();

/// JSON text that can stand inside an HTML <script> element: every `<`, `>` and `&` (and the
/// JavaScript line terminators U+2028, U+2029) written as a \u escape, so that no value can
/// close the element or open a comment.
std::string scriptSafeJson(const nlohmann::json& value);

/// A <script> element running `code`: inline, unless the code holds `</script` or `<!--` (in
/// any case), which would end or change the element; then as a base64 data: URL.
std::string inlineScript(std::string_view code);

/// The page: the five figures, each in place of a note saying why when it has no data, and the
/// rows' table. `series` are BenchmarkSeries objects. Unavailable when `library` is incomplete.
common::Result<std::string> renderHtmlReport(const std::vector<ReportRow>& rows,
                                             const std::vector<nlohmann::json>& series,
                                             const PlottingLibrary& library);

}  // namespace hetbench::cli
