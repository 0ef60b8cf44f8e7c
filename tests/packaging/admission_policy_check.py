#!/usr/bin/python3
"""Evaluates the ValidatingAdmissionPolicy of manifests/policy/ on the BenchmarkRuns and
BenchmarkSchedules it must admit and refuse (a table), with a real CEL implementation
(@bufbuild/cel under Node, fetched by scripts/npm-tools), and checks that each refused object
fails exactly the validations it should, with no evaluation error.

  admission_policy_check.py NODE_MODULES
Exit status 0 when every case gets its verdict, 1 otherwise, 77 (skipped) without node or the
CEL package.
"""
import copy
import json
import pathlib
import shutil
import subprocess
import sys

import yaml

ROOT = pathlib.Path(__file__).resolve().parents[2]
POLICY = ROOT / "manifests" / "policy" / "admission-policy.yaml"
EVALUATOR = pathlib.Path(__file__).resolve().parent / "cel_eval.mjs"

HOST = "a template must not use the host's network, PID or IPC namespace"
PRIVILEGED = "containers must not be privileged"
HOST_PATH = "a template must not mount hostPath volumes"
ACCOUNT = ("the service account must be a key of the ConfigMap "
           "hetbench-allowed-service-accounts in hetbench-system")

PARAMS = {"apiVersion": "v1", "kind": "ConfigMap",
          "metadata": {"name": "hetbench-allowed-service-accounts"},
          "data": {"default": "", "bench": ""}}


def run(spec):
    return {"apiVersion": "hetbench.io/v1alpha1", "kind": "BenchmarkRun",
            "metadata": {"name": "r", "namespace": "team-a"}, "spec": spec}


def schedule(spec):
    return {"apiVersion": "hetbench.io/v1alpha1", "kind": "BenchmarkSchedule",
            "metadata": {"name": "s", "namespace": "team-a"},
            "spec": {"schedule": "@daily", "runTemplate": {"spec": spec}}}


def container(**security):
    c = {"name": "benchmark", "image": "hetbench/train:cuda"}
    if security:
        c["securityContext"] = security
    return c


def pod_template(**spec):
    return {"apiVersion": "v1", "kind": "Pod",
            "spec": {"restartPolicy": "Never", "containers": [container()], **spec}}


def job_template(**pod_spec):
    return {"apiVersion": "batch/v1", "kind": "Job",
            "spec": {"template": {"spec": {"restartPolicy": "Never",
                                           "containers": [container()], **pod_spec}}}}


def ipujob_template(**pod_spec):
    return {"apiVersion": "graphcore.ai/v1alpha1", "kind": "IPUJob",
            "spec": {"jobInstances": 1, "ipusPerJobInstance": "1",
                     "workers": {"template": {"spec": {"containers": [container()],
                                                       **pod_spec}}}}}


WORKLOAD = {"image": "hetbench/train:cuda",
            "accelerator": {"resource": "nvidia.com/gpu", "count": 1}}

# name, object, the validations it must fail (none: admitted)
CASES = [
    ("a workload", run({"benchmark": "resnet50", "workload": WORKLOAD}), []),
    ("a workload with an allowed account",
     run({"workload": {**WORKLOAD, "serviceAccountName": "bench"}}), []),
    ("a workload with relaxed but unprivileged settings",
     run({"workload": {**WORKLOAD, "podSecurityContext": {"runAsNonRoot": False},
                       "securityContext": {"privileged": False}}}), []),
    ("a Pod template", run({"template": pod_template()}), []),
    ("a Pod template with the default account",
     run({"template": pod_template(serviceAccountName="default")}), []),
    ("a Job template with a PVC", run({"template": job_template(
        volumes=[{"name": "d", "persistentVolumeClaim": {"claimName": "data"}}])}), []),
    ("an IPUJob template", run({"template": ipujob_template()}), []),
    ("a schedule of a workload", schedule({"workload": WORKLOAD}), []),
    ("a template whose kind hetbench refuses", run({"template": {"apiVersion": "apps/v1",
                                                                 "kind": "Deployment"}}), []),
    ("hostNetwork", run({"template": pod_template(hostNetwork=True)}), [HOST]),
    ("hostPID false is fine, hostIPC is not",
     run({"template": job_template(hostPID=False, hostIPC=True)}), [HOST]),
    ("a privileged container in a Job",
     run({"template": job_template(containers=[container(privileged=True)])}), [PRIVILEGED]),
    ("a privileged init container",
     run({"template": pod_template(initContainers=[container(privileged=True)])}),
     [PRIVILEGED]),
    ("a privileged workload",
     run({"workload": {**WORKLOAD, "securityContext": {"privileged": True}}}), [PRIVILEGED]),
    ("hostPath in an IPUJob",
     run({"template": ipujob_template(volumes=[{"name": "h", "hostPath": {"path": "/"}}])}),
     [HOST_PATH]),
    ("an account outside the list in a workload",
     run({"workload": {**WORKLOAD, "serviceAccountName": "cluster-admin-sa"}}), [ACCOUNT]),
    ("an account outside the list in a template",
     run({"template": pod_template(serviceAccountName="builder")}), [ACCOUNT]),
    ("the deprecated serviceAccount field", run({"template": pod_template(
        serviceAccount="builder")}), [ACCOUNT]),
    ("everything at once in a schedule", schedule({"template": pod_template(
        hostNetwork=True, serviceAccountName="builder",
        containers=[container(privileged=True)],
        volumes=[{"name": "h", "hostPath": {"path": "/"}}])}),
     [HOST, PRIVILEGED, HOST_PATH, ACCOUNT]),
]


