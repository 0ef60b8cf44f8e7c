#!/usr/bin/python3
"""The Helm chart's values as users give them, through the real helm (no cluster).

  chart_helm_check.py schema HELM      values.yaml, passed explicitly, passes `helm lint --strict`
                                       and `helm template`; each wrong value of BAD_VALUES is
                                       refused by both, with a message naming the value
  chart_helm_check.py package HELM     scripts/chart-package makes a chart that passes
                                       `helm lint --strict`, holding the README that
                                       scripts/chart-readme writes, the schema, and the linked
                                       CRDs and files as their sources are
  chart_helm_check.py valuesets HELM   each value set of helm/hetbench/ci/ passes
                                       `helm lint --strict --values` and renders, with
                                       `helm template`, the objects VALUE_SETS says it should

Exit status: 0 passed, 1 failed, 77 skipped (HELM, which scripts/npm-tools fetches, is missing).
"""
import os
import pathlib
import subprocess
import sys
import tarfile
import tempfile

import yaml

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
CHART = ROOT / "helm" / "hetbench"
CI = CHART / "ci"
RELEASE = "hetbench"
NAMESPACE = "hetbench-system"
SKIPPED = 77

# (values, a fragment of helm's message). The fragment names the value, so that a user reading
# it knows what to change.
BAD_VALUES = [
    ({"replicas": "two"}, "replicas: Invalid type. Expected: integer, given: string"),
    ({"replicas": -1}, "replicas: Must be greater than or equal to 0"),
    ({"replica": 2}, "(root): Additional property replica is not allowed"),
    ({"rbac": {"scopee": "namespace"}}, "rbac: Additional property scopee is not allowed"),
    ({"rbac": {"scope": "everywhere"}},
     'rbac.scope: rbac.scope must be one of the following: "cluster", "namespace"'),
    ({"operator": {"logLevel": "verbose"}},
     "operator.logLevel: operator.logLevel must be one of the following: \"trace\""),
    ({"operator": {"logFormat": "yaml"}},
     'operator.logFormat: operator.logFormat must be one of the following: "text", "json"'),
    ({"operator": {"defaultQueueName": "GPU_batch"}},
     "operator.defaultQueueName: Does not match pattern"),
    ({"operator": {"maxConcurrentReconciles": 0}},
     "operator.maxConcurrentReconciles: Must be greater than or equal to 1"),
    ({"operator": {"maxConcurrentReconciles": 65}},
     "operator.maxConcurrentReconciles: Must be less than or equal to 64"),
    ({"operator": {"kubeApiQps": 0}}, "operator.kubeApiQps: Must be greater than or equal to 0.1"),
    ({"operator": {"logMaxBytes": 512}},
     "operator.logMaxBytes: Must be greater than or equal to 1024"),
    ({"operator": {"logStreams": 1.5}},
     "operator.logStreams: Invalid type. Expected: integer, given: number"),
    ({"operator": {"logRetention": "7d"}}, "operator.logRetention: Does not match pattern"),
    ({"operator": {"extraArgs": ["--namespace", "team-a"]}},
     "operator.extraArgs.1: Does not match pattern"),
    ({"operator": {"extraArgs": "--log-level=debug"}},
     "operator.extraArgs: Invalid type. Expected: array, given: string"),
    ({"operator": {"extraVolumeMounts": [{"name": "x", "mountPath": "relative"}]}},
     "operator.extraVolumeMounts.0.mountPath: Does not match pattern"),
    ({"leaderElection": {"leaseDuration": 15}},
     "leaderElection.leaseDuration: Invalid type. Expected: string, given: integer"),
    ({"ports": {"metrics": 70000}}, "ports.metrics: Must be less than or equal to 65535"),
    ({"ports": {"health": 0}}, "ports.health: Must be greater than or equal to 1"),
    ({"image": {"pullPolicy": "always"}},
     'image.pullPolicy: image.pullPolicy must be one of the following: "Always"'),
    ({"image": {"tag": 1.5}}, "image.tag: Invalid type. Expected: string, given: number"),
    ({"logVolume": {"type": "hostPath"}},
     'logVolume.type: logVolume.type must be one of the following: "emptyDir"'),
    ({"logVolume": {"size": "10GB"}}, "logVolume.size: Does not match pattern"),
    ({"logVolume": {"accessModes": ["ReadOnlyMany"]}},
     "logVolume.accessModes.0: logVolume.accessModes.0 must be one of the following"),
    ({"watchNamespaces": "team-a"},
     "watchNamespaces: Invalid type. Expected: array, given: string"),
    ({"watchNamespaces": ["Team_A"]}, "watchNamespaces.0: Does not match pattern"),
    ({"fullnameOverride": "Hetbench"}, "fullnameOverride: Does not match pattern"),
    ({"metricsService": {"enabled": "yes"}},
     "metricsService.enabled: Invalid type. Expected: boolean, given: string"),
    ({"serviceMonitor": {"enable": True}},
     "serviceMonitor: Additional property enable is not allowed"),
    ({"serviceMonitor": {"interval": 30}},
     "serviceMonitor.interval: Invalid type. Expected: string, given: integer"),
    ({"dashboards": {"labels": {"grafana_dashboard": 1}}},
     "dashboards.labels.grafana_dashboard: Invalid type. Expected: string, given: integer"),
    ({"securityContext": {"runAsNonRot": True}},
     "securityContext: Additional property runAsNonRot is not allowed"),
    ({"tolerations": [{"key": "dedicated", "operator": "Exist"}]},
     "tolerations.0.operator: tolerations.0.operator must be one of the following"),
    # Combinations, the schema's allOf: helm lint reports a template's `fail` only as [INFO].
    ({"replicas": 2, "leaderElection": {"enabled": False}},
     "leaderElection.enabled: leaderElection.enabled does not match: true"),
    ({"rbac": {"scope": "namespace"}}, "watchNamespaces: Array must have at least 1 items"),
    ({"serviceMonitor": {"enabled": True}, "metricsService": {"enabled": False}},
     "metricsService.enabled: metricsService.enabled does not match: true"),
    ({"serviceMonitor": {"prometheusServiceAccount": {"name": "prometheus"}}},
     "serviceMonitor.prometheusServiceAccount.namespace: String length must be greater than"),
    ({"logVolume": {"type": "persistentVolumeClaim", "size": ""}},
     "logVolume.size: String length must be greater than or equal to 1"),
]


