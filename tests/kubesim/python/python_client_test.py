#!/usr/bin/env python3
"""The official Kubernetes Python client (Debian's python3-kubernetes) against a kubesim binary.

Usage: python_client_test.py KUBESIM_BINARY. Exits 77 (skipped) when `kubernetes` cannot be
imported. Each expectation is what the Kubernetes API reference says a real API server answers;
the client's models refuse objects that lack the fields they require, so reading a kind at all
checks that kubesim fills what a kubelet and the API server fill.
"""
import ctypes
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest

try:
    from kubernetes import client, config, watch
    from kubernetes.client.rest import ApiException
except ImportError:
    print("python3-kubernetes not installed: skipped")
    sys.exit(77)

KUBESIM = None
NAMESPACE = "pyclient"
# Seconds any one request may take; a stuck server fails the test instead of hanging it.
REQUEST_TIMEOUT = 20
# How often kubesim sends BOOKMARKs here (its default is a minute, too long for a test).
BOOKMARK_INTERVAL_S = 1


# prctl(2)'s option that signals a child when its parent dies.
PR_SET_PDEATHSIG = 1


def stop_with_parent():
    """Has Linux stop kubesim if this test dies without tearing down (killed at ctest's timeout)."""
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


class Kubesim:
    """A kubesim process on a free loopback port, with a kubeconfig naming it."""

    def __init__(self, binary):
        self.work = tempfile.mkdtemp(prefix="kubesim-python-")
        self.kubeconfig = os.path.join(self.work, "kubeconfig")
        self.log = open(os.path.join(self.work, "kubesim.log"), "wb")
        self.process = subprocess.Popen(
            [binary, "--write-kubeconfig", self.kubeconfig,
             "--work-dir", os.path.join(self.work, "pods"),
             "--bookmark-interval", f"{BOOKMARK_INTERVAL_S}s"],
            stdout=self.log, stderr=subprocess.STDOUT, preexec_fn=stop_with_parent)
        deadline = time.monotonic() + 10
        while not os.path.exists(self.kubeconfig):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("kubesim did not start")
            time.sleep(0.05)

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()
        shutil.rmtree(self.work, ignore_errors=True)


def setUpModule():
    global KUBESIM
    KUBESIM = Kubesim(sys.argv[1])
    config.load_kube_config(KUBESIM.kubeconfig)
    client.CoreV1Api().create_namespace(
        client.V1Namespace(metadata=client.V1ObjectMeta(name=NAMESPACE)),
        _request_timeout=REQUEST_TIMEOUT)


def tearDownModule():
    if KUBESIM is not None:
        KUBESIM.stop()


def wait_until(predicate, what, timeout=20):
    """Polls predicate until it returns a true value; fails the test after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


def raw_call(method, path, body=None, content_type="application/json", query=None):
    """A request through the client's own ApiClient, answered as parsed JSON and status code."""
    api = client.ApiClient()
    response = api.call_api(
        path, method, query_params=query or [], body=body,
        header_params={"Content-Type": content_type, "Accept": "application/json"},
        auth_settings=["BearerToken"], _preload_content=False, _return_http_data_only=False,
        _request_timeout=REQUEST_TIMEOUT)
    data, status, _ = response
    return json.loads(data.data), status


def config_map(name, data=None, labels=None, owners=None):
    return client.V1ConfigMap(
        metadata=client.V1ObjectMeta(name=name, labels=labels, owner_references=owners),
        data=data or {})


def shell_pod(name, script, labels=None):
    return client.V1Pod(
        metadata=client.V1ObjectMeta(name=name, labels=labels),
        spec=client.V1PodSpec(
            restart_policy="Never",
            containers=[client.V1Container(name="main", image="busybox:1.36",
                                           command=["sh", "-c", script])]))


