#!/usr/bin/env bash
# Drives the real kubectl against a kubesim binary: what a user types must work as on a cluster.
# Usage: kubectl_test.sh KUBESIM_BINARY. Exits 77 (skipped) when kubectl is not installed.
set -euo pipefail
kubesim=$1
here=$(cd "$(dirname "$0")" && pwd)
for tool in kubectl curl pgrep; do
  command -v "$tool" >/dev/null || { echo "$tool not installed: skipped"; exit 77; }
done

work=$(mktemp -d)
pid=""
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

"$kubesim" --write-kubeconfig "$work/kubeconfig" --work-dir "$work/pods" >"$work/kubesim.log" 2>&1 &
pid=$!
for _ in $(seq 100); do [ -f "$work/kubeconfig" ] && break; sleep 0.1; done
[ -f "$work/kubeconfig" ] || { cat "$work/kubesim.log"; echo "kubesim did not start"; exit 1; }
export KUBECONFIG=$work/kubeconfig

passed=0
failed=0
k() { timeout 30 kubectl --request-timeout=20s "$@"; }
check() {  # check NAME EXPECTED_SUBSTRING COMMAND...: the command's output must contain it
  local name=$1 want=$2
  shift 2
  local out
  out=$("$@" 2>&1) || true
  if [[ "$out" == *"$want"* ]]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    printf 'FAIL %s\n  wanted: %s\n  got: %s\n' "$name" "$want" "$out"
  fi
}
wait_for() {  # wait_for NAME EXPECTED COMMAND...: polls for up to 20 s
  local name=$1 want=$2
  shift 2
  for _ in $(seq 200); do
    if [[ "$("$@" 2>&1 || true)" == *"$want"* ]]; then
      passed=$((passed + 1))
      return
    fi
    sleep 0.1
  done
  check "$name" "$want" "$@"
}

check "get nodes" "a100-1        Ready" k get nodes
check "get nodes wide" "INTERNAL-IP" k get nodes -o wide
check "label selector" "h100-1" k get nodes -l nvidia.com/gpu.product=NVIDIA-H100-80GB-HBM3

check "apply crd" "widgets.example.com created" k apply -f "$here/widget-crd.yaml"
check "crd established" "condition met" k wait --for condition=established crd/widgets.example.com --timeout=10s
check "apply custom resource" "widget.example.com/w1 created" k apply -f "$here/widget.yaml"
check "apply again" "widget.example.com/w1 unchanged" k apply -f "$here/widget.yaml"
check "printer columns" "NAME   SIZE   COLOR   AGE" k get widgets
check "printer row" "w1     3      red" k get wd
check "schema rejects" "spec.size in body should be greater than or equal to 1" k apply -f "$here/widget-invalid.yaml"
check "api-resources" "widgets" k api-resources --api-group=example.com

# kubectl explain reads the OpenAPI v3 documents: the built-in kinds' schemas are kubesim's
# protobuf schemas, a custom resource's its CRD's.
check "explain kind" "A Pod is a group of containers that run together on one node." k explain pod
check "explain nested field" "ports	<[]ContainerPort>" k explain pod.spec.containers
check "explain required" "containers	<[]Container> -required-" k explain pod.spec
check "explain enum" "enum: Always, Never, OnFailure" k explain pod.spec
check "explain other group" "rollingUpdate	<RollingUpdateDeployment>" \
  k explain deployment.spec.strategy
check "explain int-or-string" "maxSurge	<IntOrString>" k explain deployment.spec.strategy.rollingUpdate
check "explain job spec" "template	<PodTemplateSpec> -required-" k explain job.spec
check "explain custom resource" "A Widget of the kubectl test." k explain widget
check "explain custom field" "How many parts the widget has." k explain widget.spec
check "explain custom required" "size	<integer> -required-" k explain widget.spec
check "explain from openapi v2" "What the deployment should run" \
  k explain deployment.spec --output=plaintext-openapiv2

check "delete with finalizer" 'widget.example.com "w1" deleted' k delete widget w1 --wait=false
check "held by finalizer" "deletionTimestamp" k get widget w1 -o yaml
check "release finalizer" "patched" k patch widget w1 --type=merge -p '{"metadata":{"finalizers":null}}'
wait_for "gone after finalizer" "NotFound" k get widget w1