class Helm:
    """The helm binary with its caches and configuration in a directory of its own."""

    def __init__(self, binary, home):
        self.binary = binary
        self.env = dict(os.environ, KUBECONFIG=str(home / "no-kubeconfig"),
                        HELM_CACHE_HOME=str(home / "cache"),
                        HELM_CONFIG_HOME=str(home / "config"),
                        HELM_DATA_HOME=str(home / "data"))

    def run(self, *args):
        """(exit status, output without the notes on the chart's symbolic links)."""
        result = subprocess.run([self.binary, *args], capture_output=True, text=True,
                                env=self.env, timeout=30)
        output = "\n".join(line for line in (result.stdout + result.stderr).splitlines()
                           if "found symbolic link in path" not in line)
        return result.returncode, output

    def lint(self, values_file):
        """Problems of `helm lint --strict -f values_file`, or []."""
        code, output = self.run("lint", "--strict", str(CHART), "-f", str(values_file))
        if code != 0 or "1 chart(s) linted, 0 chart(s) failed" not in output:
            return [f"helm lint --strict -f {values_file.name} fails:\n{output}"]
        return []

    def template(self, values_file):
        """The rendered objects, or a string saying why there are none."""
        code, output = self.run("template", RELEASE, str(CHART), "-n", NAMESPACE,
                                "-f", str(values_file))
        if code != 0:
            return f"helm template -f {values_file.name} fails:\n{output}"
        return [d for d in yaml.safe_load_all(output) if d]


