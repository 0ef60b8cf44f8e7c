#!/usr/bin/python3
"""The packaging checks of hetbench (tests/packaging/CMakeLists.txt), one per CTest test.

  packaging_test.py apply WORK KUBESIM
      `kubectl apply -k manifests/` against a kubesim succeeds, names every object of
      `kubectl kustomize manifests/`, stores each as rendered, and a second apply changes nothing;
      the optional manifests/policy/ passes a server-side dry run.
  packaging_test.py operator WORK KUBESIM OPERATOR
      The operator run with the container args and env of the Deployment that manifests/ renders
      runs the CPU sample on kubesim to Succeeded; every API request it makes is allowed by the
      rendered RBAC; it writes only to its log volume.
  packaging_test.py samples WORK KUBESIM OPERATOR
      Every object of manifests/samples/ passes admission (a server-side dry run), every
      BenchmarkRun among them is accepted by the operator, and each one's pods (IPUJobs aside)
      are admitted in a namespace that enforces the restricted Pod Security Standard.
  packaging_test.py dockerfile WORK BINARY...
      The build stage of Dockerfile installs the operator's build packages only (scripts/setup
      --operator-only, no test or workload package) and configures without the tests, kubesim
      and the workloads; its runtime packages are those that images/debian-runtime-packages
      derives from the built binaries.

WORK is a scratch directory, emptied first and left for inspection. Every process a check
starts is stopped before it returns. Exit status: 0 passed, 1 failed, 77 skipped (kubectl or
dpkg not installed).
"""
import copy
import http.client
import http.server
import json
import os
import pathlib
import re
import shutil
import signal
import ssl
import subprocess
import sys
import threading
import time
import urllib.parse

import yaml

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
MANIFESTS = ROOT / "manifests"
SAMPLES = MANIFESTS / "samples"
CPU_SAMPLE = SAMPLES / "resnet50-cpu.yaml"
SETUP = ROOT / "scripts" / "setup"
MONITORING_CRDS = HERE / "fixtures" / "prometheus-operator-crds.yaml"
IPUJOB_CRD = ROOT / "sim" / "kubesim" / "fixtures" / "ipujob-crd.yaml"
FINISHED = ("Succeeded", "Failed", "Cancelled")
SKIPPED = 77


class Failure(Exception):
    """A check failed; the message says what was wanted and what was found."""


def run_with_kubectl(name, work, check, *args):
    """Runs check(WORK, *args) in WORK, emptied first and left for inspection: 0 when it passes,
    1 when it raises Failure (printed as FAIL NAME), 77 (skipped) when kubectl is not installed."""
    if shutil.which("kubectl") is None:
        print("kubectl not installed: skipped")
        return SKIPPED
    work = pathlib.Path(work).resolve()
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    try:
        check(work, *args)
    except Failure as failure:
        print(f"FAIL {name}: {failure}")
        return 1
    return 0


def deadline_loop(seconds, interval=0.1):
    """Yields until `seconds` have passed, sleeping `interval` between rounds."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        yield
        time.sleep(interval)


def load_documents(text):
    return [d for d in yaml.safe_load_all(text) if d]


def object_name(obj):
    meta = obj.get("metadata", {})
    return f"{obj.get('kind')}/{meta.get('name')}"


class Kubesim:
    """A kubesim binary serving on 127.0.0.1 and a free port, with its own kubeconfig;
    `extra_args` are more of its flags (--image IMAGE=PROGRAM)."""

    def __init__(self, binary, work, extra_args=()):
        self.work = work
        self.kubeconfig = work / "kubeconfig"
        self.log_path = work / "kubesim.log"
        log = open(self.log_path, "w")
        # A PATH without the build tree, so that no workload of a sample finds a real program.
        env = dict(os.environ, PATH="/usr/bin:/bin")
        self.process = subprocess.Popen(
            [binary, "--write-kubeconfig", str(self.kubeconfig), "--work-dir", str(work / "pods"),
             *extra_args],
            stdout=log, stderr=subprocess.STDOUT, env=env)
        log.close()
        for _ in deadline_loop(15):
            if self.kubeconfig.exists():
                break
            if self.process.poll() is not None:
                break
        if not self.kubeconfig.exists():
            self.stop()
            raise Failure(f"kubesim did not start:\n{self.log_path.read_text()}")
        config = yaml.safe_load(self.kubeconfig.read_text())
        self.server = config["clusters"][0]["cluster"]["server"]

    def kubectl(self, *args, stdin=None, check=True):
        """Runs kubectl against this kubesim; returns its output (stdout and stderr)."""
        env = dict(os.environ, KUBECONFIG=str(self.kubeconfig))
        result = subprocess.run(["kubectl", "--request-timeout=20s", *args], input=stdin,
                                capture_output=True, text=True, env=env, timeout=60)
        output = result.stdout + result.stderr
        if check and result.returncode != 0:
            raise Failure(f"kubectl {' '.join(args)} failed:\n{output}")
        return result.returncode, output

    def create_namespace(self, name, labels=None):
        # From a manifest: `kubectl create namespace` sends protobuf, which kubesim does not read.
        metadata = {"name": name, "labels": labels} if labels else {"name": name}
        self.kubectl("create", "-f", "-", stdin=json.dumps(
            {"apiVersion": "v1", "kind": "Namespace", "metadata": metadata}))

    def stop(self):
        stop_process(self.process)


def stop_process(process, grace=15):
    """SIGTERM, then SIGKILL after `grace` seconds; returns the exit status."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(grace)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    return process.returncode


