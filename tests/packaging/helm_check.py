#!/usr/bin/python3
"""The Helm chart (helm/hetbench) through the real helm, against kubesim (packaging.helm).

  helm_check.py WORK HELM KUBESIM OPERATOR

`helm lint --strict` and `helm template` pass. On a kubesim whose image hetbench/operator:kubesim
is the built OPERATOR: `helm install --wait` starts the operator Deployment's pod, which runs the
first BenchmarkRun of examples/lab-smoke.yaml to Succeeded; `helm upgrade --wait` with another
operator.logLevel rolls the Deployment out to a pod with the new flag and no pod of the old
template; `helm test` passes (the chart has no test hooks); `helm uninstall --wait` removes every
object of the release but the CRDs, which stay (Helm's crds/ convention), and the operator's
process with its pod.

The operator in the pod reaches kubesim through WORK/kubeconfig and listens on 127.0.0.1:0
(operator.extraArgs): kubesim's pods share the host's network and file system, and mount no
service-account token (docs/kubesim.md). WORK is emptied first and left for inspection. Exit
status: 0 passed, 1 failed, 77 skipped (helm not fetched by scripts/npm-tools, or no kubectl).
"""
import json
import os
import pathlib
import subprocess
import sys

import yaml

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from packaging_test import (ROOT, SKIPPED, Failure, Kubesim, deadline_loop,  # noqa: E402
                            load_documents, run_with_kubectl)

CHART = ROOT / "helm" / "hetbench"
SAMPLE = ROOT / "examples" / "lab-smoke.yaml"
IMAGE_TAG = "kubesim"
RELEASE = "hetbench"
NAMESPACE = "hetbench-system"
DEPLOYMENT = "hetbench-operator"
HELM_TIMEOUT = "60s"


class Helm:
    """The helm binary against one kubesim, with its caches and configuration under WORK."""

    def __init__(self, binary, work, cluster):
        self.binary = binary
        self.cluster = cluster
        self.env = dict(os.environ, KUBECONFIG=str(cluster.kubeconfig) if cluster else "",
                        HELM_CACHE_HOME=str(work / "helm" / "cache"),
                        HELM_CONFIG_HOME=str(work / "helm" / "config"),
                        HELM_DATA_HOME=str(work / "helm" / "data"))

    def __call__(self, *args):
        """Runs helm; returns its output, or fails with it and kubesim's log tail."""
        result = subprocess.run([self.binary, *args], capture_output=True, text=True,
                                env=self.env, timeout=120)
        # Helm notes every symbolic link it follows in the chart (docs/deploy.md: on purpose).
        output = "\n".join(line for line in (result.stdout + result.stderr).splitlines()
                           if "found symbolic link in path" not in line)
        if result.returncode != 0:
            raise Failure(f"helm {' '.join(args)} exited {result.returncode}:\n{output}"
                          f"{self.cluster_log()}")
        return output

    def cluster_log(self):
        if self.cluster is None:
            return ""
        lines = self.cluster.log_path.read_text(errors="replace").splitlines()
        return "\nkubesim's log (last 40 lines):\n" + "\n".join(lines[-40:])


def get_json(cluster, *args):
    _, output = cluster.kubectl("get", "-o", "json", *args)
    return json.loads(output)


def wait_for(what, condition, helm, seconds=60):
    """Waits until condition() returns a true value, which it returns; else fails with `what`."""
    for _ in deadline_loop(seconds, 0.2):
        value = condition()
        if value:
            return value
    raise Failure(f"timed out after {seconds}s waiting for {what}{helm.cluster_log()}")


def operator_pods(cluster):
    selector = f"app.kubernetes.io/name=hetbench-operator,app.kubernetes.io/instance={RELEASE}"
    return get_json(cluster, "pods", "-n", NAMESPACE, "-l", selector)["items"]


def is_ready(pod):
    return pod.get("status", {}).get("phase") == "Running" and any(
        c["type"] == "Ready" and c["status"] == "True"
        for c in pod.get("status", {}).get("conditions", []))


def container_args(pod_or_deployment):
    spec = pod_or_deployment["spec"]
    spec = spec["template"]["spec"] if "template" in spec else spec
    return spec["containers"][0].get("args", [])


def check_render(helm):
    lint = helm("lint", "--strict", str(CHART))
    if "1 chart(s) linted, 0 chart(s) failed" not in lint:
        raise Failure(f"helm lint --strict did not pass:\n{lint}")
    objects = load_documents(helm("template", RELEASE, str(CHART), "-n", NAMESPACE))
    kinds = sorted({o["kind"] for o in objects})
    for want in ("ClusterRole", "ClusterRoleBinding", "Deployment", "Role", "RoleBinding",
                 "Service", "ServiceAccount"):
        if want not in kinds:
            raise Failure(f"helm template renders no {want} (kinds: {kinds})")
    print(f"render: helm lint --strict passes; helm template renders {len(objects)} objects")