def check_schema(helm, work):
    problems = []
    defaults = CHART / "values.yaml"
    problems += helm.lint(defaults)
    rendered = helm.template(defaults)
    if isinstance(rendered, str):
        problems.append(rendered)
    for number, (values, fragment) in enumerate(BAD_VALUES):
        path = work / f"bad-{number}.yaml"
        path.write_text(yaml.safe_dump(values))
        shown = yaml.safe_dump(values, default_flow_style=True).strip()
        for command in (("lint", "--strict", str(CHART)),
                        ("template", RELEASE, str(CHART), "-n", NAMESPACE)):
            code, output = helm.run(*command, "-f", str(path))
            if code == 0:
                problems.append(f"helm {command[0]} accepts {shown}")
            elif fragment not in output:
                problems.append(f"helm {command[0]} refuses {shown} without naming the value "
                                f"(want \"{fragment}\"):\n{output}")
    return problems, f"schema: values.yaml passes helm lint --strict and helm template; " \
                     f"{len(BAD_VALUES)} wrong values refused by both, each named"


# What each value set must render, as checks over the rendered objects.

def of_kind(objects, kind):
    return [o for o in objects if o["kind"] == kind]


def named(objects, kind, name, namespace=None):
    found = [o for o in of_kind(objects, kind) if o["metadata"]["name"] == name and
             (namespace is None or o["metadata"].get("namespace") == namespace)]
    return found[0] if found else None


def pod_spec(objects):
    return of_kind(objects, "Deployment")[0]["spec"]["template"]["spec"]


def args(objects):
    return pod_spec(objects)["containers"][0]["args"]


def expect(problems, condition, message):
    if not condition:
        problems.append(message)


def expect_kinds(problems, objects, present=(), absent=()):
    kinds = {o["kind"] for o in objects}
    for kind in present:
        expect(problems, kind in kinds, f"renders no {kind}")
    for kind in absent:
        expect(problems, kind not in kinds, f"renders a {kind}, which it should not")


def expect_operator_rbac_cluster_wide(problems, objects, fullname="hetbench-operator"):
    role = named(objects, "ClusterRole", fullname)
    binding = named(objects, "ClusterRoleBinding", fullname)
    expect(problems, role is not None and binding is not None,
           f"no ClusterRole and ClusterRoleBinding {fullname}")


def defaults(objects):
    problems = []
    expect_kinds(problems, objects, present=("Deployment", "ServiceAccount", "Service"),
                 absent=("ServiceMonitor", "PrometheusRule", "ConfigMap",
                         "PersistentVolumeClaim"))
    expect_operator_rbac_cluster_wide(problems, objects)
    for name in ("hetbench-view", "hetbench-edit", "hetbench-operator-endpoint-auth",
                 "hetbench-operator-metrics-reader"):
        expect(problems, named(objects, "ClusterRole", name), f"no ClusterRole {name}")
    expect(problems, named(objects, "Role", "hetbench-operator-leader-election", NAMESPACE),
           "no leader-election Role in the release's namespace")
    source = HERE.parent.parent / "manifests" / "operator" / "user-roles.yaml"
    for role in yaml.safe_load_all(source.read_text()):
        rendered = named(objects, "ClusterRole", role["metadata"]["name"])
        expect(problems, rendered is not None and rendered["rules"] == role["rules"] and
               role["metadata"]["labels"].items() <= rendered["metadata"]["labels"].items(),
               f"ClusterRole {role['metadata']['name']} differs from manifests/operator/"
               "user-roles.yaml in its rules or aggregation labels")
    deployment = of_kind(objects, "Deployment")[0]
    expect(problems, deployment["spec"]["replicas"] == 1, "replicas is not 1")
    volume = [v for v in pod_spec(objects)["volumes"] if v["name"] == "logs"][0]
    expect(problems, volume.get("emptyDir") == {"sizeLimit": "10Gi"},
           f"the log volume is {volume}, want a 10Gi emptyDir")
    for flag in ("--leader-elect", "--metrics-secure=true", "--logs-secure=true",
                 "--log-format=json", "--log-dir-max-bytes=8589934592"):
        expect(problems, flag in args(objects), f"args lack {flag}: {args(objects)}")
    expect(problems, not any(a.startswith("--namespace") for a in args(objects)),
           "watches chosen namespaces, want all")
    return problems