def install_base(cluster):
    """The Prometheus Operator's kinds (stand-ins), then `kubectl apply -k manifests/`.

    Returns the rendered objects and apply's output."""
    cluster.kubectl("apply", "-f", str(MONITORING_CRDS))
    cluster.kubectl("wait", "--for=condition=Established", "--timeout=20s",
                    "crd/servicemonitors.monitoring.coreos.com",
                    "crd/prometheusrules.monitoring.coreos.com")
    _, rendered = cluster.kubectl("kustomize", str(MANIFESTS))
    objects = load_documents(rendered)
    _, applied = cluster.kubectl("apply", "-k", str(MANIFESTS))
    return objects, applied


def resource_of(obj):
    """kind.group as kubectl prints and accepts it (deployment.apps, service)."""
    group = obj["apiVersion"].rpartition("/")[0]
    return obj["kind"].lower() + ("." + group if group else "")


def missing_from(want, have, path=""):
    """Where `want` is not contained in `have`: maps and lists compared member by member."""
    if isinstance(want, dict):
        if not isinstance(have, dict):
            return [f"{path or '.'}: want a map, have {have!r}"]
        out = []
        for key, value in want.items():
            if key not in have:
                out.append(f"{path}.{key}: missing")
            else:
                out += missing_from(value, have[key], f"{path}.{key}")
        return out
    if isinstance(want, list):
        if not isinstance(have, list) or len(have) != len(want):
            return [f"{path}: want {want!r}, have {have!r}"]
        out = []
        for i, (w, h) in enumerate(zip(want, have)):
            out += missing_from(w, h, f"{path}[{i}]")
        return out
    return [] if want == have else [f"{path}: want {want!r}, have {have!r}"]


# --- apply -------------------------------------------------------------------------------------


def check_apply(work, kubesim):
    cluster = Kubesim(kubesim, work)
    try:
        objects, applied = install_base(cluster)
        problems = []
        kinds = sorted({o["kind"] for o in objects})
        for want in ("Namespace", "CustomResourceDefinition", "ServiceAccount", "ClusterRole",
                     "ClusterRoleBinding", "Role", "RoleBinding", "Deployment", "Service",
                     "ServiceMonitor", "PrometheusRule", "ConfigMap"):
            if want not in kinds:
                problems.append(f"kubectl kustomize manifests/ renders no {want} (kinds: {kinds})")

        lines = set(applied.splitlines())
        for obj in objects:
            line = f"{resource_of(obj)}/{obj['metadata']['name']} created"
            if line not in lines:
                problems.append(f"apply did not say \"{line}\"")
        if len(lines) != len(objects):
            problems.append(f"apply printed {len(lines)} lines for {len(objects)} objects:\n"
                            f"{applied}")

        for obj in objects:
            args = ["get", resource_of(obj), obj["metadata"]["name"], "-o", "json"]
            if "namespace" in obj["metadata"]:
                args += ["-n", obj["metadata"]["namespace"]]
            _, live = cluster.kubectl(*args)
            for difference in missing_from(obj, json.loads(live)):
                problems.append(f"{object_name(obj)} as stored differs: {difference}")

        _, again = cluster.kubectl("apply", "-k", str(MANIFESTS))
        changed = [line for line in again.splitlines() if not line.endswith(" unchanged")]
        if changed:
            problems.append("a second apply changed objects:\n" + "\n".join(changed))

        # The optional admission policy (manifests/policy/), beside the base it refers to.
        code, policy = cluster.kubectl("apply", "--dry-run=server", "-k", str(MANIFESTS / "policy"),
                                       check=False)
        policy_lines = [line for line in policy.splitlines() if line.endswith("(server dry run)")]
        if code != 0 or len(policy_lines) != 4:
            problems.append(f"kubectl apply --dry-run=server -k manifests/policy/:\n{policy}")
        if problems:
            raise Failure("\n".join(problems))
        print(f"apply: {len(objects)} objects applied as rendered ({', '.join(kinds)}); "
              f"manifests/policy/ passes a server-side dry run ({len(policy_lines)} objects)")
    finally:
        cluster.stop()


# --- the operator from the Deployment ----------------------------------------------------------


