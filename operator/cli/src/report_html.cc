#include "hetbench/cli/report_html.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <sstream>

#include "hetbench/cli/report_figures.h"

namespace hetbench::cli {
namespace {

using nlohmann::json;

constexpr const char* kSchema = "https://vega.github.io/schema/vega-lite/v6.json";

/// Text for HTML element content and quoted attribute values.
std::string escapeHtml(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string base64(std::string_view bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::size_t n = std::min<std::size_t>(3, bytes.size() - i);
    std::uint32_t v = 0;
    for (std::size_t k = 0; k < 3; ++k)
      v = v << 8 | (k < n ? static_cast<unsigned char>(bytes[i + k]) : 0u);
    for (std::size_t k = 0; k < 4; ++k) out += k <= n ? kAlphabet[(v >> (18 - 6 * k)) & 63] : '=';
  }
  return out;
}

bool containsNoCase(std::string_view text, std::string_view needle) {
  return std::search(text.begin(), text.end(), needle.begin(), needle.end(), [](char a, char b) {
           return std::tolower(static_cast<unsigned char>(a)) == b;
         }) != text.end();
}

/// A figure for the page: a Vega-Lite spec and the items each kind of Vega mark must draw.
struct Figure {
  std::string id;
  json spec;
  std::map<std::string, std::size_t> marks;
};

json base(const std::string& description) {
  return {{"$schema", kSchema},
          {"description", description},
          {"width", 560},
          {"height", 300},
          {"config",
           {{"legend", {{"orient", "bottom"}, {"columns", 2}, {"labelLimit", 360}}},
            {"axis", {{"labelLimit", 320}}}}}};
}

json quantitative(const std::string& field, const std::string& title, bool log = false) {
  json channel = {{"field", field}, {"type", "quantitative"}, {"title", title}};
  if (log) channel["scale"] = {{"type", "log"}};
  return channel;
}

json color(const std::string& field, const std::string& title) {
  return {{"field", field}, {"type", "nominal"}, {"title", title}};
}

json lineValues(const LinePoint& p) {
  return {{"line", p.line}, {"x", p.x}, {"y", p.y}, {"spread", p.spread}, {"trials", p.trials}};
}

Figure batchFigure(const std::vector<LinePoint>& points) {
  json values = json::array();
  for (const LinePoint& p : points) values.push_back(lineValues(p));
  json spec = base("Effective throughput against global batch size, per accelerator");
  spec["data"] = {{"values", values}};
  const json encoding = {
      {"x", quantitative("x", "global batch size", true)},
      {"y", quantitative("y", "effective throughput (samples/s)")},
      {"color", color("line", "accelerator")},
      {"tooltip", json::array({color("line", "accelerator"), quantitative("x", "batch"),
                               quantitative("y", "samples/s"), quantitative("spread", "stddev"),
                               quantitative("trials", "trials")})}};
  spec["encoding"] = encoding;
  spec["layer"] =
      json::array({{{"mark", "line"}}, {{"mark", {{"type", "point"}, {"filled", true}}}}});
  return {"fig-batch", spec, {{"line", points.size()}, {"symbol", points.size()}}};
}

Figure scalingFigure(const std::vector<ScalingPoint>& points) {
  json values = json::array();
  for (const ScalingPoint& p : points) {
    json v = lineValues(p.measured);
    v["ideal"] = p.ideal;
    values.push_back(v);
  }
  json spec = base("Effective throughput against accelerator count; dashed: linear scaling");
  spec["data"] = {{"values", values}};
  spec["encoding"] = {{"x", quantitative("x", "accelerators", true)},
                      {"color", color("line", "accelerator and batch size")}};
  const json y = quantitative("y", "effective throughput (samples/s)");
  spec["layer"] = json::array(
      {{{"mark", {{"type", "line"}, {"strokeDash", json::array({4, 4})}, {"opacity", 0.6}}},
        {"encoding", {{"y", quantitative("ideal", "effective throughput (samples/s)")}}}},
       {{"mark", "line"}, {"encoding", {{"y", y}}}},
       {{"mark", {{"type", "point"}, {"filled", true}}},
        {"encoding",
         {{"y", y},
          {"tooltip",
           json::array({color("line", "line"), quantitative("x", "accelerators"),
                        quantitative("y", "samples/s"), quantitative("ideal", "linear scaling"),
                        quantitative("trials", "trials")})}}}}});
  return {"fig-scaling", spec, {{"line", 2 * points.size()}, {"symbol", points.size()}}};
}

Figure ioFigure(const std::vector<IoShare>& shares) {
  json values = json::array();
  for (const IoShare& s : shares) {
    const double fraction = s.compute > 0 ? s.effective / s.compute : 0;
    values.push_back({{"configuration", s.configuration},
                      {"kind", "compute"},
                      {"value", s.compute},
                      {"fraction", fraction}});
    values.push_back({{"configuration", s.configuration},
                      {"kind", "effective (with input)"},
                      {"value", s.effective},
                      {"fraction", fraction}});
  }
  json spec = base("Compute and effective throughput per configuration");
  spec["data"] = {{"values", values}};
  spec["mark"] = "bar";
  spec["encoding"] = {{"y", {{"field", "configuration"}, {"type", "nominal"}, {"title", nullptr}}},
                      {"yOffset", {{"field", "kind"}}},
                      {"x", quantitative("value", "throughput (samples/s)")},
                      {"color", color("kind", "throughput")},
                      {"tooltip", json::array({color("configuration", "configuration"),
                                               color("kind", "kind"),
                                               quantitative("value", "samples/s"),
                                               {{"field", "fraction"},
                                                {"type", "quantitative"},
                                                {"title", "effective / compute"},
                                                {"format", ".1%"}}})}};
  spec["height"] = json{{"step", 14}};
  return {"fig-io", spec, {{"rect", 2 * shares.size()}}};
}

Figure energyFigure(const std::vector<EnergyPoint>& points) {
  json values = json::array();
  for (const EnergyPoint& p : points)
    values.push_back(
        {{"configuration", p.configuration}, {"joules", p.joulesPerSample}, {"spread", p.spread}});
  json spec = base("Energy per sample per configuration");
  spec["data"] = {{"values", values}};
  spec["mark"] = "bar";
  spec["encoding"] = {{"y", {{"field", "configuration"}, {"type", "nominal"}, {"title", nullptr}}},
                      {"x", quantitative("joules", "energy per sample (J)")},
                      {"tooltip", json::array({color("configuration", "configuration"),
                                               quantitative("joules", "J/sample"),
                                               quantitative("spread", "stddev")})}};
  spec["height"] = json{{"step", 20}};
  return {"fig-energy", spec, {{"rect", points.size()}}};
}

Figure historyFigure(const History& history, std::size_t index) {
  json spec = base(history.title);
  spec["title"] = history.title;
  spec["height"] = 220;
  const json x = {{"field", "time"}, {"type", "temporal"}, {"title", "trial completed"}};
  // Every layer's y channel alike, so that the shared axis has one title and one scale.
  auto axisOf = [&](const std::string& field) {
    return json{{"field", field},
                {"type", "quantitative"},
                {"title", history.metric},
                {"scale", {{"zero", false}}}};
  };
  const json y = axisOf("value");
  json layers = json::array();
  std::map<std::string, std::size_t> marks;
  if (history.band) {
    const ReferenceBand& b = *history.band;
    layers.push_back(
        {{"data",
          {{"values", json::array({{{"from", b.from},
                                    {"to", b.to},
                                    {"low", b.low},
                                    {"high", b.high},
                                    {"baseline", b.baseline}}})}}},
         {"layer",
          json::array(
              {{{"mark", {{"type", "rect"}, {"color", "#9ecae1"}, {"opacity", 0.35}}},
                {"encoding",
                 {{"x", {{"field", "from"}, {"type", "temporal"}, {"title", "trial completed"}}},
                  {"x2", {{"field", "to"}}},
                  {"y", axisOf("low")},
                  {"y2", {{"field", "high"}}}}}},
               {{"mark", {{"type", "rule"}, {"color", "#3182bd"}}},
                {"encoding",
                 {{"x", {{"field", "from"}, {"type", "temporal"}, {"title", "trial completed"}}},
                  {"x2", {{"field", "to"}}},
                  {"y", axisOf("baseline")}}}}})}});
    marks["rect"] += 1;
    marks["rule"] += 1;
  }
  json points = json::array();
  for (const HistoryPoint& p : history.points) {
    points.push_back({{"time", p.time},
                      {"value", p.value},
                      {"spread", p.spread},
                      {"run", p.run},
                      {"trial", p.trial},
                      {"verdict", p.verdict},
                      {"alarm", p.alarm.empty() ? "ok" : p.alarm}});
  }
  const json alarmScale = {{"domain", json::array({"ok", "Suspect", "Regressed"})},
                           {"range", json::array({"#4c78a8", "#f58518", "#d62728"})}};
  layers.push_back(
      {{"data", {{"values", points}}},
       {"layer",
        json::array({{{"mark", {{"type", "line"}, {"color", "#4c78a8"}}},
                      {"encoding", {{"x", x}, {"y", y}}}},
                     {{"mark", {{"type", "point"}, {"filled", true}, {"size", 60}}},
                      {"encoding",
                       {{"x", x},
                        {"y", y},
                        {"color",
                         {{"field", "alarm"},
                          {"type", "nominal"},
                          {"title", "alarm"},
                          {"scale", alarmScale}}},
                        {"tooltip",
                         json::array({x, y, quantitative("spread", "stddev"), color("run", "run"),
                                      quantitative("trial", "trial"), color("verdict", "verdict"),
                                      color("alarm", "alarm")})}}}}})}});
  marks["line"] += history.points.size();
  marks["symbol"] += history.points.size();
  if (!history.changes.empty()) {
    json changes = json::array();
    for (const HistoryChange& c : history.changes)
      changes.push_back({{"time", c.time},
                         {"run", c.run},
                         {"before", c.before},
                         {"after", c.after},
                         {"change", c.worse ? "worse" : "better"}});
    layers.push_back(
        {{"data", {{"values", changes}}},
         {"mark", {{"type", "rule"}, {"strokeDash", json::array({6, 3})}, {"strokeWidth", 2}}},
         {"encoding",
          {{"x", x},
           {"color",
            {{"field", "change"},
             {"type", "nominal"},
             {"title", "change point"},
             {"scale",
              {{"domain", json::array({"worse", "better"})},
               {"range", json::array({"#d62728", "#2ca02c"})}}}}},
           {"tooltip", json::array({x, color("run", "run"), quantitative("before", "before"),
                                    quantitative("after", "after")})}}}});
    marks["rule"] += history.changes.size();
  }
  spec["layer"] = layers;
  spec["resolve"] = {{"scale", {{"color", "independent"}}}};
  return {"fig-history-" + std::to_string(index), spec, marks};
}

void section(std::ostringstream& out, std::vector<Figure>& figures, const std::string& title,
             const std::string& caption, std::vector<Figure> made, const std::string& missing) {
  out << "<section>\n<h2>" << escapeHtml(title) << "</h2>\n<p class=\"caption\">"
      << escapeHtml(caption) << "</p>\n";
  if (made.empty()) out << "<p class=\"no-data\">" << escapeHtml(missing) << "</p>\n";
  for (Figure& f : made) {
    out << "<div class=\"figure\" id=\"" << f.id << "\"></div>\n";
    figures.push_back(std::move(f));
  }
  out << "</section>\n";
}

// Records problems before the bundles run, so that even their errors reach the page.
constexpr const char* kProblemsScript = R"JS(
window.hetbenchProblems = [];
(function () {
  function record(kind, text) {
    window.hetbenchProblems.push(kind + ": " + text);
    var list = document.getElementById("hb-problems");
    if (list) {
      var item = document.createElement("li");
      item.textContent = kind + ": " + text;
      list.appendChild(item);
      list.hidden = false;
    }
  }
  window.hetbenchRecord = record;
  ["error", "warn"].forEach(function (level) {
    var original = console[level].bind(console);
    console[level] = function () {
      record("console." + level, Array.prototype.map.call(arguments, String).join(" "));
      original.apply(null, arguments);
    };
  });
  window.addEventListener("error", function (e) { record("error", e.message); });
  window.addEventListener("unhandledrejection", function (e) {
    record("unhandled rejection", String(e.reason));
  });
})();
)JS";

// Draws every figure, then writes the items each kind of mark drew (role "mark": not axes nor
// legends) beside the expected ones, for the reader and for tests/cli/report_html_check.py.
constexpr const char* kDrawScript = R"JS(
(function () {
  function count(mark, counts) {
    if (mark.marktype !== "group" && mark.role === "mark") {
      counts[mark.marktype] = (counts[mark.marktype] || 0) + mark.items.length;
    }
    (mark.items || []).forEach(function (item) {
      (item.items || []).forEach(function (child) { count(child, counts); });
    });
    return counts;
  }
  var figures = JSON.parse(document.getElementById("hb-figures").textContent);
  Promise.allSettled(figures.map(function (f) {
    var element = document.getElementById(f.id);
    element.setAttribute("data-expected", JSON.stringify(f.marks));
    return vegaEmbed(element, f.spec, { actions: false, renderer: "svg" }).then(function (result) {
      element.setAttribute("data-rendered", JSON.stringify(count(result.view.scenegraph().root, {})));
    }, function (error) {
      window.hetbenchRecord("figure " + f.id, String(error));
    });
  })).then(function () { document.body.setAttribute("data-drawn", String(figures.length)); });
})();
)JS";