def monitoring(objects):
    problems = []
    monitor = named(objects, "ServiceMonitor", "hetbench-operator")
    expect(problems, monitor is not None, "no ServiceMonitor hetbench-operator")
    if monitor:
        endpoint = monitor["spec"]["endpoints"][0]
        expect(problems, monitor["metadata"]["labels"].get("release") == "kube-prometheus-stack",
               "the ServiceMonitor lacks the label release")
        expect(problems, endpoint.get("scheme") == "https" and endpoint.get("interval") == "15s"
               and endpoint.get("tlsConfig") == {"insecureSkipVerify": True},
               f"the ServiceMonitor's endpoint is {endpoint}")
    rule = named(objects, "PrometheusRule", "hetbench-operator")
    expect(problems, rule is not None and rule["spec"].get("groups"),
           "no PrometheusRule hetbench-operator with rule groups")
    dashboards = sorted(p.stem for p in (CHART / "files" / "dashboards").glob("*.json"))
    config_maps = of_kind(objects, "ConfigMap")
    expect(problems, sorted(c["metadata"]["name"] for c in config_maps) ==
           [f"hetbench-dashboard-{d}" for d in dashboards],
           f"the dashboards' ConfigMaps are {[c['metadata']['name'] for c in config_maps]}, "
           f"want one for each of {dashboards}")
    for config_map in config_maps:
        expect(problems, config_map["metadata"]["namespace"] == "monitoring" and
               config_map["metadata"]["labels"].get("grafana_dashboard") == "1",
               f"ConfigMap {config_map['metadata']['name']} is not in monitoring with "
               "grafana_dashboard: \"1\"")
    binding = named(objects, "ClusterRoleBinding", "hetbench-operator-metrics-reader")
    expect(problems, binding is not None and binding["subjects"] == [
        {"kind": "ServiceAccount", "name": "kube-prometheus-stack-prometheus",
         "namespace": "monitoring"}],
        "Prometheus' service account is not bound to hetbench-operator-metrics-reader")
    return problems


def monitoring_tls(objects):
    problems = []
    spec = pod_spec(objects)
    expect(problems, "--tls-cert-dir=/etc/hetbench/tls" in args(objects),
           "args lack --tls-cert-dir")
    expect(problems, {"name": "tls", "secret": {"secretName": "hetbench-operator-tls"}}
           in spec["volumes"], "no volume of the Secret hetbench-operator-tls")
    expect(problems, {"name": "tls", "mountPath": "/etc/hetbench/tls", "readOnly": True}
           in spec["containers"][0]["volumeMounts"], "the Secret is not mounted read-only")
    monitor = named(objects, "ServiceMonitor", "hetbench-operator")
    tls = monitor["spec"]["endpoints"][0].get("tlsConfig") if monitor else None
    expect(problems, tls is not None and "insecureSkipVerify" not in tls and
           tls.get("ca", {}).get("secret", {}).get("name") == "hetbench-operator-tls",
           f"the ServiceMonitor's tlsConfig is {tls}, want the values' CA and no "
           "insecureSkipVerify")
    return problems


def insecure_endpoints(objects):
    problems = []
    for name in ("hetbench-operator-endpoint-auth", "hetbench-operator-metrics-reader"):
        expect(problems, named(objects, "ClusterRole", name) is None,
               f"renders ClusterRole {name}, which plain HTTP does not need")
    for flag in ("--metrics-secure=false", "--logs-secure=false"):
        expect(problems, flag in args(objects), f"args lack {flag}")
    monitor = named(objects, "ServiceMonitor", "hetbench-operator")
    endpoint = monitor["spec"]["endpoints"][0] if monitor else {}
    expect(problems, monitor is not None and "scheme" not in endpoint and
           "tlsConfig" not in endpoint, f"the ServiceMonitor's endpoint is {endpoint}, want HTTP")
    return problems


