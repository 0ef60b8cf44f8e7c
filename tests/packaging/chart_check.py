#!/usr/bin/python3
"""Static checks of the Helm chart helm/hetbench (helm itself is not installed here).

  chart_check.py values    every .Values path the templates use is in values.yaml and in
                           values.schema.json, and every top-level value is used
  chart_check.py actions   every template's {{ }} balance, its if/range/with/define blocks are
                           closed, and the names of include/template and define match
  chart_check.py readme    values.schema.json is a valid draft-07 schema, values.yaml is valid
                           against it, the two name the same values (each typed and described),
                           and scripts/chart-readme's table has a row for each value and uses
                           every comment of values.yaml
  chart_check.py sources   the chart's CRDs, rules, dashboards and user roles are links to
                           crds/, manifests/observability/ and manifests/operator/ (one copy
                           each), and its RBAC rules are those of
                           manifests/operator/clusterrole.yaml

Each prints what it found wrong and exits 1, or prints a one-line summary and exits 0.
"""
import importlib.machinery
import importlib.util
import json
import os
import pathlib
import re
import subprocess
import sys

import jsonschema
import yaml

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
CHART = ROOT / "helm" / "hetbench"
TEMPLATES = CHART / "templates"
README_SCRIPT = ROOT / "scripts" / "chart-readme"

ACTION = re.compile(r"{{-?(.*?)-?}}", re.DOTALL)
VALUES_PATH = re.compile(r"\$?\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)+)")
OPENERS = ("if", "range", "with", "define", "block")


def templates():
    return sorted(p for p in TEMPLATES.iterdir() if p.is_file())


def actions(text):
    """The text inside each {{ }} with comments dropped."""
    out = []
    for match in ACTION.finditer(text):
        body = match.group(1).strip()
        if body.startswith("/*"):
            continue
        out.append(body)
    return out