class Nodes(unittest.TestCase):
    """Verifies that nodes list and read as the kubelet registers them."""

    def setUp(self):
        self.v1 = client.CoreV1Api()

    def test_list_reads_every_node_model(self):
        nodes = self.v1.list_node(_request_timeout=REQUEST_TIMEOUT)
        self.assertEqual(nodes.kind, "NodeList")
        self.assertEqual(nodes.api_version, "v1")
        self.assertTrue(nodes.metadata.resource_version)
        self.assertEqual(sorted(n.metadata.name for n in nodes.items),
                         ["a100-1", "a100-2", "cpu-1", "cpu-2", "h100-1", "ipu-pod16-1",
                          "mi210-1"])
        for node in nodes.items:
            info = node.status.node_info
            # NodeSystemInfo: every field is required and written by the kubelet.
            for field in ("machine_id", "system_uuid", "boot_id", "kernel_version", "os_image",
                          "container_runtime_version", "kubelet_version", "kube_proxy_version"):
                self.assertTrue(getattr(info, field), f"{node.metadata.name}: {field}")
            self.assertEqual((info.operating_system, info.architecture), ("linux", "amd64"))
            self.assertEqual(len(info.machine_id), 32)
            self.assertEqual(node.status.daemon_endpoints.kubelet_endpoint.port, 10250)
            conditions = {c.type: c for c in node.status.conditions}
            self.assertEqual(sorted(conditions),
                             ["DiskPressure", "MemoryPressure", "PIDPressure", "Ready"])
            ready = conditions["Ready"]
            self.assertEqual((ready.status, ready.reason), ("True", "KubeletReady"))
            self.assertEqual(conditions["MemoryPressure"].reason, "KubeletHasSufficientMemory")
            self.assertEqual(conditions["PIDPressure"].reason, "KubeletHasSufficientPID")
            for condition in conditions.values():
                self.assertIsNotNone(condition.last_heartbeat_time)
                self.assertIsNotNone(condition.last_transition_time)
            self.assertIn("InternalIP", [a.type for a in node.status.addresses])
            self.assertEqual(node.status.allocatable["pods"], "110")

    def test_label_and_field_selectors(self):
        h100 = self.v1.list_node(label_selector="nvidia.com/gpu.product=NVIDIA-H100-80GB-HBM3",
                                 _request_timeout=REQUEST_TIMEOUT)
        self.assertEqual([n.metadata.name for n in h100.items], ["h100-1"])
        gpus = self.v1.list_node(label_selector="nvidia.com/gpu.count,hetbench.io/system!=lab-h100",
                                 _request_timeout=REQUEST_TIMEOUT)
        self.assertEqual(sorted(n.metadata.name for n in gpus.items), ["a100-1", "a100-2"])
        one = self.v1.list_node(field_selector="metadata.name=cpu-2",
                                _request_timeout=REQUEST_TIMEOUT)
        self.assertEqual([n.metadata.name for n in one.items], ["cpu-2"])

    def test_limit_and_continue(self):
        # Pages come in name order; each but the last carries a continue token and the count of
        # items after it.
        first = self.v1.list_node(limit=3, _request_timeout=REQUEST_TIMEOUT)
        self.assertEqual([n.metadata.name for n in first.items], ["a100-1", "a100-2", "cpu-1"])
        self.assertTrue(first.metadata._continue)
        self.assertEqual(first.metadata.remaining_item_count, 4)
        second = self.v1.list_node(limit=3, _continue=first.metadata._continue,
                                   _request_timeout=REQUEST_TIMEOUT)
        self.assertEqual([n.metadata.name for n in second.items], ["cpu-2", "h100-1",
                                                                   "ipu-pod16-1"])
        self.assertEqual(second.metadata.remaining_item_count, 1)
        last = self.v1.list_node(limit=3, _continue=second.metadata._continue,
                                 _request_timeout=REQUEST_TIMEOUT)
        self.assertEqual([n.metadata.name for n in last.items], ["mi210-1"])
        self.assertFalse(last.metadata._continue)
        self.assertIsNone(last.metadata.remaining_item_count)

    def test_get_and_not_found(self):
        node = self.v1.read_node("a100-1", _request_timeout=REQUEST_TIMEOUT)
        self.assertEqual(node.status.capacity["nvidia.com/gpu"], "4")
        with self.assertRaises(ApiException) as caught:
            self.v1.read_node("absent", _request_timeout=REQUEST_TIMEOUT)
        self.assertEqual(caught.exception.status, 404)
        status = json.loads(caught.exception.body)
        self.assertEqual((status["kind"], status["reason"], status["message"]),
                         ("Status", "NotFound", 'nodes "absent" not found'))