def no_metrics_service(objects):
    problems = []
    expect_kinds(problems, objects, present=("Deployment",), absent=("Service", "ServiceMonitor"))
    expect(problems, any(a.startswith("--metrics-bind-address=:8080") for a in args(objects)),
           "the operator no longer serves /metrics")
    return problems


def ha_persistence(objects):
    problems = []
    deployment = of_kind(objects, "Deployment")[0]
    expect(problems, deployment["spec"]["replicas"] == 2, "replicas is not 2")
    for flag in ("--leader-elect", "--leader-election-id=hetbench-lab-a",
                 "--leader-elect-lease-duration=30s", "--leader-elect-renew-deadline=20s",
                 "--leader-elect-retry-period=5s", "--log-dir-max-bytes=42949672960"):
        expect(problems, flag in args(objects), f"args lack {flag}: {args(objects)}")
    role = named(objects, "Role", "hetbench-operator-leader-election", NAMESPACE)
    expect(problems, role is not None and
           {"apiGroups": ["coordination.k8s.io"], "resources": ["leases"],
            "resourceNames": ["hetbench-lab-a"], "verbs": ["get", "update"]} in role["rules"],
           "the leader-election Role is not limited to the Lease hetbench-lab-a")
    claim = named(objects, "PersistentVolumeClaim", "hetbench-operator-logs", NAMESPACE)
    expect(problems, claim is not None, "no PersistentVolumeClaim hetbench-operator-logs")
    if claim:
        expect(problems, claim["spec"] == {
            "accessModes": ["ReadWriteMany"], "storageClassName": "nfs-client",
            "resources": {"requests": {"storage": "50Gi"}}}, f"the claim is {claim['spec']}")
        expect(problems, claim["metadata"]["annotations"].get("helm.sh/resource-policy") ==
               "keep", "the claim is not kept on uninstall")
    volume = [v for v in pod_spec(objects)["volumes"] if v["name"] == "logs"][0]
    expect(problems, volume.get("persistentVolumeClaim") ==
           {"claimName": "hetbench-operator-logs"}, f"the log volume is {volume}")
    return problems


def existing_claim(objects):
    problems = []
    expect_kinds(problems, objects, absent=("PersistentVolumeClaim",))
    volume = [v for v in pod_spec(objects)["volumes"] if v["name"] == "logs"][0]
    expect(problems, volume.get("persistentVolumeClaim") == {"claimName": "hetbench-logs"},
           f"the log volume is {volume}, want the claim hetbench-logs")
    return problems


def no_leader_election(objects):
    problems = []
    expect(problems, named(objects, "Role", "hetbench-operator-leader-election") is None and
           named(objects, "RoleBinding", "hetbench-operator-leader-election") is None,
           "renders the leader-election Role or RoleBinding, though there is no Lease")
    expect(problems, not any(a.startswith("--leader-elect") for a in args(objects)),
           f"args have leader-election flags: {args(objects)}")
    expect_operator_rbac_cluster_wide(problems, objects)
    return problems