def chart_readme():
    """scripts/chart-readme as a module, for its reading of the schema (rows, is_group)."""
    loader = importlib.machinery.SourceFileLoader("chart_readme", str(README_SCRIPT))
    spec = importlib.util.spec_from_loader("chart_readme", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def in_schema(schema, keys):
    """Whether the schema has the value at keys: through the chart's own objects' properties;
    below any other object (labels, resources) every key is data the schema checks by type."""
    node = schema
    for key in keys:
        while "$ref" in node:
            node = chart_readme().resolve(schema, node)
        if "properties" not in node:
            return node.get("type") == "object"
        if key not in node["properties"]:
            return False
        node = node["properties"][key]
    return True


def check_values():
    values = yaml.safe_load((CHART / "values.yaml").read_text())
    schema = json.loads((CHART / "values.schema.json").read_text())
    problems = []
    used_top = set()
    count = 0
    for path in templates():
        for action in actions(path.read_text()):
            for match in VALUES_PATH.finditer(action):
                keys = match.group(1).strip(".").split(".")
                count += 1
                used_top.add(keys[0])
                node = values
                for depth, key in enumerate(keys):
                    if not isinstance(node, dict) or key not in node:
                        problems.append(f"{path.name}: .Values.{'.'.join(keys)}: "
                                        f"{'.'.join(keys[:depth + 1])} is not in values.yaml")
                        break
                    node = node[key]
                if not in_schema(schema, keys):
                    problems.append(f"{path.name}: .Values.{'.'.join(keys)} is not in "
                                    "values.schema.json")
    for key in sorted(set(values) - used_top):
        problems.append(f"values.yaml: {key} is used by no template")
    return problems, f"values: {count} .Values references, all in values.yaml and the schema; " \
                     f"all {len(values)} top-level values used"


def check_actions():
    problems = []
    defined, included = {}, {}
    for path in templates():
        text = path.read_text()
        opens, closes = text.count("{{"), text.count("}}")
        if opens != closes:
            problems.append(f"{path.name}: {opens} '{{{{' but {closes} '}}}}'")
        stack = []
        for action in actions(text):
            word = action.split()[0] if action.split() else ""
            if word in OPENERS:
                stack.append(word)
                if word in ("define", "block"):
                    name = re.match(r'\w+\s+"([^"]+)"', action)
                    if name:
                        defined.setdefault(name.group(1), path.name)
            elif word == "end":
                if not stack:
                    problems.append(f"{path.name}: an end without an open block")
                else:
                    stack.pop()
            elif word in ("else",) and not stack:
                problems.append(f"{path.name}: else outside a block")
            for name in re.findall(r'\b(?:include|template)\s+"([^"]+)"', action):
                included.setdefault(name, path.name)
        if stack:
            problems.append(f"{path.name}: unclosed {', '.join(stack)}")
    for name, where in sorted(included.items()):
        if name not in defined:
            problems.append(f"{where}: includes \"{name}\", which no template defines")
    for name, where in sorted(defined.items()):
        if name not in included:
            problems.append(f"{where}: defines \"{name}\", which nothing includes")
    return problems, f"actions: {len(templates())} templates balanced; {len(defined)} defines, " \
                     "each included"


def check_readme():
    problems = []
    schema = json.loads((CHART / "values.schema.json").read_text())
    values_text = (CHART / "values.yaml").read_text()
    values = yaml.safe_load(values_text)
    try:
        jsonschema.Draft7Validator.check_schema(schema)
    except jsonschema.SchemaError as error:
        return [f"values.schema.json is not a draft-07 schema: {error.message}"], ""
    for error in jsonschema.Draft7Validator(schema).iter_errors(values):
        problems.append(f"values.yaml: {'.'.join(map(str, error.path))}: {error.message}")

    generator = chart_readme()
    # Both ways: each value of values.yaml in the schema's object, each property in values.yaml.
    def agree(node, value, prefix):
        if not isinstance(value, dict):
            problems.append(f"values.yaml: {'.'.join(prefix)} is an object in the schema")
            return
        named = set(node["properties"]) - (generator.HELM_KEYS if not prefix else set())
        for key in sorted(set(value) - named):
            problems.append(f"values.yaml: {'.'.join(prefix + (key,))} is not in the schema")
        for key in sorted(named - set(value)):
            problems.append(f"values.schema.json: {'.'.join(prefix + (key,))} is not in "
                            "values.yaml")
        for key in sorted(named & set(value)):
            child = node["properties"][key]
            if generator.is_group(child):
                agree(child, value[key], prefix + (key,))

    agree(schema, values, ())
    rows = [".".join(path) for path, _ in generator.rows(schema)]
    for path, node in generator.rows(schema):
        target = generator.resolve(schema, node)
        if not node.get("description") or "type" not in target:
            problems.append(f"values.schema.json: {'.'.join(path)} lacks a description or type")

    result = subprocess.run([sys.executable, str(README_SCRIPT)], capture_output=True, text=True,
                            timeout=30)
    if result.returncode != 0:
        return problems + [f"scripts/chart-readme exited {result.returncode}: {result.stderr}"], ""
    readme = result.stdout
    table = [line for line in readme.splitlines() if line.startswith("| `")]
    keys = [line.split("`")[1] for line in table]
    if keys != rows:
        problems.append(f"the README's rows {sorted(set(keys) ^ set(rows))} differ from the "
                        "schema's values")
    for line in table:
        cells = [c.strip() for c in line.strip("|").split(" | ")]
        if len(cells) != 4 or not cells[1] or not cells[3]:
            problems.append(f"README row without four cells, a type and a description: {line}")
    for path, comment in generator.comments(values_text).items():
        if comment not in readme:
            problems.append(f"the README lacks the comment of {'.'.join(path)} in values.yaml")
    for rule in schema.get("allOf", []):
        if rule.get("description", "") == "" or rule["description"] not in readme:
            problems.append(f"the README lacks the schema rule {rule}")
    return problems, f"readme: values.yaml and values.schema.json agree on {len(rows)} values, " \
                     "and the generated README lists each"


def link_target(path):
    """Where a link in the chart points, or None when it is not a link into the repository."""
    if not path.is_symlink():
        return None
    target = pathlib.Path(os.path.realpath(path))
    return target if ROOT in target.parents else None


def check_linked(problems, chart_dir, source_dir, pattern, exclude=()):
    sources = sorted(p.name for p in source_dir.glob(pattern) if p.name not in exclude)
    linked = sorted(p.name for p in chart_dir.iterdir()) if chart_dir.is_dir() else []
    if linked != sources:
        problems.append(f"{chart_dir.relative_to(ROOT)} holds {linked}, want {sources} "
                        f"(those of {source_dir.relative_to(ROOT)})")
    for name in linked:
        path = chart_dir / name
        target = link_target(path)
        if target != (source_dir / name).resolve():
            problems.append(f"{path.relative_to(ROOT)} must be a link to "
                            f"{(source_dir / name).relative_to(ROOT)}, so that it cannot drift")
    return len(linked)


def rules_of_helper(name):
    text = (TEMPLATES / "_helpers.tpl").read_text()
    found = re.search(r'{{-?\s*define "' + re.escape(name) + r'"\s*-?}}(.*?){{-?\s*end\s*-?}}',
                      text, re.DOTALL)
    if not found:
        return None
    return yaml.safe_load(found.group(1))


def check_sources():
    problems = []
    # crds/kustomization.yaml is for kustomize; Helm would send it to the cluster as a CRD.
    count = check_linked(problems, CHART / "crds", ROOT / "crds", "*.yaml",
                         exclude=("kustomization.yaml",))
    count += check_linked(problems, CHART / "files" / "dashboards",
                          ROOT / "manifests" / "observability" / "dashboards", "*.json")
    rule = CHART / "files" / "prometheusrule.yaml"
    want = (ROOT / "manifests" / "observability" / "prometheusrule.yaml").resolve()
    if link_target(rule) != want:
        problems.append("helm/hetbench/files/prometheusrule.yaml must be a link to "
                        "manifests/observability/prometheusrule.yaml")
    count += 1
    roles = CHART / "files" / "user-roles.yaml"
    if link_target(roles) != (ROOT / "manifests" / "operator" / "user-roles.yaml").resolve():
        problems.append("helm/hetbench/files/user-roles.yaml must be a link to "
                        "manifests/operator/user-roles.yaml")
    count += 1

    for helper_name, source in (("hetbench.rules", "operator/clusterrole.yaml"),
                                ("hetbench.endpointAuthRules", "operator/endpoint-auth.yaml"),
                                ("hetbench.metricsReaderRules",
                                 "observability/metrics-reader.yaml")):
        cluster_roles = [d for d in yaml.safe_load_all((ROOT / "manifests" / source).read_text())
                         if d and d["kind"] == "ClusterRole"]
        helper = rules_of_helper(helper_name)
        if helper is None:
            problems.append(f"templates/_helpers.tpl defines no {helper_name}")
        elif len(cluster_roles) != 1 or helper != cluster_roles[0]["rules"]:
            problems.append(f"the rules of {helper_name} (templates/_helpers.tpl) differ from "
                            f"those of manifests/{source}")
    return problems, f"sources: {count} chart files link to their one copy; the RBAC rules " \
                     "match manifests/operator"


def main(argv):
    checks = {"values": check_values, "actions": check_actions, "sources": check_sources,
              "readme": check_readme}
    if len(argv) != 2 or argv[1] not in checks:
        print(__doc__, file=sys.stderr)
        return 2
    problems, summary = checks[argv[1]]()
    if problems:
        print("\n".join(f"FAIL {p}" for p in problems))
        return 1
    print(summary)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