k get pods -w --output-watch-events >"$work/watch.txt" 2>&1 &
watcher=$!
check "create pod" "pod/counter created" k apply -f "$here/counter-pod.yaml"
wait_for "pod scheduled on H100" "h100-1" k get pod counter -o wide
check "logs -f" "tick 1
tick 2
tick 3
tick 4
tick 5" k logs -f counter
wait_for "pod completed" "Completed" k get pod counter
check "describe pod" "Status:           Succeeded" k describe pod counter
check "describe node resources" "nvidia.com/gpu" k describe pod counter
wait_for "watch saw running" "Running" cat "$work/watch.txt"
wait_for "watch saw completion" "Completed" cat "$work/watch.txt"
kill "$watcher" 2>/dev/null || true
check "logs timestamps" "Z tick 1" k logs counter --timestamps
check "logs tail" "tick 5" k logs counter --tail=1
check "delete pod" 'pod "counter" deleted' k delete pod counter --timeout=20s

check "apply -k" "service/web created" k apply -k "$here/kustomize"
check "kustomize configmap" "settings-" k get configmaps -n ks-demo
check "kustomize labels" "app.kubernetes.io/part-of=kubesim-test" k get service web -n ks-demo --show-labels
check "delete namespace" 'namespace "ks-demo" deleted' k delete namespace ks-demo --timeout=20s
wait_for "namespace gone" "NotFound" k get namespace ks-demo

# kubectl's typed commands send and read Kubernetes' protobuf (client-go's default for built-in
# kinds); what they create must read back as JSON as on a cluster.
check "create namespace" "namespace/team-a created" k create namespace team-a
response_type() {  # the Content-Type of the answer to a kubectl command run with -v=8
  k "$@" -v=8 2>&1 | sed -n '/Response Status/,$p' | grep -m1 'Content-Type'
}
check "answered in protobuf" "application/vnd.kubernetes.protobuf" \
  response_type create namespace team-b
check "namespace read as yaml" "kubernetes.io/metadata.name: team-a" k get ns team-a -o yaml
# Go's clients write every non-pointer field, empty or not; the JSON must leave the empty ones out.
check "no empty fields read back" "none" \
  bash -c 'kubectl get ns team-a -o yaml | grep -e generateName -e selfLink -e "generation:" || echo none'
check "create configmap" "configmap/settings created" \
  k create configmap settings -n team-a --from-literal=mode=fast
check "configmap data" '{"mode":"fast"}' k get cm settings -n team-a -o jsonpath='{.data}'
check "create secret" "secret/creds created" \
  k create secret generic creds -n team-a --from-literal=password=hunter2
check "secret bytes as base64" "aHVudGVyMg==" k get secret creds -n team-a -o jsonpath='{.data.password}'
check "create serviceaccount" "serviceaccount/robot created" k create serviceaccount robot -n team-a
check "create job" "job.batch/once created" k create job once -n team-a --image=busybox -- echo done
wait_for "job completes" "Complete" k get job once -n team-a -o jsonpath='{.status.conditions[*].type}'
check "job template kept" '"command":["echo","done"]' \
  k get job once -n team-a -o jsonpath='{.spec.template.spec.containers[0]}'
check "create deployment" "deployment.apps/web created" \
  k create deployment web -n team-a --image=nginx --replicas=0
check "deployment replicas zero kept" "0" k get deploy web -n team-a -o jsonpath='{.spec.replicas}'
# The Deployment and ReplicaSet controllers, as kubectl rollout and the server's Tables show them.
check "create running deployment" "deployment.apps/rolled created" \
  k create deployment rolled -n team-a --image=busybox --replicas=2 -- sleep 300
check "rollout status" 'deployment "rolled" successfully rolled out' \
  k rollout status deployment/rolled -n team-a --timeout=20s
check "get deploy wide" "READY   UP-TO-DATE   AVAILABLE   AGE   CONTAINERS   IMAGES    SELECTOR" \
  k get deploy rolled -n team-a -o wide
check "deploy row" "2/2     2            2" k get deploy rolled -n team-a
check "deploy selector" "busybox      busybox   app=rolled" k get deploy rolled -n team-a -o wide
check "get rs" "DESIRED   CURRENT   READY" k get rs -n team-a -l app=rolled
check "rs row" "2         2         2" k get rs -n team-a -l app=rolled
check "set image" "deployment.apps/rolled image updated" \
  k set image deployment/rolled -n team-a busybox=busybox:1.36
check "rollout status after update" 'deployment "rolled" successfully rolled out' \
  k rollout status deployment/rolled -n team-a --timeout=20s
check "rollout history" "2         <none>" k rollout history deployment/rolled -n team-a
wait_for "old rs scaled down" "0         0         0" k get rs -n team-a -l app=rolled
check "scaling events" "Scaled down replica set rolled-" k events -n team-a --for deployment/rolled
check "delete deployment" 'deployment.apps "rolled" deleted' \
  k delete deployment rolled -n team-a --cascade=foreground --timeout=20s