class RecordingProxy:
    """An HTTP proxy in front of kubesim that records every API request passing through it.

    Streams (watches, followed logs) are passed on chunk by chunk as they arrive."""

    HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length",
                  "proxy-connection", "te", "trailer", "upgrade"}

    def __init__(self, upstream):
        parsed = urllib.parse.urlsplit(upstream)
        self.upstream = (parsed.hostname, parsed.port)
        self.requests = []
        self.lock = threading.Lock()
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def body(self):
                if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                    data = b""
                    while True:
                        size = int(self.rfile.readline().split(b";")[0], 16)
                        chunk = self.rfile.read(size + 2)[:size]
                        if size == 0:
                            break
                        data += chunk
                    return data
                length = int(self.headers.get("Content-Length") or 0)
                return self.rfile.read(length) if length else None

            def forward(self):
                body = self.body()
                with proxy.lock:
                    proxy.requests.append((self.command, self.path))
                upstream = http.client.HTTPConnection(*proxy.upstream)
                headers = {k: v for k, v in self.headers.items()
                           if k.lower() not in proxy.HOP_BY_HOP}
                try:
                    upstream.request(self.command, self.path, body=body, headers=headers)
                    response = upstream.getresponse()
                    self.send_response(response.status, response.reason)
                    for key, value in response.getheaders():
                        if key.lower() not in proxy.HOP_BY_HOP:
                            self.send_header(key, value)
                    length = response.getheader("Content-Length")
                    if length is not None:
                        data = response.read()
                        self.send_header("Content-Length", str(len(data)))
                        self.end_headers()
                        self.wfile.write(data)
                        return
                    self.send_header("Transfer-Encoding", "chunked")
                    self.end_headers()
                    while True:
                        data = response.read1(65536)
                        if not data:
                            break
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                        self.wfile.flush()
                    self.wfile.write(b"0\r\n\r\n")
                except (ConnectionError, OSError, http.client.HTTPException):
                    self.close_connection = True
                finally:
                    upstream.close()

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = forward

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


# Non-resource URLs that every authenticated client may GET (the system:discovery and
# system:public-info-viewer ClusterRoles of every cluster).
DISCOVERY = re.compile(r"^/(api|apis)(/[^/]+){0,2}/?$|^/version/?$|^/openapi(/.*)?$")


def api_request(method, target):
    """(verb, group, resource, namespace, name) of an API request; None for a discovery one."""
    url = urllib.parse.urlsplit(target)
    query = urllib.parse.parse_qs(url.query)
    parts = [p for p in url.path.split("/") if p]
    if parts[:1] == ["api"] and len(parts) >= 3:
        group, rest = "", parts[2:]
    elif parts[:1] == ["apis"] and len(parts) >= 4:
        group, rest = parts[1], parts[3:]
    else:
        return None
    namespace = ""
    if rest[0] == "namespaces" and len(rest) >= 3:
        namespace, rest = rest[1], rest[2:]
    resource = rest[0]
    name = rest[1] if len(rest) >= 2 else ""
    if len(rest) >= 3:
        resource += "/" + rest[2]
    verb = {"POST": "create", "PUT": "update", "PATCH": "patch"}.get(method)
    if method == "GET":
        verb = "get" if name else ("watch" if query.get("watch", [""])[0] in ("true", "1")
                                   else "list")
    if method == "DELETE":
        verb = "delete" if name else "deletecollection"
    return verb, group, resource, namespace, name


def rule_allows(rule, verb, group, resource, name):
    def has(field, value):
        values = rule.get(field, [])
        return "*" in values or value in values

    if not (has("verbs", verb) and has("apiGroups", group) and has("resources", resource)):
        return False
    names = rule.get("resourceNames")
    return not names or name in names


class Rbac:
    """The rules that the rendered objects grant one service account."""

    def __init__(self, objects, account_namespace, account_name):
        def binds(binding):
            return any(s.get("kind") == "ServiceAccount" and s.get("name") == account_name and
                       s.get("namespace", binding["metadata"].get("namespace")) ==
                       account_namespace for s in binding.get("subjects", []))

        roles = {(o["kind"], o["metadata"].get("namespace", ""), o["metadata"]["name"]): o
                 for o in objects if o["kind"] in ("Role", "ClusterRole")}
        self.grants = []  # (namespace or "" for every namespace, rule)
        for binding in objects:
            if binding["kind"] not in ("RoleBinding", "ClusterRoleBinding") or not binds(binding):
                continue
            ref = binding["roleRef"]
            scope = binding["metadata"].get("namespace", "") if binding["kind"] == "RoleBinding" \
                else ""
            role_namespace = scope if ref["kind"] == "Role" else ""
            role = roles.get((ref["kind"], role_namespace, ref["name"]))
            if role is None:
                raise Failure(f"{binding['kind']} {binding['metadata']['name']} refers to "
                              f"{ref['kind']} {ref['name']}, which is not rendered")
            for rule in role.get("rules", []):
                self.grants.append((scope, rule))

    def allows(self, verb, group, resource, namespace, name):
        return any((scope == "" or scope == namespace) and
                   rule_allows(rule, verb, group, resource, name)
                   for scope, rule in self.grants)

    def granted(self):
        """Every (verb, group, resource) granted anywhere, with resourceNames ignored."""
        out = set()
        for _, rule in self.grants:
            for verb in rule.get("verbs", []):
                for group in rule.get("apiGroups", []):
                    for resource in rule.get("resources", []):
                        out.add((verb, group, resource))
        return out


