#!/usr/bin/python3
"""Checks of manifests/observability/ that promtool cannot make by itself.

Usage:
  check.py rules-file OUT      writes the PrometheusRule's spec (a Prometheus rules file) to OUT
  check.py dashboard-tests     checks that dashboards_test.yaml tests exactly the dashboards'
                               expressions over the hetbench_series_* gauges, and
                               dashboards_dcgm_test.yaml exactly those over dcgm-exporter's
                               metrics (panels and annotations, as scripts/promql-exprs prints
                               them)
  check.py exprs OUT           checks every expression's metric names, labels and Grafana
                               variables against metric_names.txt, and writes every expression
                               as a recording rule to OUT for `promtool check rules` (one group
                               per expression, named after where it came from)
  check.py dashboards          checks the dashboards' structure
  check.py kustomize FILE      checks `kubectl kustomize manifests/observability` output

Each prints what it found wrong and exits 1, or prints a one-line summary and exits 0. The
expressions come from scripts/promql-exprs, which this imports.
"""
import importlib.machinery
import importlib.util
import json
import pathlib
import re
import subprocess
import sys

import yaml

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
CONTRACT = HERE / "metric_names.txt"
# Which dashboard expressions each test file must test, and only those: by what they read.
DASHBOARD_TESTS = {
    HERE / "dashboards_test.yaml": ("over hetbench_series_*", lambda expr: "hetbench_series_" in expr),
    HERE / "dashboards_dcgm_test.yaml": ("over dcgm-exporter's metrics",
                                         lambda expr: any(name in expr for name in external_names())),
}
DOCS = ROOT / "docs" / "metrics.md"