constexpr const char* kStyle = R"CSS(
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
section { margin-bottom: 2em; }
.caption { color: #555; max-width: 60em; }
.no-data { font-style: italic; color: #777; }
#hb-problems { color: #b00; }
table { border-collapse: collapse; font-size: 0.85em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: left; }
)CSS";

}  // namespace

std::string scriptSafeJson(const json& value) {
  const std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '<') {
      out += "\\u003c";
    } else if (c == '>') {
      out += "\\u003e";
    } else if (c == '&') {
      out += "\\u0026";
    } else if (text.compare(i, 3, "\xE2\x80\xA8") == 0 || text.compare(i, 3, "\xE2\x80\xA9") == 0) {
      out += text[i + 2] == '\xA8' ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

std::string inlineScript(std::string_view code) {
  if (containsNoCase(code, "</script") || containsNoCase(code, "<!--"))
    return "<script src=\"data:text/javascript;base64," + base64(code) + "\"></script>\n";
  return "<script>" + std::string(code) + "</script>\n";
}

common::Result<std::string> renderHtmlReport(const std::vector<ReportRow>& rows,
                                             const std::vector<json>& series,
                                             const PlottingLibrary& library) {
  if (!library.complete()) {
    return common::unavailableError(
        "built without the plotting library; run scripts/npm-tools and rebuild");
  }
  std::vector<Figure> figures;
  std::ostringstream body;
  const std::vector<LinePoint> batch = throughputByBatchSize(rows);
  const std::vector<ScalingPoint> scaling = scalingByCount(rows);
  const std::vector<IoShare> shares = ioShares(rows);
  const std::vector<EnergyPoint> energy = energyPerSample(rows);
  auto some = [](bool any, Figure f) {
    return any ? std::vector<Figure>{std::move(f)} : std::vector<Figure>{};
  };
  section(body, figures, "Throughput against batch size",
          "Effective throughput (mean of the trials' means) per global batch size, one line per "
          "accelerator at its smallest count.",
          some(!batch.empty(), batchFigure(batch)),
          "No data: no trial reports effective throughput with a batch size and an accelerator "
          "count.");
  section(body, figures, "Scaling",
          "Effective throughput per accelerator count, one line per accelerator and batch size; "
          "dashed, linear scaling from the smallest count.",
          some(!scaling.empty(), scalingFigure(scaling)),
          "No data: no accelerator and batch size was measured at two counts or more.");
  section(body, figures, "Compute and effective throughput",
          "Throughput of compute alone and with input (effective); their ratio is the share of "
          "time not spent waiting for input.",
          some(!shares.empty(), ioFigure(shares)),
          "No data: no trial reports both compute and effective throughput.");
  section(body, figures, "Energy per sample", "Joules per sample: 3600 / (samples per Wh).",
          some(!energy.empty(), energyFigure(energy)),
          "No data: no trial measured its energy (samples per Wh).");
  std::vector<Figure> made;
  const std::vector<History> history = histories(series);
  for (std::size_t i = 0; i < history.size(); ++i) made.push_back(historyFigure(history[i], i));
  section(body, figures, "History per configuration",
          "Each BenchmarkSeries' trials over time; the band is the baseline ± what screening "
          "takes as noise since the latest change point; red points regressed, orange is "
          "suspect; dashed rules are change points.",
          std::move(made), "No data: no BenchmarkSeries with points.");

  json figureData = json::array();
  for (const Figure& f : figures)
    figureData.push_back({{"id", f.id}, {"spec", f.spec}, {"marks", f.marks}});
  std::ostringstream page;
  page << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
       << "<title>hetbench report</title>\n<style>" << kStyle << "</style>\n"
       << inlineScript(kProblemsScript) << inlineScript(library.vega)
       << inlineScript(library.vegaLite) << inlineScript(library.vegaEmbed) << "</head>\n<body>\n"
       << "<h1>hetbench report</h1>\n<ul id=\"hb-problems\" hidden></ul>\n"
       << body.str();
  const std::vector<std::vector<std::string>> table = reportTable(rows, true);
  page << "<section>\n<h2>Trials</h2>\n<table>\n";
  for (std::size_t i = 0; i < table.size(); ++i) {
    page << "<tr>";
    for (const std::string& c : table[i])
      page << (i == 0 ? "<th>" : "<td>") << escapeHtml(c) << (i == 0 ? "</th>" : "</td>");
    page << "</tr>\n";
  }
  page << "</table>\n</section>\n<script type=\"application/json\" id=\"hb-figures\">"
       << scriptSafeJson(figureData) << "</script>\n"
       << inlineScript(kDrawScript) << "</body>\n</html>\n";
  return page.str();
}

}  // namespace hetbench::cli