def namespace_scope(objects):
    problems = []
    expect(problems, named(objects, "ClusterRole", "hetbench-operator") is None and
           named(objects, "ClusterRoleBinding", "hetbench-operator") is None,
           "the operator's rules are still granted cluster-wide")
    for namespace in ("team-a", "team-b"):
        role = named(objects, "Role", "hetbench-operator", namespace)
        binding = named(objects, "RoleBinding", "hetbench-operator", namespace)
        expect(problems, role is not None and binding is not None and
               binding["subjects"][0]["namespace"] == NAMESPACE,
               f"no Role and RoleBinding hetbench-operator in {namespace} for the operator")
    expect(problems, named(objects, "ClusterRoleBinding", "hetbench-operator-endpoint-auth"),
           "the endpoints' TokenReviews are no longer granted")
    scoped = named(objects, "ClusterRole", "hetbench-operator-cluster-scoped")
    expect(problems, scoped is not None and scoped["rules"] == [
        {"apiGroups": ["hetbench.io"], "resources": ["benchmarksystems"],
         "verbs": ["get", "list", "watch"]},
        {"apiGroups": ["hetbench.io"], "resources": ["slurmclusters"],
         "verbs": ["get", "list", "watch"]},
        {"apiGroups": ["hetbench.io"], "resources": ["slurmclusters/status"],
         "verbs": ["update"]}] and
           named(objects, "ClusterRoleBinding", "hetbench-operator-cluster-scoped"),
           "BenchmarkSystems and SlurmClusters are not granted, or more than them is granted "
           "cluster-wide")
    expect(problems, "--namespace=team-a,team-b" in args(objects),
           f"args lack --namespace=team-a,team-b: {args(objects)}")
    return problems


def no_rbac(objects):
    problems = []
    expect(problems, sorted(o["kind"] for o in objects) == ["Deployment", "Service"],
           f"renders {sorted(o['kind'] for o in objects)}, want only the Deployment and the "
           "metrics Service")
    expect(problems, pod_spec(objects)["serviceAccountName"] == "hetbench-platform",
           "the pod does not run as hetbench-platform")
    return problems


def customized(objects):
    problems = []
    spec = pod_spec(objects)
    container = spec["containers"][0]
    expect(problems, container["image"] == "registry.example.org/hetbench/operator:0.1.0-rc1"
           and container["imagePullPolicy"] == "Always", f"the image is {container['image']}")
    expect(problems, spec.get("imagePullSecrets") == [{"name": "registry-example-org"}],
           "no imagePullSecrets")
    expect(problems, named(objects, "Deployment", "benchmarks") and
           named(objects, "Service", "benchmarks-metrics") and
           named(objects, "ClusterRole", "benchmarks-endpoint-auth"),
           "the objects are not named after fullnameOverride")
    for obj in objects:
        expect(problems, obj["metadata"].get("labels", {}).get("team") == "ml-platform",
               f"{obj['kind']} {obj['metadata']['name']} lacks commonLabels")
    template = of_kind(objects, "Deployment")[0]["spec"]["template"]["metadata"]
    expect(problems, template["labels"].get("tier") == "control" and
           template.get("annotations") == {"example.org/owner": "ml-platform"},
           "the pod lacks podLabels or podAnnotations")
    levels = [a for a in args(objects) if a.startswith("--log-level")]
    expect(problems, levels == ["--log-level=debug"],
           f"log-level flags {levels}, want extraArgs' alone (the operator refuses two)")
    expect(problems, "--log-sweep-interval=5m" in args(objects), "extraArgs not passed")
    expect(problems, "--default-queue-name=gpu-batch" in args(objects),
           "operator.defaultQueueName not passed")
    expect(problems, container["resources"]["limits"] == {"cpu": "2", "memory": "1Gi"},
           "resources not passed")
    expect(problems, {"name": "slurm-output", "persistentVolumeClaim": {"claimName": "cirrus-work"}}
           in spec["volumes"] and
           {"name": "slurm-output", "mountPath": "/mnt/cirrus-work"} in container["volumeMounts"] and
           {"name": "logs", "mountPath": "/var/lib/hetbench/logs"} in container["volumeMounts"],
           "operator.extraVolumes or extraVolumeMounts not passed beside the logs volume")
    expect(problems, spec.get("nodeSelector") == {"node-role.example.org/control": "true"} and
           spec.get("tolerations", [{}])[0].get("key") == "dedicated" and
           spec.get("priorityClassName") == "system-cluster-critical",
           "the pod's placement is not as set")
    return problems