class Namespaces(unittest.TestCase):
    """Verifies namespaces: the built-in four, selectors, and what a create fills."""

    def setUp(self):
        self.v1 = client.CoreV1Api()

    def test_list_and_select(self):
        names = [n.metadata.name for n in
                 self.v1.list_namespace(_request_timeout=REQUEST_TIMEOUT).items]
        for name in ("default", "kube-system", "kube-public", "kube-node-lease", NAMESPACE):
            self.assertIn(name, names)
        # The API server labels every namespace with its name.
        selected = self.v1.list_namespace(label_selector="kubernetes.io/metadata.name=default",
                                          _request_timeout=REQUEST_TIMEOUT)
        self.assertEqual([n.metadata.name for n in selected.items], ["default"])
        by_field = self.v1.list_namespace(field_selector="status.phase=Active,metadata.name="
                                          + NAMESPACE, _request_timeout=REQUEST_TIMEOUT)
        self.assertEqual([n.metadata.name for n in by_field.items], [NAMESPACE])

    def test_created_namespace(self):
        ns = self.v1.read_namespace(NAMESPACE, _request_timeout=REQUEST_TIMEOUT)
        self.assertEqual(ns.status.phase, "Active")
        self.assertEqual(ns.spec.finalizers, ["kubernetes"])
        self.assertTrue(ns.metadata.uid)
        self.assertIsNotNone(ns.metadata.creation_timestamp)


