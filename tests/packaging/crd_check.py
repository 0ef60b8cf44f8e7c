#!/usr/bin/python3
"""What kubectl shows of hetbench's CRDs (tests/packaging/CMakeLists.txt), one check per CTest test.

  crd_check.py descriptions
      Every property of the BenchmarkRun, BenchmarkSchedule and BenchmarkSeries schemas (items of
      arrays and values of maps aside) has a description, so that `kubectl explain` describes
      every field. apiVersion, kind and metadata of the object (and of an embedded resource) are
      the exception: the API server publishes its own descriptions of them, and forbids a CRD
      to describe metadata.
  crd_check.py explain WORK KUBESIM
      With the CRDs applied to a kubesim, the real `kubectl explain` of every object field of the
      three kinds shows the description of each of its fields as the CRD words it, and
      `kubectl explain benchmarkrun.spec --recursive` names every field of the spec.
  crd_check.py wide WORK KUBESIM
      `kubectl get br` shows the default printer columns and hides those of priority 1, which
      `kubectl get br -o wide` shows with the run's values.

WORK is a scratch directory, emptied first and left for inspection; the kubesim is stopped before
a check returns. Exit status: 0 passed, 1 failed, 77 skipped (kubectl not installed).
"""
import json
import pathlib
import re
import sys

import yaml

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from packaging_test import Failure, Kubesim, run_with_kubectl  # noqa: E402

ROOT = HERE.parent.parent
CRDS = [ROOT / "crds" / name
        for name in ("benchmarkrun.yaml", "benchmarkschedule.yaml", "benchmarkseries.yaml",
                     "benchmarksystem.yaml", "slurmcluster.yaml")]


def schema_of(crd):
    return crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]


SERVER_DESCRIBED = ("apiVersion", "kind", "metadata")


def properties(schema, path=()):
    """Yields (path, property schema, described by the server) for every property below `schema`,
    through array items and map values (whose own schemas are not properties). The API server
    describes apiVersion, kind and metadata of the object and of an embedded resource itself."""
    for name, prop in (schema.get("properties") or {}).items():
        by_server = name in SERVER_DESCRIBED and (
            not path or schema.get("x-kubernetes-embedded-resource", False))
        yield path + (name,), prop, by_server
        yield from properties(prop, path + (name,))
    for inner in (schema.get("items"), schema.get("additionalProperties")):
        if isinstance(inner, dict):
            yield from properties(inner, path)


def load_crds():
    return [yaml.safe_load(path.read_text()) for path in CRDS]


def words(text):
    return " ".join(text.split())


def check_descriptions():
    missing = []
    count = 0
    for crd in load_crds():
        kind = crd["spec"]["names"]["kind"]
        for path, prop, by_server in properties(schema_of(crd)):
            if by_server:
                continue
            count += 1
            if not prop.get("description", "").strip():
                missing.append(f"{kind}.{'.'.join(path)}")
    if missing:
        raise Failure("properties without a description:\n  " + "\n  ".join(missing))
    print(f"descriptions: all {count} properties of the three CRDs have one")


def apply_crds(cluster):
    for path in CRDS:
        cluster.kubectl("apply", "-f", str(path))
    cluster.kubectl("wait", "--for=condition=Established", "--timeout=20s",
                    *[f"crd/{yaml.safe_load(p.read_text())['metadata']['name']}" for p in CRDS])