wait_for "replicasets collected" "No resources found" k get rs -n team-a -l app=rolled
check "create token" "eyJhbGciOiJSUzI1NiIs" k create token robot -n team-a
check "auth can-i" "yes" k auth can-i get pods
check "auth whoami" "kubesim-admin" k auth whoami
check "already exists in protobuf" 'namespaces "team-a" already exists' k create namespace team-a
check "delete typed" 'serviceaccount "robot" deleted' k delete serviceaccount robot -n team-a

# Service-account tokens and RBAC evaluation: kubesim enforces no RBAC but issues tokens and
# answers the reviews from the RBAC objects it stores. These go through kubectl's generic paths
# (apply -f, create -f and create --raw), which send JSON; kubectl validates a review itself
# against /openapi/v2, as reviews have no PATCH operation to validate them on the server. Plain
# HTTP carries no token (kubectl sends credentials over TLS only), so the reviews here speak for
# the admin or, with --as, for the ServiceAccount.
cat >"$work/rbac.yaml" <<'YAML'
apiVersion: v1
kind: ServiceAccount
metadata: {name: robot}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: log-reader}
rules:
- {apiGroups: [""], resources: [pods, pods/log], verbs: [get]}
YAML
cat >"$work/binding.yaml" <<'YAML'
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: robot-logs}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: log-reader}
subjects:
- {kind: ServiceAccount, name: robot}
YAML
cat >"$work/read-logs.yaml" <<'YAML'
apiVersion: authorization.k8s.io/v1
kind: SelfSubjectAccessReview
spec:
  resourceAttributes: {namespace: default, verb: get, resource: pods, subresource: log}
YAML
echo '{"kind":"TokenRequest","apiVersion":"authentication.k8s.io/v1","spec":{}}' >"$work/token.json"
echo '{"kind":"TokenRequest","apiVersion":"authentication.k8s.io/v1","spec":{"expirationSeconds":300}}' \
  >"$work/short-token.json"
robot_token_path=/api/v1/namespaces/default/serviceaccounts/robot/token
token_of() { sed -n 's/.*"token":"\([^"]*\)".*/\1/p'; }
allowed() {
  k create -f "$work/read-logs.yaml" \
    -o jsonpath='{.status.allowed} {.status.reason}' "$@"
}
check "apply service account and role" "clusterrole.rbac.authorization.k8s.io/log-reader created" \
  k apply -f "$work/rbac.yaml"
sa_token=$(k create --raw "$robot_token_path" -f "$work/token.json" 2>&1 | token_of)
check "token request gives a JWT" "eyJhbGciOiJSUzI1NiIs" echo "$sa_token"
check "token duration floor" "may not specify a duration less than 10 minutes" \
  k create --raw "$robot_token_path" -f "$work/short-token.json"
printf '{"kind":"TokenReview","apiVersion":"authentication.k8s.io/v1","spec":{"token":"%s"}}' \
  "$sa_token" >"$work/review.json"
check "token review" '"username":"system:serviceaccount:default:robot"' \
  k create --raw /apis/authentication.k8s.io/v1/tokenreviews -f "$work/review.json"
check "self review as the admin" "true" allowed
sed 's/subresource: log/subresource: log, bogus: 1/' "$work/read-logs.yaml" >"$work/bogus.yaml"
check "review validated by kubectl" 'unknown field "bogus" in io.k8s.api.authorization.v1.ResourceAttributes' \
  k create -f "$work/bogus.yaml"
check "self review before a binding" "false" allowed --as=system:serviceaccount:default:robot
check "apply binding" "rolebinding.rbac.authorization.k8s.io/robot-logs created" \
  k apply -f "$work/binding.yaml"
check "self review after a binding" \
  'true RBAC: allowed by RoleBinding "robot-logs/default" of ClusterRole "log-reader" to ServiceAccount "robot/default"' \
  allowed --as=system:serviceaccount:default:robot
sed 's/namespace: default/namespace: kube-system/' "$work/read-logs.yaml" >"$work/elsewhere.yaml"
check "self review in another namespace" "false" \
  k create -f "$work/elsewhere.yaml" -o jsonpath='{.status.allowed}' \
  --as=system:serviceaccount:default:robot

# Events: what kubectl describe and kubectl events show on a cluster, recorded by kubesim's
# scheduler, kubelet and Job controller.
cat >"$work/events.yaml" <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: crasher}
spec:
  containers:
  - {name: main, image: busybox, command: [/bin/sh, -c, "exit 1"]}