class Writes(unittest.TestCase):
    """Verifies create, replace, the three patch types and deletion with each propagation."""

    def setUp(self):
        self.v1 = client.CoreV1Api()

    def test_create_get_replace(self):
        created = self.v1.create_namespaced_config_map(
            NAMESPACE, config_map("settings", {"mode": "fast"}, {"app": "demo"}),
            _request_timeout=REQUEST_TIMEOUT)
        self.assertEqual(created.data, {"mode": "fast"})
        self.assertTrue(created.metadata.resource_version)
        with self.assertRaises(ApiException) as caught:
            self.v1.create_namespaced_config_map(NAMESPACE, config_map("settings"),
                                                 _request_timeout=REQUEST_TIMEOUT)
        self.assertEqual(caught.exception.status, 409)
        self.assertEqual(json.loads(caught.exception.body)["reason"], "AlreadyExists")

        got = self.v1.read_namespaced_config_map("settings", NAMESPACE,
                                                 _request_timeout=REQUEST_TIMEOUT)
        got.data["mode"] = "slow"
        replaced = self.v1.replace_namespaced_config_map("settings", NAMESPACE, got,
                                                         _request_timeout=REQUEST_TIMEOUT)
        self.assertEqual(replaced.data, {"mode": "slow"})
        self.assertGreater(int(replaced.metadata.resource_version),
                           int(created.metadata.resource_version))
        # A replace naming an old resourceVersion is a conflict (optimistic concurrency).
        with self.assertRaises(ApiException) as caught:
            self.v1.replace_namespaced_config_map("settings", NAMESPACE, got,
                                                  _request_timeout=REQUEST_TIMEOUT)
        self.assertEqual(caught.exception.status, 409)
        self.assertEqual(json.loads(caught.exception.body)["reason"], "Conflict")

        listed = self.v1.list_namespaced_config_map(NAMESPACE, label_selector="app=demo",
                                                    _request_timeout=REQUEST_TIMEOUT)
        self.assertEqual([c.metadata.name for c in listed.items], ["settings"])

    def test_patches(self):
        self.v1.create_namespaced_config_map(
            NAMESPACE, config_map("patched", {"a": "1", "b": "2"}),
            _request_timeout=REQUEST_TIMEOUT)
        # The client sends a dict as a strategic merge patch and a list as a JSON patch.
        strategic = self.v1.patch_namespaced_config_map(
            "patched", NAMESPACE, {"data": {"b": None, "c": "3"}},
            _request_timeout=REQUEST_TIMEOUT)
        self.assertEqual(strategic.data, {"a": "1", "c": "3"})
        json_patch = self.v1.patch_namespaced_config_map(
            "patched", NAMESPACE, [{"op": "replace", "path": "/data/a", "value": "9"},
                                   {"op": "add", "path": "/metadata/labels", "value": {"x": "y"}}],
            _request_timeout=REQUEST_TIMEOUT)
        self.assertEqual(json_patch.data, {"a": "9", "c": "3"})
        self.assertEqual(json_patch.metadata.labels, {"x": "y"})
        merged, status = raw_call(
            "PATCH", f"/api/v1/namespaces/{NAMESPACE}/configmaps/patched",
            {"data": {"c": None}, "metadata": {"labels": {"x": None, "z": "w"}}},
            content_type="application/merge-patch+json")
        self.assertEqual(status, 200)
        self.assertEqual((merged["data"], merged["metadata"]["labels"]), ({"a": "9"}, {"z": "w"}))
        # A JSON patch whose test fails is 422 Invalid.
        with self.assertRaises(ApiException) as caught:
            self.v1.patch_namespaced_config_map(
                "patched", NAMESPACE, [{"op": "test", "path": "/data/a", "value": "0"}],
                _request_timeout=REQUEST_TIMEOUT)
        self.assertEqual(caught.exception.status, 422)

    def test_strategic_merge_on_pod_lists(self):
        # Strategic merge merges containers by name, where a merge patch would replace the list.
        self.v1.create_namespaced_pod(NAMESPACE, shell_pod("smp", "sleep 30"),
                                      _request_timeout=REQUEST_TIMEOUT)
        patched = self.v1.patch_namespaced_pod(
            "smp", NAMESPACE,
            {"spec": {"containers": [{"name": "main", "image": "busybox:1.37"}]}},
            _request_timeout=REQUEST_TIMEOUT)
        container = patched.spec.containers[0]
        self.assertEqual((container.image, container.command), ("busybox:1.37",
                                                                ["sh", "-c", "sleep 30"]))
        self.v1.delete_namespaced_pod("smp", NAMESPACE, grace_period_seconds=0,
                                      _request_timeout=REQUEST_TIMEOUT)

    def _owner_with_child(self, name):
        owner = self.v1.create_namespaced_config_map(NAMESPACE, config_map(name),
                                                     _request_timeout=REQUEST_TIMEOUT)
        reference = client.V1OwnerReference(api_version="v1", kind="ConfigMap", name=name,
                                            uid=owner.metadata.uid, block_owner_deletion=True)
        self.v1.create_namespaced_config_map(NAMESPACE, config_map(name + "-child",
                                                                   owners=[reference]),
                                             _request_timeout=REQUEST_TIMEOUT)

    def _exists(self, name):
        try:
            return self.v1.read_namespaced_config_map(name, NAMESPACE,
                                                      _request_timeout=REQUEST_TIMEOUT)
        except ApiException as e:
            if e.status == 404:
                return None
            raise

    def test_delete_propagation(self):
        # Background: the owner goes at once (a Success Status), the garbage collector then
        # deletes the child.
        self._owner_with_child("bg")
        answer, status = raw_call("DELETE", f"/api/v1/namespaces/{NAMESPACE}/configmaps/bg",
                                  {"propagationPolicy": "Background"})
        self.assertEqual((status, answer["kind"], answer["status"]), (200, "Status", "Success"))
        self.assertEqual(answer["details"]["name"], "bg")
        wait_until(lambda: self._exists("bg-child") is None, "the child of bg to go")

        # Foreground: the owner stays, marked and held by foregroundDeletion, until its blocking
        # child is gone.
        self._owner_with_child("fg")
        answer, status = raw_call("DELETE", f"/api/v1/namespaces/{NAMESPACE}/configmaps/fg",
                                  {"propagationPolicy": "Foreground"})
        self.assertEqual((status, answer["kind"]), (200, "ConfigMap"))
        self.assertIn("deletionTimestamp", answer["metadata"])
        self.assertEqual(answer["metadata"]["finalizers"], ["foregroundDeletion"])
        wait_until(lambda: self._exists("fg-child") is None and self._exists("fg") is None,
                   "fg and its child to go")

        # Orphan, as the client's keyword (a query parameter): the child stays, without its
        # owner reference.
        self._owner_with_child("orphan")
        self.v1.delete_namespaced_config_map("orphan", NAMESPACE, propagation_policy="Orphan",
                                             _request_timeout=REQUEST_TIMEOUT)
        wait_until(lambda: self._exists("orphan") is None, "orphan to go")
        child = wait_until(lambda: (c := self._exists("orphan-child")) is not None
                           and not c.metadata.owner_references and c, "the child orphaned")
        self.assertEqual(child.metadata.name, "orphan-child")

        # The deprecated orphanDependents=True (the client writes Python's "True") orphans too.
        self._owner_with_child("legacy")
        self.v1.delete_namespaced_config_map("legacy", NAMESPACE, orphan_dependents=True,
                                             _request_timeout=REQUEST_TIMEOUT)
        wait_until(lambda: self._exists("legacy") is None, "legacy to go")
        wait_until(lambda: (c := self._exists("legacy-child")) is not None
                   and not c.metadata.owner_references, "the child of legacy orphaned")

    def test_pod_graceful_delete(self):
        self.v1.create_namespaced_pod(NAMESPACE, shell_pod("graceful", "sleep 30"),
                                      _request_timeout=REQUEST_TIMEOUT)
        # The API server deletes a pod that no node runs yet at once, without a grace period.
        wait_until(lambda: self.v1.read_namespaced_pod(
            "graceful", NAMESPACE, _request_timeout=REQUEST_TIMEOUT).status.phase == "Running",
                   "the pod to run")
        answer, status = raw_call("DELETE", f"/api/v1/namespaces/{NAMESPACE}/pods/graceful")
        # A pod's delete answers the pod, marked with the grace period it was given.
        self.assertEqual((status, answer["kind"]), (200, "Pod"))
        self.assertEqual(answer["metadata"]["deletionGracePeriodSeconds"], 30)
        wait_until(lambda: not [p for p in self.v1.list_namespaced_pod(
            NAMESPACE, field_selector="metadata.name=graceful",
            _request_timeout=REQUEST_TIMEOUT).items], "the pod to go")