def check_explain(work, kubesim):
    cluster = Kubesim(kubesim, work)
    try:
        apply_crds(cluster)
        problems = []
        explained = 0
        for crd in load_crds():
            singular = crd["spec"]["names"]["singular"]
            root = schema_of(crd)
            objects = [((), root)] + [(p, s) for p, s, _ in properties(root)]
            for path, schema in objects:
                target = schema.get("items", schema) if schema.get("type") == "array" else schema
                children = target.get("properties") or {}
                if not children:
                    continue
                field = ".".join((singular,) + path)
                _, output = cluster.kubectl("explain", field)
                explained += 1
                shown = words(output)
                for name, child in children.items():
                    if name in SERVER_DESCRIBED and (
                            not path or target.get("x-kubernetes-embedded-resource", False)):
                        continue
                    if words(child.get("description", "")) not in shown or not child.get(
                            "description"):
                        problems.append(f"kubectl explain {field}: no description of {name} "
                                        f"({child['description']!r}) in:\n{output}")
        _, recursive = cluster.kubectl("explain", "benchmarkrun.spec", "--recursive")
        spec = schema_of(load_crds()[0])["properties"]["spec"]
        listed = set(re.findall(r"^\s+([A-Za-z]+)\s+<", recursive, re.M))
        for path, _, _ in properties(spec):
            if path[-1] not in listed:
                problems.append(f"kubectl explain benchmarkrun.spec --recursive lacks {path}")
        if problems:
            raise Failure("\n".join(problems))
        print(f"explain: kubectl explain shows every field's description ({explained} objects)")
    finally:
        cluster.stop()


def sample_run(name, namespace, status):
    """A BenchmarkRun with an accelerator, and the status to write through /status."""
    return {
        "apiVersion": "hetbench.io/v1alpha1", "kind": "BenchmarkRun",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"benchmark": "resnet50", "system": "a100",
                 "workload": {"image": "hetbench/train:cuda",
                              "accelerator": {"resource": "nvidia.com/gpu", "count": 4,
                                              "product": "NVIDIA-A100-SXM4-40GB"}}},
    }, {"status": status}


def create_run(cluster, name, namespace, status):
    run, patch = sample_run(name, namespace, status)
    cluster.kubectl("create", "-f", "-", stdin=json.dumps(run))
    cluster.kubectl("patch", "benchmarkrun", name, "-n", namespace, "--subresource=status",
                    "--type=merge", "-p", json.dumps(patch))


def failed_status():
    return {"phase": "Failed", "progress": "1/1", "trialsTotal": 1, "trialsDone": 1,
            "conditions": [{"type": "Failed", "status": "True", "reason": "OOMKilled",
                            "message": "trial 0 repetition 0 Failed: OOMKilled",
                            "lastTransitionTime": "2026-01-02T03:04:05Z"}]}


def check_wide(work, kubesim):
    cluster = Kubesim(kubesim, work)
    try:
        apply_crds(cluster)
        create_run(cluster, "oom", "default", failed_status())
        _, narrow = cluster.kubectl("get", "br")
        _, wide = cluster.kubectl("get", "br", "-o", "wide")
        problems = []
        header = narrow.splitlines()[0].split()
        if header != ["NAME", "BENCHMARK", "SYSTEM", "PHASE", "TRIALS", "THROUGHPUT", "VERDICT",
                      "AGE"]:
            problems.append(f"kubectl get br shows the columns {header}:\n{narrow}")
        wide_header = wide.splitlines()[0].split()
        want = ["ACCELERATOR", "PRODUCT", "FAILURE", "MESSAGE"]
        if wide_header[-4:] != want or wide_header[:8] != header:
            problems.append(f"kubectl get br -o wide shows the columns {wide_header}:\n{wide}")
        row = wide.splitlines()[1]
        for value in ("nvidia.com/gpu", "NVIDIA-A100-SXM4-40GB", "OOMKilled",
                      "trial 0 repetition 0 Failed: OOMKilled"):
            if value not in row:
                problems.append(f"kubectl get br -o wide does not show {value!r}:\n{wide}")
            if value in narrow:
                problems.append(f"kubectl get br shows {value!r}:\n{narrow}")
        if problems:
            raise Failure("\n".join(problems))
        print("wide: kubectl get br hides the priority-1 columns, -o wide shows them with values")
    finally:
        cluster.stop()


def main(argv):
    if len(argv) == 2 and argv[1] == "descriptions":
        try:
            check_descriptions()
        except Failure as failure:
            print(f"FAIL descriptions: {failure}")
            return 1
        return 0
    if len(argv) != 4 or argv[1] not in ("explain", "wide"):
        print(__doc__, file=sys.stderr)
        return 2
    return run_with_kubectl(argv[1], argv[2], check_explain if argv[1] == "explain" else check_wide,
                            str(pathlib.Path(argv[3]).resolve()))


if __name__ == "__main__":
    sys.exit(main(sys.argv))