---
apiVersion: v1
kind: Pod
metadata: {name: sleeper}
spec:
  containers:
  - {name: main, image: busybox, command: [sleep, "60"]}
---
apiVersion: v1
kind: Pod
metadata: {name: too-big}
spec:
  containers:
  - {name: main, image: busybox, command: [sleep, "60"], resources: {limits: {nvidia.com/gpu: "64"}}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: events-job}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: main, image: busybox, command: [/bin/sh, -c, "exit 0"]}
YAML
check "apply event subjects" "job.batch/events-job created" k apply -f "$work/events.yaml"
wait_for "describe shows back-off" "Back-off restarting failed container main in pod crasher_default(" \
  k describe pod crasher
check "describe shows scheduling" "default-scheduler  Successfully assigned default/crasher to" \
  k describe pod crasher
check "describe shows pulling" 'kubelet            Pulling image "busybox"' k describe pod crasher
check "describe shows created" "Created container: main" k describe pod crasher
check "describe shows started" "Started container main" k describe pod crasher
wait_for "describe shows unschedulable" \
  "FailedScheduling  " k describe pod too-big
check "failed scheduling message" \
  "0/7 nodes are available: 7 Insufficient nvidia.com/gpu. preemption: 0/7 nodes are available" \
  k describe pod too-big
wait_for "events aggregates repeats" "(x2 over" k events --for pod/crasher
check "events of a job" "Created pod: events-job-" k events --for job/events-job
wait_for "job completed event" "Job completed" k events --for job/events-job
check "events by type" "FailedScheduling" k events --types=Warning
check "scheduler reports itself" "default-scheduler" \
  k get events --field-selector reason=FailedScheduling -o jsonpath='{.items[0].reportingComponent}'
check "kubelet names its node" "kubelet" \
  k get events --field-selector involvedObject.name=crasher,reason=Started \
  -o jsonpath='{.items[0].source.component}'
wait_for "sleeper started" "Started container main" k events --for pod/sleeper
check "delete running pod" 'pod "sleeper" deleted' k delete pod sleeper --wait=false
wait_for "killing event" "Stopping container main" k events --for pod/sleeper
check "delete event subjects" 'pod "crasher" deleted' \
  k delete pod crasher too-big --wait=false

# HTTPS with a generated CA, a client certificate and a required token.
"$kubesim" --tls --token s3cret --write-kubeconfig "$work/tls.kubeconfig" \
  --work-dir "$work/tls-pods" >"$work/tls.log" 2>&1 &
tls_pid=$!
for _ in $(seq 100); do [ -f "$work/tls.kubeconfig" ] && break; sleep 0.1; done
check "https with CA and credentials" "a100-1" k --kubeconfig "$work/tls.kubeconfig" get nodes
server=$(k --kubeconfig "$work/tls.kubeconfig" config view -o jsonpath='{.clusters[0].cluster.server}')
check "https without credentials" '"reason":"Unauthorized"' \
  curl -sk --max-time 10 "$server/api/v1/nodes"
check "https with the token alone" "a100-1" \
  k --server "$server" --insecure-skip-tls-verify --token s3cret --kubeconfig /dev/null get nodes
k --kubeconfig "$work/tls.kubeconfig" apply -f "$work/rbac.yaml" >/dev/null 2>&1 || true
tls_token=$(k --kubeconfig "$work/tls.kubeconfig" create --raw "$robot_token_path" \
  -f "$work/token.json" 2>&1 | token_of)
as_robot=(--server "$server" --insecure-skip-tls-verify --token "$tls_token" --kubeconfig /dev/null)
check "https with an issued token" "a100-1" k "${as_robot[@]}" get nodes
check "self review with an issued token" "false" \
  k "${as_robot[@]}" create -f "$work/read-logs.yaml" -o jsonpath='{.status.allowed}'
kill -TERM "$tls_pid" && wait "$tls_pid" || true

# SIGTERM stops kubesim and every container process it started.
marker="kubesim-test-marker-$$"
check "long-running pod" "pod/sleeper created" \
  k run sleeper --image=busybox --restart=Never --command -- /bin/sh -c "sleep 300; echo $marker"
wait_for "sleeper running" "Running" k get pod sleeper
check "container process exists" "$marker" pgrep -af "$marker"
kill -TERM "$pid"
wait "$pid" || true
pid=""
for _ in $(seq 50); do pgrep -f "$marker" >/dev/null || break; sleep 0.1; done
if pgrep -f "$marker" >/dev/null; then
  failed=$((failed + 1))
  echo "FAIL container processes outlived kubesim"
else
  passed=$((passed + 1))
fi

echo "kubectl: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