class Pods(unittest.TestCase):
    """Verifies pods as the API server defaults them and the kubelet runs them, and their logs."""

    def setUp(self):
        self.v1 = client.CoreV1Api()

    def wait_phase(self, name, phase):
        return wait_until(lambda: (p := self.v1.read_namespaced_pod(
            name, NAMESPACE, _request_timeout=REQUEST_TIMEOUT)).status.phase == phase and p,
            f"pod {name} {phase}")

    def test_defaults_status_and_logs(self):
        created = self.v1.create_namespaced_pod(
            NAMESPACE, shell_pod("ticker", "for i in 1 2 3; do echo tick $i; done",
                                 {"app": "ticker"}), _request_timeout=REQUEST_TIMEOUT)
        spec = created.spec
        # The API server's defaults.
        self.assertEqual((spec.dns_policy, spec.scheduler_name,
                          spec.termination_grace_period_seconds, spec.service_account_name,
                          spec.enable_service_links),
                         ("ClusterFirst", "default-scheduler", 30, "default", True))
        container = spec.containers[0]
        self.assertEqual((container.termination_message_path,
                          container.termination_message_policy, container.image_pull_policy),
                         ("/dev/termination-log", "File", "IfNotPresent"))
        self.assertEqual((created.status.phase, created.status.qos_class),
                         ("Pending", "BestEffort"))

        pod = self.wait_phase("ticker", "Succeeded")
        self.assertTrue(pod.spec.node_name)
        self.assertTrue(pod.status.host_ip)
        self.assertIsNotNone(pod.status.start_time)
        self.assertIn("PodScheduled", [c.type for c in pod.status.conditions])
        status = pod.status.container_statuses[0]
        self.assertEqual((status.name, status.image, status.ready, status.restart_count),
                         ("main", "busybox:1.36", False, 0))
        # The runtime's image reference: the normalized repository and a digest.
        self.assertRegex(status.image_id, r"^docker\.io/library/busybox@sha256:[0-9a-f]{64}$")
        self.assertTrue(status.container_id)
        terminated = status.state.terminated
        self.assertEqual((terminated.exit_code, terminated.reason), (0, "Completed"))

        self.assertEqual(self.v1.read_namespaced_pod_log("ticker", NAMESPACE,
                                                         _request_timeout=REQUEST_TIMEOUT),
                         "tick 1\ntick 2\ntick 3\n")
        self.assertEqual(self.v1.read_namespaced_pod_log("ticker", NAMESPACE, tail_lines=1,
                                                         _request_timeout=REQUEST_TIMEOUT),
                         "tick 3\n")
        stamped = self.v1.read_namespaced_pod_log("ticker", NAMESPACE, timestamps=True,
                                                  _request_timeout=REQUEST_TIMEOUT)
        self.assertRegex(stamped.splitlines()[0], r"^\d{4}-\d\d-\d\dT[\d:.]+Z tick 1$")

        selected = self.v1.list_namespaced_pod(
            NAMESPACE, label_selector="app=ticker", field_selector="status.phase=Succeeded",
            _request_timeout=REQUEST_TIMEOUT)
        self.assertEqual([p.metadata.name for p in selected.items], ["ticker"])
        everywhere = self.v1.list_pod_for_all_namespaces(
            field_selector=f"spec.nodeName={pod.spec.node_name},metadata.namespace={NAMESPACE}",
            _request_timeout=REQUEST_TIMEOUT)
        self.assertIn("ticker", [p.metadata.name for p in everywhere.items])

    def test_follow_logs(self):
        self.v1.create_namespaced_pod(
            NAMESPACE, shell_pod("follower", "for i in 1 2 3; do echo line $i; sleep 0.3; done"),
            _request_timeout=REQUEST_TIMEOUT)
        self.wait_phase("follower", "Running")
        # Watch.stream on a log function follows it (follow=True) and yields its lines; the
        # stream ends when the container does.
        lines = list(watch.Watch().stream(self.v1.read_namespaced_pod_log, "follower", NAMESPACE,
                                          _request_timeout=REQUEST_TIMEOUT))
        self.assertEqual(lines, ["line 1", "line 2", "line 3"])