QUANTITY_SUFFIXES = {"": 1, "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12,
                     "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}


def quantity_bytes(text):
    """A resource quantity in bytes ("10Gi", "512M", "1000"); decimal exponents are not used."""
    number = text.rstrip("kMGTi")
    suffix = text[len(number):]
    if suffix not in QUANTITY_SUFFIXES or not number.isdigit():
        raise Failure(f"cannot read the quantity {text!r}")
    return int(number) * QUANTITY_SUFFIXES[suffix]


def check_log_bound(pod, container):
    """An emptyDir log volume with a sizeLimit needs --log-dir-max-bytes below it: the kubelet
    evicts a pod whose emptyDir passes its limit, and every kept log goes with it."""
    log_dir = next((a.partition("=")[2] for a in container.get("args", [])
                    if a.startswith("--log-dir=")), "")
    mount = next((m for m in container.get("volumeMounts", [])
                  if m["mountPath"].rstrip("/") == log_dir.rstrip("/")), None)
    volume = next((v for v in pod.get("volumes", []) if mount and v["name"] == mount["name"]), {})
    limit = volume.get("emptyDir", {}).get("sizeLimit")
    if limit is None:
        return
    bound = next((a.partition("=")[2] for a in container.get("args", [])
                  if a.startswith("--log-dir-max-bytes=")), "0")
    if not 0 < int(bound) < quantity_bytes(str(limit)):
        raise Failure(f"--log-dir-max-bytes={bound} is not below the log volume's sizeLimit "
                      f"{limit}: the kubelet would evict the operator before the janitor acts")


def adapt_container(deployment, kubeconfig, log_dir):
    """The operator's command line and environment from the Deployment's container.

    Only what cannot be the same on a test machine changes: the pod's in-cluster credentials
    become --kubeconfig (the proxy in front of kubesim); the three listeners, which the pod binds
    on every address of its own network namespace, bind 127.0.0.1 on a free port; and the log
    directory, which must be a mounted volume, becomes a scratch directory. Every other flag is
    passed as written; env from the pod's own metadata is resolved as the kubelet would."""
    pod = deployment["spec"]["template"]["spec"]
    containers = pod["containers"]
    if len(containers) != 1:
        raise Failure(f"the Deployment has {len(containers)} containers, want 1")
    container = containers[0]
    if "command" in container:
        raise Failure("the Deployment's container sets command; the image's entrypoint "
                      "(hetbench-operator) is meant to run")
    mounts = {m["mountPath"].rstrip("/") for m in container.get("volumeMounts", [])}
    args, adapted = [], []
    for arg in container.get("args", []):
        flag, _, value = arg.partition("=")
        if flag in ("--metrics-bind-address", "--health-probe-bind-address",
                    "--logs-bind-address"):
            args.append(f"{flag}=127.0.0.1:0")
            adapted.append(f"{arg} -> {args[-1]}")
        elif flag == "--log-dir":
            if value.rstrip("/") not in mounts:
                raise Failure(f"{arg}: not a volume mount of the container ({sorted(mounts)}); "
                              "the root file system is read-only")
            args.append(f"--log-dir={log_dir}")
            adapted.append(f"{arg} -> {args[-1]}")
        elif flag in ("--kubeconfig", "--context"):
            raise Failure(f"{arg}: the pod should use its service account")
        else:
            args.append(arg)
    if not any(a.startswith("--log-dir=") for a in args):
        raise Failure("the Deployment's container gives no --log-dir=PATH on a volume")
    check_log_bound(pod, container)
    args.append(f"--kubeconfig={kubeconfig}")
    adapted.append(f"(in-cluster config) -> --kubeconfig={kubeconfig}")

    env = {}
    namespace = deployment["metadata"]["namespace"]
    for var in container.get("env", []):
        if "value" in var:
            env[var["name"]] = var["value"]
            continue
        field = var.get("valueFrom", {}).get("fieldRef", {}).get("fieldPath")
        if field != "metadata.namespace":
            raise Failure(f"env {var['name']}: only values and metadata.namespace are resolved "
                          "by this test")
        env[var["name"]] = namespace
    return args, env, adapted


def listening_port(log_text, prefix):
    for line in log_text.splitlines():
        try:
            message = json.loads(line).get("msg", "")
        except (ValueError, AttributeError):
            continue
        if isinstance(message, str) and message.startswith(prefix):
            port = re.search(r":(\d+)(?:\s|$)", message[len(prefix):])
            return int(port.group(1)) if port else None
    return None


def http_status(port, path):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        connection.request("GET", path)
        return connection.getresponse().status
    except OSError:
        return None
    finally:
        connection.close()


def https_status(port, path, token=None):
    """The status of GET path over HTTPS, the operator's self-signed certificate unchecked (as
    the shipped ServiceMonitor's insecureSkipVerify); None when nothing answers."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    connection = http.client.HTTPSConnection("127.0.0.1", port, timeout=5, context=context)
    try:
        connection.request("GET", path,
                           headers={"Authorization": f"Bearer {token}"} if token else {})
        return connection.getresponse().status
    except OSError:
        return None
    finally:
        connection.close()


def check_endpoint_auth(cluster, operator_log, run_namespace, run_name):
    """/metrics and the log server as the shipped objects set them up: Prometheus' account
    (bound by manifests/observability/metrics-reader.yaml) may scrape and may not read logs;
    no token is 401. The operator's reviews go through the recording proxy, so the rendered RBAC
    must allow them."""
    cluster.create_namespace("monitoring")
    account = {"apiVersion": "v1", "kind": "ServiceAccount",
               "metadata": {"name": "prometheus-k8s", "namespace": "monitoring"}}
    cluster.kubectl("create", "-f", "-", stdin=json.dumps(account))
    # kubectl create token sends protobuf, which kubesim does not read yet (issue 21).
    request = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": {}}
    _, issued = cluster.kubectl(
        "create", "--raw", "/api/v1/namespaces/monitoring/serviceaccounts/prometheus-k8s/token",
        "-f", "-", stdin=json.dumps(request))
    token = json.loads(issued)["status"]["token"]
    log_text = operator_log.read_text()
    metrics = listening_port(log_text, "metrics listening on ")
    logs = listening_port(log_text, "logs served on ")
    if metrics is None or logs is None:
        raise Failure(f"the operator logged no metrics or log port:\n{log_text}")
    run_logs = f"/logs/{run_namespace}/{run_name}/"
    want = [(metrics, "/metrics", None, 401), (metrics, "/metrics", token, 200),
            (logs, run_logs, None, 401), (logs, run_logs, token, 403)]
    problems = []
    for port, path, bearer, status in want:
        got = https_status(port, path, bearer)
        if got != status:
            problems.append(f"GET https://127.0.0.1:{port}{path} "
                            f"{'with Prometheus token' if bearer else 'without a token'}: "
                            f"{got}, want {status}")
    if problems:
        raise Failure("\n".join(problems) + f"\noperator log:\n{operator_log.read_text()[-4000:]}")
    return len(want)


# A stand-in for hetbench-train that kubesim can run: the metrics lines of docs/metrics.md for
# one rank and three epochs of 640 samples, the first a warm-up. Kept epochs: 1280 samples in
# 4 s of wall time, so an effective throughput of 320 samples/s.
TRAIN_SCRIPT = """\
echo ':::HETBENCH {"v":1,"event":"run_start","benchmark":"resnet50","model":"resnet50-v1.5",\
"world_size":1,"rank":0,"global_batch_size":32,"precision":"fp32","device":"cpu",\
"accelerator":{"name":"cpu","count":0}}'
echo ':::HETBENCH {"v":1,"event":"epoch","epoch":0,"rank":0,"samples":640,"wall_seconds":5.0,\
"io_seconds":1.0,"compute_seconds":4.0,"warmup":true}'
for epoch in 1 2; do
  echo ':::HETBENCH {"v":1,"event":"epoch","epoch":'$epoch',"rank":0,"samples":640,\
"wall_seconds":2.0,"io_seconds":0.5,"compute_seconds":1.5}'
done
echo ':::HETBENCH {"v":1,"event":"run_end","rank":0,"status":"ok"}'
"""
WANT_THROUGHPUT = 320.0


def check_operator(work, kubesim, operator):
    cluster = Kubesim(kubesim, work)
    proxy = None
    process = None
    try:
        objects, _ = install_base(cluster)
        deployments = [o for o in objects if o["kind"] == "Deployment"]
        if len(deployments) != 1:
            raise Failure(f"manifests/ renders {len(deployments)} Deployments, want 1")
        deployment = deployments[0]

        proxy = RecordingProxy(cluster.server)
        kubeconfig = work / "operator.kubeconfig"
        config = yaml.safe_load(cluster.kubeconfig.read_text())
        config["clusters"][0]["cluster"]["server"] = proxy.url
        kubeconfig.write_text(yaml.safe_dump(config))

        # The places a process writes to when it is not told where: they must stay empty.
        scratch = {name: work / name for name in ("cwd", "home", "tmp")}
        for path in scratch.values():
            path.mkdir()
        log_dir = work / "logs"
        args, env, adapted = adapt_container(deployment, kubeconfig, log_dir)
        print("operator args:", " ".join(args))
        print("adapted:", "; ".join(adapted))
        env.update(PATH=os.environ.get("PATH", "/usr/bin:/bin"), HOME=str(scratch["home"]),
                   TMPDIR=str(scratch["tmp"]))
        operator_log = work / "operator.log"
        with open(operator_log, "w") as log:
            process = subprocess.Popen([operator, *args], stdout=log, stderr=subprocess.STDOUT,
                                       cwd=scratch["cwd"], env=env)

        ready = False
        for _ in deadline_loop(20):
            if process.poll() is not None:
                raise Failure(f"hetbench-operator exited with {process.returncode}:\n"
                              f"{operator_log.read_text()}")
            port = listening_port(operator_log.read_text(), "health probes listening on ")
            if port and http_status(port, "/readyz") == 200:
                ready = True
                break
        if not ready:
            raise Failure(f"hetbench-operator not ready in 20 s:\n{operator_log.read_text()}")

        run = load_documents(CPU_SAMPLE.read_text())[0]
        run["metadata"]["namespace"] = "bench"
        run["spec"]["repetitions"] = 1
        run["spec"]["workload"]["command"] = ["sh", "-c", TRAIN_SCRIPT]
        cluster.create_namespace("bench")
        cluster.kubectl("create", "-f", "-", stdin=json.dumps(run))
        name = run["metadata"]["name"]

        status = {}
        for _ in deadline_loop(30, 0.2):
            _, out = cluster.kubectl("get", "benchmarkrun", name, "-n", "bench", "-o", "json")
            status = json.loads(out).get("status", {})
            if status.get("phase") in FINISHED:
                break
        if status.get("phase") != "Succeeded":
            raise Failure(f"run {name}: phase {status.get('phase')!r}, want Succeeded; status:\n"
                          f"{json.dumps(status, indent=2)}\noperator log:\n"
                          f"{operator_log.read_text()}")
        throughput = status.get("latestEffectiveThroughput")
        if throughput is None or abs(throughput - WANT_THROUGHPUT) > 1e-6:
            raise Failure(f"run {name}: latestEffectiveThroughput {throughput}, want "
                          f"{WANT_THROUGHPUT}")

        checked = check_endpoint_auth(cluster, operator_log, "bench", name)

        exit_status = stop_process(process)
        if exit_status != 0:
            raise Failure(f"hetbench-operator exited with {exit_status} on SIGTERM:\n"
                          f"{operator_log.read_text()}")

        problems = []
        manifests = list(log_dir.glob(f"bench/{name}/*/*/manifest.json"))
        logs = [p for p in log_dir.glob(f"bench/{name}/**/*.log") if ":::HETBENCH" in p.read_text()]
        if not manifests or not logs:
            problems.append(f"the log volume lacks the unit's manifest or log: "
                            f"{sorted(str(p.relative_to(log_dir)) for p in log_dir.rglob('*'))}")
        for label, path in scratch.items():
            left = sorted(str(p.relative_to(path)) for p in path.rglob("*"))
            if left:
                problems.append(f"the operator wrote outside its log volume, in its {label}: "
                                f"{left}")

        spec = deployment["spec"]["template"]["spec"]
        rbac = Rbac(objects, deployment["metadata"]["namespace"],
                    spec.get("serviceAccountName", "default"))
        used = set()
        denied = set()
        for method, target in proxy.requests:
            request = api_request(method, target)
            if request is None:
                if not DISCOVERY.match(urllib.parse.urlsplit(target).path):
                    denied.add(f"{method} {target}")
                continue
            verb, group, resource, namespace, obj = request
            used.add((verb, group, resource))
            if not rbac.allows(verb, group, resource, namespace, obj):
                denied.add(f"{verb} {resource}{'.' + group if group else ''} "
                           f"(namespace {namespace or '-'}, name {obj or '-'}): {method} {target}")
        if denied:
            problems.append("requests the rendered RBAC does not allow:\n  " +
                            "\n  ".join(sorted(denied)))
        if problems:
            raise Failure("\n".join(problems))
        unused = sorted(f"{v} {r}{'.' + g if g else ''}" for v, g, r in rbac.granted() - used)
        print(f"operator: run {name} Succeeded at {throughput} samples/s; {checked} requests to "
              f"/metrics and the log server answered as the shipped roles say; "
              f"{len(proxy.requests)} API requests, all allowed by the rendered RBAC")
        print("granted but not used by this run (paths it did not take):", ", ".join(unused))
    finally:
        if process is not None:
            stop_process(process)
        if proxy is not None:
            proxy.stop()
        cluster.stop()


# --- samples -----------------------------------------------------------------------------------


def check_samples(work, kubesim, operator):
    files = sorted(SAMPLES.glob("*.yaml"))
    if not files:
        raise Failure(f"no samples in {SAMPLES}")
    cluster = Kubesim(kubesim, work)
    process = None
    try:
        cluster.kubectl("apply", "-k", str(ROOT / "crds"))
        cluster.kubectl("apply", "-f", str(IPUJOB_CRD))
        cluster.kubectl("wait", "--for=condition=Established", "--timeout=20s",
                        "crd/benchmarkruns.hetbench.io", "crd/benchmarkschedules.hetbench.io",
                        "crd/benchmarkseries.hetbench.io", "crd/ipujobs.graphcore.ai")
        # Pods built from a workload meet the restricted Pod Security Standard, and so must the
        # samples' templates: kubesim's PodSecurity admission refuses any pod that does not.
        cluster.create_namespace("samples", {"pod-security.kubernetes.io/enforce": "restricted"})

        problems = []
        runs = []
        count = 0
        for path in files:
            for obj in load_documents(path.read_text()):
                count += 1
                label = f"{object_name(obj)} ({path.name})"
                if obj.get("apiVersion") != "hetbench.io/v1alpha1":
                    problems.append(f"{label}: apiVersion {obj.get('apiVersion')!r}")
                code, out = cluster.kubectl("apply", "--dry-run=server", "-n", "samples", "-f",
                                            "-", stdin=json.dumps(obj), check=False)
                if code != 0:
                    problems.append(f"{label}: refused by admission:\n{out}")
                    continue
                if obj["kind"] == "BenchmarkRun":
                    runs.append((label, obj))
        if problems:
            raise Failure("\n".join(problems))

        operator_log = work / "operator.log"
        with open(operator_log, "w") as log:
            process = subprocess.Popen(
                [operator, f"--kubeconfig={cluster.kubeconfig}", f"--log-dir={work / 'logs'}",
                 "--metrics-bind-address=127.0.0.1:0", "--health-probe-bind-address=0",
                 "--logs-bind-address=0", "--log-format=json", "--namespace=samples"],
                stdout=log, stderr=subprocess.STDOUT)
        for label, obj in runs:
            cluster.kubectl("create", "-n", "samples", "-f", "-", stdin=json.dumps(obj))
        pending = {obj["metadata"]["name"]: label for label, obj in runs}
        for _ in deadline_loop(30, 0.2):
            if process.poll() is not None:
                raise Failure(f"hetbench-operator exited:\n{operator_log.read_text()}")
            _, out = cluster.kubectl("get", "benchmarkruns", "-n", "samples", "-o", "json")
            for item in json.loads(out)["items"]:
                name = item["metadata"]["name"]
                accepted = [c for c in item.get("status", {}).get("conditions", [])
                            if c.get("type") == "Accepted"]
                if name not in pending or not accepted:
                    continue
                if accepted[0].get("status") != "True":
                    problems.append(f"{pending[name]}: not accepted by the operator: "
                                    f"{accepted[0].get('reason')}: {accepted[0].get('message')}")
                del pending[name]
            if not pending:
                break
        for label in pending.values():
            problems.append(f"{label}: no Accepted condition within 30 s")
        if problems:
            raise Failure("\n".join(problems))

        # Graphcore's IPU operator makes an IPUJob's workers privileged, so those need a
        # privileged namespace whatever hetbench renders; every other run's pods are admitted.
        def workload_kind(obj):
            spec = obj["spec"]
            return spec["template"]["kind"] if "template" in spec else \
                spec["workload"].get("kind", "Pod")
        without_pods = {obj["metadata"]["name"]: label for label, obj in runs
                        if workload_kind(obj) != "IPUJob"}
        checked = len(without_pods)
        for _ in deadline_loop(30, 0.2):
            _, out = cluster.kubectl("get", "pods", "-n", "samples", "-o", "json")
            for item in json.loads(out)["items"]:
                without_pods.pop(item["metadata"].get("labels", {}).get("hetbench.io/run"), None)
            if not without_pods:
                break
        if without_pods:
            _, events = cluster.kubectl("get", "events", "-n", "samples", check=False)
            raise Failure("no pod admitted under the restricted PodSecurity level within 30 s: " +
                          ", ".join(without_pods.values()) + f"\n{events}\n" +
                          operator_log.read_text()[-4000:])
        print(f"samples: {count} objects in {len(files)} files pass admission; "
              f"{len(runs)} BenchmarkRuns accepted by the operator; the pods of {checked} "
              "admitted in a namespace that enforces the restricted Pod Security Standard")
    finally:
        if process is not None:
            stop_process(process)
        cluster.stop()


# --- Dockerfile --------------------------------------------------------------------------------


def dockerfile_runtime_packages(text):
    """The packages the last stage of a Dockerfile installs with apt-get install."""
    stages = re.split(r"^FROM\s", text, flags=re.MULTILINE)
    last = stages[-1].replace("\\\n", " ")
    found = re.search(r"apt-get install ((?:(?!&&).)*)", last)
    if not found:
        raise Failure("the Dockerfile's last stage installs no packages")
    return sorted(word for word in found.group(1).split() if not word.startswith("-"))


# Packages that only the tests and the workloads need (GoogleTest, Prometheus's promtool, clang and
# LLVM, LibTorch and its Python, the data readers' libraries): none belongs in the operator image.
TEST_PACKAGE = re.compile(r"gtest|gmock|^prometheus$|clang|llvm|torch|gloo|jpeg|hdf5|^python3")
BUILD_OPTIONS = ("-DHETBENCH_TESTS=OFF", "-DHETBENCH_KUBESIM=OFF", "-DHETBENCH_WORKLOADS=OFF")


def setup_operator_packages(text):
    """The packages of `scripts/setup --operator-only` (its operator_packages array)."""
    found = re.search(r"^operator_packages=\((.*?)^\)", text, flags=re.MULTILINE | re.DOTALL)
    if not found:
        raise Failure("scripts/setup has no operator_packages=( ... ) list")
    lines = [line.split("#")[0] for line in found.group(1).splitlines()]
    return sorted(word for line in lines for word in line.split())


def check_build_stage(dockerfile, setup):
    """The first stage of the Dockerfile runs scripts/setup --operator-only, installs nothing
    else with apt-get, and configures CMake with BUILD_OPTIONS."""
    stage = re.split(r"^FROM\s", dockerfile, flags=re.MULTILINE)[1].replace("\\\n", " ")
    commands = [command.strip() for line in stage.splitlines() if line.startswith("RUN ")
                for command in line[len("RUN "):].split("&&")]
    problems = []
    setups = [c for c in commands if c.startswith("scripts/setup")]
    if not setups or any(c.split() != ["scripts/setup", "--operator-only"] for c in setups):
        problems.append(f"the build stage runs {setups}, want scripts/setup --operator-only")
    problems += [f"the build stage installs packages itself: {c}" for c in commands
                 if "apt-get install" in c]
    configures = [c for c in commands if c.startswith("cmake -S")]
    if len(configures) != 1:
        problems.append(f"the build stage configures {len(configures)} times, want once")
    for option in BUILD_OPTIONS:
        if configures and option not in configures[0].split():
            problems.append(f"the build stage's CMake configure lacks {option}")
    packages = setup_operator_packages(setup)
    tests = [p for p in packages if TEST_PACKAGE.search(p)]
    if tests:
        problems.append(f"scripts/setup --operator-only installs test packages: {tests}")
    if problems:
        raise Failure("\n".join(problems))
    return packages


def check_dockerfile(work, binaries):
    dockerfile = (ROOT / "Dockerfile").read_text()
    build_packages = check_build_stage(dockerfile, SETUP.read_text())
    print(f"dockerfile: the build stage installs {len(build_packages)} packages, none for the "
          "tests or the workloads, and builds without them")
    if shutil.which("dpkg") is None or shutil.which("ldd") is None:
        print("dpkg or ldd not installed: skipped")
        return SKIPPED
    derived = subprocess.run([str(ROOT / "images" / "debian-runtime-packages"), *binaries],
                             capture_output=True, text=True, check=False)
    if derived.returncode != 0:
        raise Failure(f"images/debian-runtime-packages failed:\n{derived.stderr}")
    # tzdata is read, not linked: BenchmarkSchedules' time zones come from /usr/share/zoneinfo.
    want = sorted(derived.stdout.split() + ["tzdata"])
    have = dockerfile_runtime_packages(dockerfile)
    (work / "runtime-packages.txt").write_text("\n".join(want) + "\n")
    if have != want:
        raise Failure(f"Dockerfile installs {have}\nbut the binaries load the libraries of "
                      f"{want}\n(missing: {sorted(set(want) - set(have))}, "
                      f"extra: {sorted(set(have) - set(want))})")
    print(f"dockerfile: the runtime stage installs exactly the {len(want)} packages the "
          "binaries need")
    return 0


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    check, work = argv[1], pathlib.Path(argv[2]).resolve()
    argv = argv[:3] + [os.path.abspath(a) for a in argv[3:]]
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    if check in ("apply", "operator", "samples") and shutil.which("kubectl") is None:
        print("kubectl not installed: skipped")
        return SKIPPED
    try:
        if check == "apply" and len(argv) == 4:
            check_apply(work, argv[3])
        elif check == "operator" and len(argv) == 5:
            check_operator(work, argv[3], argv[4])
        elif check == "samples" and len(argv) == 5:
            check_samples(work, argv[3], argv[4])
        elif check == "dockerfile" and len(argv) >= 4:
            return check_dockerfile(work, argv[3:])
        else:
            print(__doc__, file=sys.stderr)
            return 2
    except Failure as failure:
        print(f"FAIL {check}: {failure}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