def load_promql_exprs():
    path = ROOT / "scripts" / "promql-exprs"
    loader = importlib.machinery.SourceFileLoader("promql_exprs", str(path))
    spec = importlib.util.spec_from_loader("promql_exprs", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


px = load_promql_exprs()

# The exporters other than the operator whose metrics metric_names.txt may list (a fourth
# field), and so the rules and dashboards may read: those of NVIDIA's dcgm-exporter, each name
# and label listed there, nothing else of theirs.
EXTERNAL_EXPORTERS = {"dcgm-exporter"}
# Labels Prometheus (with the Prometheus Operator) puts on every scraped series.
TARGET_LABELS = {"job", "instance", "pod", "namespace", "service", "endpoint", "container"}
# Series that Prometheus itself makes, with their labels.
PROMETHEUS_SERIES = {"up": set()}
HISTOGRAM_SUFFIXES = ("_bucket", "_sum", "_count")
# The dashboards and what each must offer.
DASHBOARDS = {
    "benchmarks.json": {"uid": "hetbench-benchmarks",
                        "variables": ["datasource", "namespace", "benchmark", "system", "accelerator",
                                      "series"]},
    "operator.json": {"uid": "hetbench-operator", "variables": ["datasource", "instance"]},
}


class Problems(list):
    def report(self, summary):
        for p in self:
            print(f"FAIL {p}")
        if self:
            print(f"{len(self)} problem(s)")
            return 1
        print(summary)
        return 0


# --- the contract -------------------------------------------------------------------------

def read_contract_lines():
    """{name: (type, set of labels, exporter)} from metric_names.txt; exporter is None for the
    operator's own metrics."""
    contract = {}
    for number, line in enumerate(CONTRACT.read_text(encoding="utf-8").splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        fields = line.split()
        if len(fields) not in (3, 4) or fields[1] not in ("gauge", "counter", "histogram") or \
                (len(fields) == 4 and fields[3] not in EXTERNAL_EXPORTERS):
            raise SystemExit(f"{CONTRACT}:{number}: want NAME TYPE LABELS [EXPORTER], EXPORTER "
                             f"one of {sorted(EXTERNAL_EXPORTERS)}, got {line!r}")
        name, kind, labels = fields[:3]
        if name in contract:
            raise SystemExit(f"{CONTRACT}:{number}: {name} listed twice")
        exporter = fields[3] if len(fields) == 4 else None
        contract[name] = (kind, set() if labels == "-" else set(labels.split(",")), exporter)
    return contract


def read_contract():
    """{name: (type, set of labels)} from metric_names.txt, the operator's and other exporters'."""
    return {name: (kind, labels) for name, (kind, labels, _) in read_contract_lines().items()}


def external_names():
    """The metrics of metric_names.txt that another exporter exposes."""
    return {name for name, (_, _, exporter) in read_contract_lines().items() if exporter}


def exposed_series(contract):
    """{series name: labels} for every name a query can select: histograms as their parts."""
    series = {}
    for name, (kind, labels) in contract.items():
        if kind == "histogram":
            series[name + "_bucket"] = labels | {"le"}
            series[name + "_sum"] = labels
            series[name + "_count"] = labels
        else:
            series[name] = labels
    return series


# --- PromQL, as far as names go ---------------------------------------------------------------

_TOKEN = re.compile(r"""
    (?P<space>\s+)
  | (?P<comment>\#[^\n]*)
  | (?P<string>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`)
  | (?P<number>0[xX][0-9a-fA-F]+
      |\d+(?:ms|[smhdwy])(?:\d+(?:ms|[smhdwy]))*
      |(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)
  | (?P<ident>[A-Za-z_:][A-Za-z0-9_:]*)
  | (?P<op>=~|!~|!=|==|<=|>=|[-+*/%^<>=@,{}()\[\]])
""", re.VERBOSE)

_KEYWORDS = {"and", "or", "unless", "atan2", "bool", "offset", "inf", "nan",
             "by", "without", "on", "ignoring", "group_left", "group_right",
             "sum", "min", "max", "avg", "group", "stddev", "stdvar", "count", "count_values",
             "bottomk", "topk", "quantile", "limitk", "limit_ratio"}
_GROUPING = {"by", "without", "on", "ignoring", "group_left", "group_right"}


def tokens(expr):
    pos = 0
    out = []
    while pos < len(expr):
        m = _TOKEN.match(expr, pos)
        if not m:
            raise ValueError(f"cannot read {expr[pos:pos + 20]!r}")
        pos = m.end()
        if m.lastgroup not in ("space", "comment"):
            out.append((m.lastgroup, m.group()))
    return out


def names_in(expr):
    """([(metric, labels matched in its selector)], labels named in by/without/on/...)."""
    toks = tokens(expr)
    selectors = []
    grouping = set()
    stack = []  # ("braces", index into selectors or None) / ("group",) / ("paren",) / ("range",)
    for i, (kind, text) in enumerate(toks):
        prev = toks[i - 1] if i > 0 else (None, None)
        nxt = toks[i + 1] if i + 1 < len(toks) else (None, None)
        context = stack[-1][0] if stack else None
        if kind == "op":
            if text == "{":
                owner = len(selectors) - 1 if prev[0] == "ident" and selectors and \
                    selectors[-1][0] == prev[1] and selectors[-1][2] == i - 1 else None
                stack.append(("braces", owner))
            elif text == "(":
                stack.append(("group",) if prev[0] == "ident" and prev[1] in _GROUPING
                             else ("paren",))
            elif text == "[":
                stack.append(("range",))
            elif text in "})]":
                if not stack:
                    raise ValueError(f"unbalanced {text!r}")
                stack.pop()
            continue
        if kind != "ident":
            continue
        if context == "braces":
            owner = stack[-1][1]
            if owner is not None:
                selectors[owner][1].add(text)
        elif context == "group":
            grouping.add(text)
        elif context == "range":
            pass
        elif text.lower() in _KEYWORDS or nxt == ("op", "("):
            pass
        else:
            selectors.append((text, set(), i))
    if stack:
        raise ValueError("unbalanced brackets")
    return [(name, labels) for name, labels, _ in selectors], grouping


# --- checks -------------------------------------------------------------------------------

def recording_rules():
    return {rule["record"] for group in px.rule_groups(ROOT) for rule in group["rules"]
            if "record" in rule}


_COUNT_VALUES = re.compile(r"""\bcount_values\s*(?:(?:by|without)\s*\([^)]*\)\s*)?\(\s*(["'`])(\w+)\1""")


def made_labels(expr):
    """Labels an expression makes itself: count_values("label", ...) turns values into one."""
    return {m.group(2) for m in _COUNT_VALUES.finditer(expr or "")}


def legend_labels(text):
    return re.findall(r"\{\{\s*([^}\s]*)\s*\}\}", text or "")


def check_exprs(out):
    problems = Problems()
    contract = read_contract()
    series = exposed_series(contract)
    series.update(PROMETHEUS_SERIES)
    records = recording_rules()
    all_labels = set().union(*series.values()) | TARGET_LABELS
    used = set()

    try:
        expressions = list(px.expressions(ROOT))
    except px.Error as e:
        problems.append(str(e))
        return problems.report("")

    # scripts/promql-exprs prints the same, in its documented format.
    printed = subprocess.run([sys.executable, str(ROOT / "scripts" / "promql-exprs")],
                             check=True, capture_output=True, text=True).stdout
    lines = [tuple(line.split("\t")) for line in printed.splitlines()]
    if lines != expressions:
        problems.append("scripts/promql-exprs does not print FILE<TAB>LOCATION<TAB>EXPRESSION "
                        "for each expression")
    for file, location, expr in expressions:
        where = f"{file}: {location}"
        try:
            selectors, grouping = names_in(expr)
        except ValueError as e:
            problems.append(f"{where}: {e}")
            continue
        for name, labels in selectors:
            if name in records:
                continue
            if name not in series:
                problems.append(f"{where}: {name} is not in {CONTRACT.name} nor a recording rule")
                continue
            used.add(name)
            for label in sorted(labels - series[name] - TARGET_LABELS - {"__name__"}):
                problems.append(f"{where}: {name} has no label {label}")
        for label in sorted(grouping - all_labels - made_labels(expr)):
            problems.append(f"{where}: no metric has the label {label}")

    # Grafana's side: variables written as =~"$name", legends and annotations naming labels
    # that exist, label_values(...) asking for a metric and label that exist.
    for path in px.dashboard_files(ROOT):
        name = str(path.relative_to(ROOT))
        dashboard = json.loads(path.read_text(encoding="utf-8"))
        for file, location, expr in px.dashboard_expressions(ROOT, path):
            for m in re.finditer(r"\$(\w+)", expr):
                var = m.group(1)
                if var in px.BUILTINS:
                    continue
                before, after = expr[:m.start()], expr[m.end():]
                if not (before.endswith('=~"') and after.startswith('"')):
                    problems.append(f'{file}: {location}: write ${var} only as =~"${var}"')
        for panel in px.all_panels(dashboard.get("panels", [])):
            for target in panel.get("targets", []):
                known = all_labels | made_labels(target.get("expr", ""))
                for label in legend_labels(target.get("legendFormat")):
                    if label not in known:
                        problems.append(f'{name}: panel {panel.get("id")} target '
                                        f'{target.get("refId")}: legend names no label: {label}')
        for annotation in dashboard.get("annotations", {}).get("list", []):
            texts = [annotation.get("titleFormat"), annotation.get("textFormat")]
            labels = [l for t in texts for l in legend_labels(t)]
            labels += [k.strip() for k in annotation.get("tagKeys", "").split(",") if k.strip()]
            known = all_labels | made_labels(annotation.get("expr", ""))
            for label in labels:
                if label not in known:
                    problems.append(f'{name}: annotation "{annotation.get("name")}" names no '
                                    f"label: {label}")
        for variable in dashboard.get("templating", {}).get("list", []):
            if variable.get("type") != "query":
                continue
            parsed = px.parse_label_values(px.variable_query(variable))
            if not parsed:
                continue
            selector, label = parsed
            if selector is None:
                known = label in all_labels
            else:
                metrics, _ = names_in(px.substitute(selector, set(px.variable_names(dashboard))))
                if len(metrics) != 1:
                    problems.append(f"{name}: variable {variable['name']}: label_values needs "
                                    f"one metric, not {selector!r}")
                    continue
                metric = metrics[0][0]
                known = label in series.get(metric, set()) | TARGET_LABELS
                if metric not in series:
                    problems.append(f"{name}: variable {variable['name']}: {metric} is not in "
                                    f"{CONTRACT.name}")
                    continue
            if not known:
                problems.append(f"{name}: variable {variable['name']}: no label {label}")

    # Every metric of the contract is charted or alerted on, and documented.
    for metric, (kind, _) in sorted(contract.items()):
        parts = [metric + s for s in HISTOGRAM_SUFFIXES] if kind == "histogram" else [metric]
        if not used.intersection(parts):
            problems.append(f"{metric} is in {CONTRACT.name} but no dashboard or rule uses it")
    docs = DOCS.read_text(encoding="utf-8")
    for metric in sorted(contract):
        if f"`{metric}`" not in docs:
            problems.append(f"{metric} is in {CONTRACT.name} but not in docs/metrics.md")

    # One group per expression, so that promtool's message says where a bad one came from.
    groups = [{"name": f"{i:03d} {file}: {location}",
               "rules": [{"record": "hetbench_check:expr", "expr": expr}]}
              for i, (file, location, expr) in enumerate(expressions, 1)]
    with open(out, "w", encoding="utf-8") as f:
        yaml.safe_dump({"groups": groups}, f, sort_keys=False, width=1000)
    return problems.report(f"exprs: {len(expressions)} expressions use only the "
                           f"{len(contract)} metrics of {CONTRACT.name} and recording rules")


def check_dashboards():
    problems = Problems()
    files = {p.name: p for p in px.dashboard_files(ROOT)}
    if set(files) != set(DASHBOARDS):
        problems.append(f"dashboards: want {sorted(DASHBOARDS)}, found {sorted(files)}")
    panels_seen = 0
    for file, want in DASHBOARDS.items():
        if file not in files:
            continue
        d = json.loads(files[file].read_text(encoding="utf-8"))
        where = f"dashboards/{file}"
        if d.get("uid") != want["uid"]:
            problems.append(f"{where}: uid {d.get('uid')!r}, want {want['uid']!r}")
        if d.get("id") is not None:
            problems.append(f"{where}: id must be null, so that Grafana assigns its own")
        if not isinstance(d.get("schemaVersion"), int) or d["schemaVersion"] < 36:
            problems.append(f"{where}: schemaVersion {d.get('schemaVersion')!r}, want >= 36")
        variables = d.get("templating", {}).get("list", [])
        names = [v.get("name") for v in variables]
        if names != want["variables"]:
            problems.append(f"{where}: variables {names}, want {want['variables']}")
        for v in variables:
            if v.get("name") == "datasource":
                if v.get("type") != "datasource" or v.get("query") != "prometheus":
                    problems.append(f"{where}: $datasource must be a Prometheus data source variable")
                continue
            if v.get("type") != "query" or not px.parse_label_values(px.variable_query(v)):
                problems.append(f"{where}: variable {v.get('name')} must be label_values(...)")
            if v.get("definition", px.variable_query(v)) != px.variable_query(v):
                problems.append(f"{where}: variable {v.get('name')}: definition differs from "
                                f"the query that Grafana runs")
            if v.get("datasource") != {"type": "prometheus", "uid": "${datasource}"}:
                problems.append(f"{where}: variable {v.get('name')} must use ${{datasource}}")
            if v.get("includeAll") and v.get("allValue") != ".*":
                # Grafana's own "All" lists the values it knows, which leaves out the series
                # whose label is empty (an unknown accelerator, say).
                problems.append(f"{where}: variable {v.get('name')}: allValue must be .*")
        ids = []
        for panel in px.all_panels(d.get("panels", [])):
            panels_seen += 1
            ids.append(panel.get("id"))
            title = f'{where}: panel {panel.get("id")} "{panel.get("title")}"'
            if not panel.get("title"):
                problems.append(f"{title}: no title")
            if not isinstance(panel.get("gridPos"), dict):
                problems.append(f"{title}: no gridPos")
            if panel.get("type") == "row":
                continue
            if panel.get("datasource") != {"type": "prometheus", "uid": "${datasource}"}:
                problems.append(f"{title}: datasource must be the $datasource variable")
            if not panel.get("targets"):
                problems.append(f"{title}: no query")
            refs = [t.get("refId") for t in panel.get("targets", [])]
            if len(set(refs)) != len(refs):
                problems.append(f"{title}: refIds repeat: {refs}")
            for t in panel.get("targets", []):
                if t.get("datasource", panel["datasource"]) != panel["datasource"]:
                    problems.append(f"{title}: target {t.get('refId')} has its own datasource")
                if not t.get("expr"):
                    problems.append(f"{title}: target {t.get('refId')} has no expression")
        if len(set(ids)) != len(ids) or None in ids:
            problems.append(f"{where}: panel ids must be unique: {ids}")
        for a in d.get("annotations", {}).get("list", []):
            if a.get("builtIn"):
                continue
            if a.get("datasource") != {"type": "prometheus", "uid": "${datasource}"} or not a.get("expr"):
                problems.append(f'{where}: annotation "{a.get("name")}" must be a Prometheus '
                                f"query on $datasource")
    if "benchmarks.json" in files:
        d = json.loads(files["benchmarks.json"].read_text(encoding="utf-8"))
        annotations = d.get("annotations", {}).get("list", [])
        if not any("hetbench_benchmark_regressed" in a.get("expr", "") for a in annotations):
            problems.append("dashboards/benchmarks.json: no annotation query on "
                            "hetbench_benchmark_regressed")
        # Change points: Grafana takes the value, in milliseconds, as the annotation's time.
        if not any("hetbench_series_last_change_timestamp_seconds" in a.get("expr", "") and
                   a.get("useValueForTime") is True and "* 1000" in a.get("expr", "")
                   for a in annotations):
            problems.append("dashboards/benchmarks.json: no annotation at the time of "
                            "hetbench_series_last_change_timestamp_seconds (useValueForTime, "
                            "the value in ms)")
        if not any(p.get("repeat") == "series" for p in px.all_panels(d.get("panels", []))):
            problems.append("dashboards/benchmarks.json: no panel repeated per series")
    return problems.report(f"dashboards: {len(files)} dashboards, {panels_seen} panels")


def check_dashboard_tests():
    problems = Problems()
    summary = []
    for path, (what, reads) in DASHBOARD_TESTS.items():
        wanted = {(location, expr) for file, location, expr in px.expressions(ROOT)
                  if file.startswith(px.DASHBOARDS) and reads(expr) and
                  location.startswith(("panel ", "annotation "))}
        exprs = set()
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        for test in doc.get("tests", []):
            for case in test.get("promql_expr_test", []):
                exprs.add(case["expr"])
        for expr in sorted(exprs - {expr for _, expr in wanted}):
            problems.append(f"{path.name}: not a dashboard expression {what}: {expr}")
        for location, expr in sorted(wanted):
            if expr not in exprs:
                problems.append(f"{path.name}: no test of {location}: {expr}")
        summary.append(f"{path.name} tests the {len(wanted)} dashboard expressions {what}")
    return problems.report("dashboard-tests: " + "; ".join(summary))


def check_kustomize(path):
    problems = Problems()
    docs = [d for d in yaml.safe_load_all(pathlib.Path(path).read_text(encoding="utf-8")) if d]
    by_kind = {}
    cluster_scoped = ("ClusterRole", "ClusterRoleBinding")
    for d in docs:
        by_kind.setdefault(d["kind"], []).append(d)
        want_namespace = None if d["kind"] in cluster_scoped else "hetbench-system"
        if d["metadata"].get("namespace") != want_namespace:
            problems.append(f"{d['kind']} {d['metadata']['name']}: namespace "
                            f"{d['metadata'].get('namespace')!r}, want {want_namespace!r}")
    want = {"Service": 1, "ServiceMonitor": 1, "PrometheusRule": 1, "ConfigMap": 2,
            "ClusterRole": 1, "ClusterRoleBinding": 1}
    counts = {k: len(v) for k, v in by_kind.items()}
    if counts != want:
        problems.append(f"objects {counts}, want {want}")

    for svc in by_kind.get("Service", []):
        ports = svc["spec"].get("ports", [])
        if svc["metadata"]["name"] != "hetbench-operator-metrics" or \
                [(p.get("name"), p.get("port")) for p in ports] != [("metrics", 8080)] or \
                svc["spec"].get("selector") != {"app.kubernetes.io/name": "hetbench-operator"}:
            problems.append("the Service must be hetbench-operator-metrics, port metrics 8080, "
                            "selecting app.kubernetes.io/name: hetbench-operator")
    for sm in by_kind.get("ServiceMonitor", []):
        selector = sm["spec"].get("selector", {}).get("matchLabels", {})
        services = by_kind.get("Service", [])
        if not services or not all(services[0]["metadata"].get("labels", {}).get(k) == v
                                   for k, v in selector.items()):
            problems.append("the ServiceMonitor's selector does not match the Service's labels")
        endpoints = sm["spec"].get("endpoints", [])
        if not endpoints or any(e.get("port") != "metrics" or e.get("honorLabels") is not True
                                for e in endpoints):
            problems.append("every ServiceMonitor endpoint must scrape port metrics with "
                            "honorLabels: true")
        if any(e.get("scheme") != "https" or not e.get("bearerTokenFile") for e in endpoints):
            problems.append("every ServiceMonitor endpoint must scrape over https with "
                            "Prometheus' token (the operator serves /metrics to nobody else)")
    # Prometheus' token must be allowed get /metrics (the operator asks a SubjectAccessReview).
    readers = [r for r in by_kind.get("ClusterRole", [])
               if {"nonResourceURLs": ["/metrics"], "verbs": ["get"]} in r.get("rules", [])]
    bound = [b for b in by_kind.get("ClusterRoleBinding", [])
             if any(b.get("roleRef", {}).get("name") == r["metadata"]["name"] for r in readers)]
    if not readers or not bound:
        problems.append("no ClusterRole granting get on /metrics, bound to Prometheus")
    rendered_rules = by_kind.get("PrometheusRule", [{}])[0].get("spec")
    if rendered_rules != {"groups": px.rule_groups(ROOT)}:
        problems.append("the rendered PrometheusRule differs from prometheusrule.yaml")
    dashboards = {p.name: json.loads(p.read_text(encoding="utf-8"))
                  for p in px.dashboard_files(ROOT)}
    for cm in by_kind.get("ConfigMap", []):
        name = cm["metadata"]["name"]
        if cm["metadata"].get("labels", {}).get("grafana_dashboard") != "1":
            problems.append(f"ConfigMap {name}: no label grafana_dashboard: \"1\"")
        if not re.fullmatch(r"hetbench-dashboard-[a-z]+", name):
            problems.append(f"ConfigMap {name}: want a stable name hetbench-dashboard-NAME")
        for key, text in cm.get("data", {}).items():
            source = key.removeprefix("hetbench-")
            if json.loads(text) != dashboards.get(source):
                problems.append(f"ConfigMap {name}: {key} is not dashboards/{source}")
    return problems.report(f"kustomize: {sum(counts.values())} objects as expected")


def main(argv):
    if len(argv) == 3 and argv[1] == "rules-file":
        with open(argv[2], "w", encoding="utf-8") as f:
            yaml.safe_dump({"groups": px.rule_groups(ROOT)}, f, sort_keys=False, width=1000)
        return 0
    if len(argv) == 3 and argv[1] == "exprs":
        return check_exprs(argv[2])
    if len(argv) == 2 and argv[1] == "dashboards":
        return check_dashboards()
    if len(argv) == 2 and argv[1] == "dashboard-tests":
        return check_dashboard_tests()
    if len(argv) == 3 and argv[1] == "kustomize":
        return check_kustomize(argv[2])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