class Watches(unittest.TestCase):
    """Verifies watches: events in order, bookmarks, resuming, and 410 for a lost version."""

    def setUp(self):
        self.v1 = client.CoreV1Api()

    def stream(self, **kwargs):
        return watch.Watch().stream(self.v1.list_namespaced_config_map, NAMESPACE,
                                    _request_timeout=REQUEST_TIMEOUT, **kwargs)

    def test_events_bookmarks_and_resume(self):
        start = self.v1.list_namespaced_config_map(
            NAMESPACE, _request_timeout=REQUEST_TIMEOUT).metadata.resource_version
        self.v1.create_namespaced_config_map(NAMESPACE, config_map("watched", {"v": "1"},
                                                                   {"watch": "me"}),
                                             _request_timeout=REQUEST_TIMEOUT)
        self.v1.patch_namespaced_config_map("watched", NAMESPACE, {"data": {"v": "2"}},
                                            _request_timeout=REQUEST_TIMEOUT)
        deleted = self.v1.delete_namespaced_config_map("watched", NAMESPACE,
                                                       _request_timeout=REQUEST_TIMEOUT)
        self.assertEqual(deleted.status, "Success")

        events = []
        for event in self.stream(resource_version=start, label_selector="watch=me",
                                 allow_watch_bookmarks=True,
                                 timeout_seconds=3 * BOOKMARK_INTERVAL_S):
            events.append(event)
        changes = [(e["type"], e["object"].data) for e in events if e["type"] != "BOOKMARK"]
        self.assertEqual(changes, [("ADDED", {"v": "1"}), ("MODIFIED", {"v": "2"}),
                                   ("DELETED", {"v": "2"})])
        bookmarks = [e["raw_object"] for e in events if e["type"] == "BOOKMARK"]
        self.assertTrue(bookmarks, "no BOOKMARK in three bookmark intervals")
        # A BOOKMARK carries only the kind and a resourceVersion at least the last event's.
        deleted_version = int(events[2]["object"].metadata.resource_version)
        for bookmark in bookmarks:
            self.assertEqual((bookmark["kind"], bookmark["apiVersion"]), ("ConfigMap", "v1"))
            self.assertGreaterEqual(int(bookmark["metadata"]["resourceVersion"]), deleted_version)

        # Resuming from the MODIFIED event's version sees only what came after it.
        modified_version = events[1]["object"].metadata.resource_version
        resumed = [e["type"] for e in self.stream(resource_version=modified_version,
                                                  label_selector="watch=me", timeout_seconds=1)]
        self.assertEqual(resumed, ["DELETED"])

    def test_live_events(self):
        # A watch without a resourceVersion starts with the current state (ADDED), then follows.
        self.v1.create_namespaced_config_map(NAMESPACE,
                                             config_map("live-old", labels={"live": "1"}),
                                             _request_timeout=REQUEST_TIMEOUT)
        later = threading.Timer(0.5, lambda: self.v1.create_namespaced_config_map(
            NAMESPACE, config_map("live-new", labels={"live": "1"}),
            _request_timeout=REQUEST_TIMEOUT))
        seen = []
        w = watch.Watch()
        later.start()
        try:
            for event in w.stream(self.v1.list_namespaced_config_map, NAMESPACE,
                                  label_selector="live=1", timeout_seconds=10,
                                  _request_timeout=REQUEST_TIMEOUT):
                seen.append((event["type"], event["object"].metadata.name))
                if len(seen) == 2:
                    w.stop()
        finally:
            later.join()
        self.assertEqual(seen, [("ADDED", "live-old"), ("ADDED", "live-new")])

    def test_too_old_resource_version_is_gone(self):
        start = self.v1.list_namespaced_config_map(
            NAMESPACE, _request_timeout=REQUEST_TIMEOUT).metadata.resource_version
        self.v1.create_namespaced_config_map(NAMESPACE, config_map("expired"),
                                             _request_timeout=REQUEST_TIMEOUT)
        # kubesim's fault injection drops its watch history, as compaction does on a cluster.
        _, status = raw_call("POST", "/kubesim/faults", {"expireHistory": True})
        self.assertEqual(status, 200)
        # The API server answers 200 and then an ERROR event whose Status is 410 Expired; the
        # client raises it as an ApiException.
        with self.assertRaises(ApiException) as caught:
            list(self.stream(resource_version=start, timeout_seconds=2))
        self.assertEqual(caught.exception.status, 410)
        self.assertIn("Expired: too old resource version", caught.exception.reason)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python_client_test.py KUBESIM_BINARY")
    program = unittest.main(argv=sys.argv[:1], exit=False, verbosity=2)
    sys.exit(0 if program.result.wasSuccessful() else 1)