def main():
    modules = sys.argv[1]
    if shutil.which("node") is None or not (pathlib.Path(modules) / "@bufbuild" / "cel").is_dir():
        print(f"skipped: needs node (Debian's nodejs) and @bufbuild/cel in {modules} "
              "(scripts/npm-tools)")
        return 77
    documents = list(yaml.safe_load_all(POLICY.read_text()))
    policy = next(d for d in documents if d["kind"] == "ValidatingAdmissionPolicy")
    cases = [{"name": name, "object": obj, "params": PARAMS} for name, obj, _ in CASES]
    # Without the ConfigMap the binding denies (parameterNotFoundAction: Deny); a ConfigMap with
    # no data allows no named account.
    cases.append({"name": "params without data", "params": {"kind": "ConfigMap"},
                  "object": run({"workload": {**WORKLOAD, "serviceAccountName": "bench"}})})
    wanted = {name: denied for name, _, denied in CASES}
    wanted["params without data"] = [ACCOUNT]
    # Updates: one that leaves a privileged run's spec alone (the operator adding its finalizer
    # to a run stored before the policy) is not validated; one that writes the spec is.
    privileged = run({"template": pod_template(hostNetwork=True)})
    finalized = copy.deepcopy(privileged)
    finalized["metadata"]["finalizers"] = ["hetbench.io/logs"]
    cases.append({"name": "a finalizer added to a run stored before the policy",
                  "object": finalized, "oldObject": privileged, "params": PARAMS})
    wanted["a finalizer added to a run stored before the policy"] = []
    allowed = run({"template": pod_template()})
    cases.append({"name": "an update that makes a run's template use the host network",
                  "object": privileged, "oldObject": allowed, "params": PARAMS})
    wanted["an update that makes a run's template use the host network"] = [HOST]
    request = {"matchConditions": policy["spec"].get("matchConditions", []),
               "variables": policy["spec"]["variables"],
               "validations": policy["spec"]["validations"], "cases": cases}
    done = subprocess.run(["node", str(EVALUATOR), modules], input=json.dumps(request),
                          capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        print(done.stdout + done.stderr)
        return 1
    problems = []
    results = [json.loads(line) for line in done.stdout.splitlines()]
    for result in results:
        want = wanted[result["name"]]
        if result["errors"]:
            problems.append(f"{result['name']}: evaluation failed: {result['errors']}")
        elif sorted(result["denied"]) != sorted(want):
            problems.append(f"{result['name']}: denied by {result['denied']}, want {want}")
    if len(results) != len(cases):
        problems.append(f"{len(results)} results for {len(cases)} cases")
    if problems:
        print("\n".join(problems))
        return 1
    admitted = sum(1 for r in results if not r["denied"])
    skipped = sum(1 for r in results if not r["matched"])
    print(f"admission policy: {len(results)} requests, {admitted} admitted ({skipped} not "
          f"matched) and {len(results) - admitted} refused as they should be "
          f"({len(policy['spec']['validations'])} validations, "
          f"{len(policy['spec']['variables'])} variables, @bufbuild/cel)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
