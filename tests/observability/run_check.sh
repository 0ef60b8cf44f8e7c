#!/usr/bin/env bash
# The checks of manifests/observability/, one per CTest test (tests/observability/CMakeLists.txt).
# Usage: run_check.sh CHECK WORKDIR, where WORKDIR is a scratch directory (emptied first; left
# for inspection) and CHECK is one of:
#   rules       the PrometheusRule's spec is a valid rules file (promtool check rules, lint fatal)
#   unit        the rules pass rules_test.yaml and rules_history_test.yaml, and the dashboards'
#               expressions over the series gauges pass dashboards_test.yaml and those over
#               dcgm-exporter's metrics dashboards_dcgm_test.yaml, which must test each of them
#               (promtool test rules, check.py)
#   exprs       every expression of the rules and dashboards parses (promtool) and uses only the
#               metrics and labels of metric_names.txt (check.py)
#   dashboards  the dashboards' structure (check.py)
#   kustomize   kubectl kustomize manifests/observability renders what is expected; exits 77
#               (skipped) where kubectl is not installed
set -euo pipefail
check=$1
work=$2
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)

need() {
  command -v "$1" >/dev/null || { echo "$1 not installed: run scripts/setup"; exit 1; }
}
# Debian's python3 with python3-yaml (scripts/setup), whatever python3 comes first on PATH.
python=/usr/bin/python3
[ -x "$python" ] || { echo "$python not installed: run scripts/setup"; exit 1; }
"$python" -c 'import yaml' 2>/dev/null || { echo "$python lacks yaml: run scripts/setup"; exit 1; }
rm -rf "$work"
mkdir -p "$work"

case $check in
  rules)
    need promtool
    "$python" "$here/check.py" rules-file "$work/hetbench-rules.yaml"
    promtool check rules --lint-fatal "$work/hetbench-rules.yaml"
    ;;
  unit)
    need promtool
    "$python" "$here/check.py" rules-file "$work/hetbench-rules.yaml"
    "$python" "$here/check.py" dashboard-tests
    cp "$here/rules_test.yaml" "$here/rules_history_test.yaml" "$here/dashboards_test.yaml" \
      "$here/dashboards_dcgm_test.yaml" "$work/"
    promtool test rules "$work/rules_test.yaml" "$work/rules_history_test.yaml" \
      "$work/dashboards_test.yaml" "$work/dashboards_dcgm_test.yaml"
    ;;
  exprs)
    need promtool
    status=0
    "$python" "$here/check.py" exprs "$work/exprs.yaml" || status=1
    if [ -f "$work/exprs.yaml" ]; then
      promtool check rules --lint=none "$work/exprs.yaml" || status=1
    fi
    exit $status
    ;;
  dashboards)
    "$python" "$here/check.py" dashboards
    ;;
  kustomize)
    command -v kubectl >/dev/null || { echo "kubectl not installed: skipped"; exit 77; }
    kubectl kustomize "$root/manifests/observability" >"$work/rendered.yaml"
    "$python" "$here/check.py" kustomize "$work/rendered.yaml"
    ;;
  *)
    echo "unknown check: $check" >&2
    exit 2
    ;;
esac