VALUE_SETS = {
    "defaults-values.yaml": defaults,
    "monitoring-values.yaml": monitoring,
    "monitoring-tls-values.yaml": monitoring_tls,
    "insecure-endpoints-values.yaml": insecure_endpoints,
    "no-metrics-service-values.yaml": no_metrics_service,
    "ha-persistence-values.yaml": ha_persistence,
    "existing-claim-values.yaml": existing_claim,
    "no-leader-election-values.yaml": no_leader_election,
    "namespace-scope-values.yaml": namespace_scope,
    "no-rbac-values.yaml": no_rbac,
    "customized-values.yaml": customized,
}


def check_valuesets(helm, work):
    problems = []
    files = sorted(p.name for p in CI.iterdir())
    for name in files:
        if name not in VALUE_SETS:
            problems.append(f"ci/{name}: no check in VALUE_SETS says what it should render")
    for name in sorted(VALUE_SETS):
        if name not in files:
            problems.append(f"ci/{name} is missing")
    for name in files:
        if name not in VALUE_SETS:
            continue
        path = CI / name
        problems += [f"ci/{name}: {p}" for p in helm.lint(path)]
        rendered = helm.template(path)
        if isinstance(rendered, str):
            problems.append(f"ci/{name}: {rendered}")
            continue
        problems += [f"ci/{name}: {p}" for p in VALUE_SETS[name](rendered)]
    return problems, f"valuesets: {len(files)} value sets of ci/ lint and render what they " \
                     "should"


def check_package(helm, work):
    problems = []
    result = subprocess.run([str(ROOT / "scripts" / "chart-package"), str(work / "out")],
                            capture_output=True, text=True, env=dict(helm.env, HELM=helm.binary),
                            timeout=60)
    packages = sorted((work / "out").glob("hetbench-*.tgz"))
    if result.returncode != 0 or len(packages) != 1:
        return [f"scripts/chart-package exited {result.returncode} making {packages}:\n"
                f"{result.stdout}{result.stderr}"], ""
    code, output = helm.run("lint", "--strict", str(packages[0]))
    if code != 0 or "1 chart(s) linted, 0 chart(s) failed" not in output:
        problems.append(f"helm lint --strict {packages[0].name} fails:\n{output}")
    readme = subprocess.run([str(ROOT / "scripts" / "chart-readme")], capture_output=True,
                            text=True, timeout=30, check=True).stdout
    want = {"README.md": readme}
    for path in [CHART / "values.schema.json", CHART / "values.yaml",
                 *sorted((CHART / "crds").iterdir()), *sorted((CHART / "files").rglob("*.*"))]:
        want[str(path.relative_to(CHART))] = path.read_text()
    with tarfile.open(packages[0]) as archive:
        names = archive.getnames()
        for name, text in want.items():
            member = f"hetbench/{name}"
            if member not in names:
                problems.append(f"the package lacks {name}")
            elif archive.extractfile(member).read().decode() != text:
                problems.append(f"the package's {name} differs from its source")
        links = [m.name for m in archive.getmembers() if m.issym() or m.islnk()]
    if links:
        problems.append(f"the package holds links {links}")
    return problems, f"package: {packages[0].name} lints, with the generated README and " \
                     f"{len(want) - 1} files as their sources are"


def main(argv):
    checks = {"schema": check_schema, "valuesets": check_valuesets, "package": check_package}
    if len(argv) != 3 or argv[1] not in checks:
        print(__doc__, file=sys.stderr)
        return 2
    binary = os.path.abspath(argv[2])
    if not os.access(binary, os.X_OK):
        print(f"{binary} not found (scripts/npm-tools fetches helm): skipped")
        return SKIPPED
    with tempfile.TemporaryDirectory(prefix="chart-helm-check-") as work:
        work = pathlib.Path(work)
        problems, summary = checks[argv[1]](Helm(binary, work), work)
    if problems:
        print("\n".join(f"FAIL {p}" for p in problems))
        return 1
    print(summary)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