def check_install(helm, cluster, values):
    helm("install", RELEASE, str(CHART), "-n", NAMESPACE, "--create-namespace", "-f", str(values),
         "--wait", "--timeout", HELM_TIMEOUT)
    pods = wait_for("the operator Deployment's pod to be Running and ready",
                    lambda: [p for p in operator_pods(cluster) if is_ready(p)], helm)
    if len(pods) != 1:
        raise Failure(f"{len(pods)} operator pods ready, want 1")
    print(f"install: pod {pods[0]['metadata']['name']} is Running and ready")

    run = load_documents(SAMPLE.read_text())[0]
    name = run["metadata"]["name"]
    cluster.kubectl("apply", "-n", "default", "-f", "-", stdin=json.dumps(run))

    def finished():
        phase = get_json(cluster, "benchmarkrun", name, "-n", "default").get(
            "status", {}).get("phase")
        return phase if phase in ("Succeeded", "Failed", "Cancelled") else None

    phase = wait_for(f"BenchmarkRun {name} to finish", finished, helm)
    if phase != "Succeeded":
        _, described = cluster.kubectl("get", "benchmarkrun", name, "-n", "default", "-o", "yaml")
        raise Failure(f"BenchmarkRun {name} ended {phase}:\n{described}{helm.cluster_log()}")
    print(f"install: the operator ran BenchmarkRun {name} to Succeeded")


def check_upgrade(helm, cluster, values):
    before = {p["metadata"]["name"] for p in operator_pods(cluster)}
    helm("upgrade", RELEASE, str(CHART), "-n", NAMESPACE, "-f", str(values),
         "--set", "operator.logLevel=debug", "--wait", "--timeout", HELM_TIMEOUT)
    deployment = get_json(cluster, "deployment", DEPLOYMENT, "-n", NAMESPACE)
    if "--log-level=debug" not in container_args(deployment):
        raise Failure(f"after the upgrade the Deployment's args are {container_args(deployment)}")

    def rolled_out():
        pods = operator_pods(cluster)
        return pods if (len(pods) == 1 and pods[0]["metadata"]["name"] not in before
                        and is_ready(pods[0])) else None

    pods = wait_for("the upgrade's pod to replace the old one", rolled_out, helm)
    if "--log-level=debug" not in container_args(pods[0]):
        raise Failure(f"the new pod's args are {container_args(pods[0])}")
    status = get_json(cluster, "deployment", DEPLOYMENT, "-n", NAMESPACE)["status"]
    if status.get("updatedReplicas") != 1 or status.get("observedGeneration") != 2:
        raise Failure(f"the Deployment's status after the upgrade: {status}")
    _, history = cluster.kubectl("rollout", "history", f"deployment/{DEPLOYMENT}", "-n",
                                 NAMESPACE)
    print(f"upgrade: pod {pods[0]['metadata']['name']} runs with --log-level=debug\n{history}")


def check_uninstall(helm, cluster):
    manifest = load_documents(helm("get", "manifest", RELEASE, "-n", NAMESPACE))
    helm("uninstall", RELEASE, "-n", NAMESPACE, "--wait", "--timeout", HELM_TIMEOUT)
    left = []
    for obj in manifest:
        namespace = ["-n", obj["metadata"].get("namespace", NAMESPACE)]
        code, output = cluster.kubectl("get", f"{obj['kind']}/{obj['metadata']['name']}",
                                       *namespace, check=False)
        if code == 0 or "NotFound" not in output:
            left.append(f"{obj['kind']}/{obj['metadata']['name']}: {output.strip()}")
    if left:
        raise Failure("helm uninstall left the release's objects:\n" + "\n".join(left))
    wait_for("the operator's pods to go", lambda: not operator_pods(cluster), helm)
    releases = get_json(cluster, "secrets", "-n", NAMESPACE, "-l", f"owner=helm,name={RELEASE}")
    if releases["items"]:
        raise Failure(f"release Secrets remain: {[s['metadata']['name'] for s in releases['items']]}")
    crds = [o["metadata"]["name"] for o in load_documents(
        "\n---\n".join(p.read_text() for p in sorted((CHART / "crds").glob("*.yaml"))))]
    for crd in crds:
        cluster.kubectl("get", f"crd/{crd}")
    print(f"uninstall: the release's {len(manifest)} objects and its pods are gone; the CRDs "
          f"{', '.join(crds)} stay")


def check_helm(work, helm_binary, kubesim, operator):
    check_render(Helm(helm_binary, work, None))
    values = work / "values.yaml"
    values.write_text(yaml.safe_dump({
        "image": {"tag": IMAGE_TAG},
        "operator": {"extraArgs": [
            f"--kubeconfig={work / 'kubeconfig'}",
            "--metrics-bind-address=127.0.0.1:0",
            "--health-probe-bind-address=127.0.0.1:0",
            "--logs-bind-address=127.0.0.1:0",
            f"--log-dir={work / 'operator-logs'}",
        ]},
    }))
    cluster = Kubesim(kubesim, work, ["--image", f"hetbench/operator:{IMAGE_TAG}={operator}"])
    try:
        helm = Helm(helm_binary, work, cluster)
        check_install(helm, cluster, values)
        check_upgrade(helm, cluster, values)
        tested = helm("test", RELEASE, "-n", NAMESPACE, "--timeout", HELM_TIMEOUT)
        if "TEST SUITE:     None" not in tested and "TEST SUITE: None" not in tested:
            raise Failure(f"helm test ran tests the chart does not have:\n{tested}")
        print("test: helm test passes (the chart has no test hooks)")
        check_uninstall(helm, cluster)
    finally:
        cluster.stop()


def main(argv):
    if len(argv) != 5:
        print(__doc__, file=sys.stderr)
        return 2
    work = pathlib.Path(argv[1]).resolve()
    helm_binary, kubesim, operator = (os.path.abspath(a) for a in argv[2:])
    if not os.access(helm_binary, os.X_OK):
        print(f"{helm_binary} not found (scripts/npm-tools fetches helm): skipped")
        return SKIPPED
    return run_with_kubectl("helm", work, check_helm, helm_binary, kubesim, operator)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
