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
check "scale a custom resource" "widget.example.com/w1 scaled" k scale widget w1 --replicas=4
check "custom resource scaled" "w1     4      red" k get wd
check "custom resource scale" "4" k get wd w1 --subresource=scale -o jsonpath='{.spec.replicas}'
check "custom resource scale validated" "spec.size in body should be greater than or equal to 1" \
  k scale widget w1 --replicas=0
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

# A tutorial's commands, each as a real cluster answers it: run, create, expose, label, annotate,
# scale (the scale subresource), patch of each type, diff, wait, rollout status, describe,
# events, logs, the refusals of exec, attach and port-forward, delete with each propagation
# policy, server-side dry runs and every output format.
t() { k -n tutorial "$@"; }
check "create tutorial namespace" "namespace/tutorial created" k create namespace tutorial
check "create deployment" "deployment.apps/web created" \
  t create deployment web --image=busybox --replicas=2 -- sh -c 'echo serving; sleep 300'
check "rollout status" 'deployment "web" successfully rolled out' \
  t rollout status deployment/web --timeout=20s
defaults='{.spec.strategy.type} {.spec.strategy.rollingUpdate.maxSurge} '\
'{.spec.revisionHistoryLimit} {.spec.progressDeadlineSeconds}'
check "api defaults stored" "RollingUpdate 25% 10 600" t get deploy web -o jsonpath="$defaults"
check "template defaults stored" "ClusterFirst Always" t get deploy web -o \
  jsonpath='{.spec.template.spec.dnsPolicy} {.spec.template.spec.containers[0].imagePullPolicy}'
check "describe deployment" "RollingUpdateStrategy:  25% max unavailable, 25% max surge" \
  t describe deployment web
wait_for "logs of a deployment" "serving" t logs deployment/web
wait_for "logs by label" "serving" t logs -l app=web

check "scale" "deployment.apps/web scaled" t scale deployment/web --replicas=3
wait_for "controller scaled up" "3 desired | 3 updated | 3 total | 3 available | 0 unavailable" \
  t describe deployment web
check "scale subresource" "NAME   DESIRED   AVAILABLE" t get deploy web --subresource=scale
check "scale subresource row" "web    3         3" t get deploy web --subresource=scale
check "scale as yaml" "kind: Scale" t get deploy web --subresource=scale -o yaml
check "scale selector" "app=web" t get deploy web --subresource=scale -o jsonpath='{.status.selector}'
check "scale refused on a stale count" "error: Expected replicas to be 2, was 3" \
  t scale deployment/web --current-replicas=2 --replicas=1
check "scale with the current count" "deployment.apps/web scaled" \
  t scale deployment/web --current-replicas=3 --replicas=2
check "scale server dry run" "deployment.apps/web scaled (server dry run)" \
  t scale deployment/web --replicas=7 --dry-run=server
check "scale dry run changed nothing" "replicas=2" \
  t get deploy web -o jsonpath='replicas={.spec.replicas}'
check "patch the scale subresource" "scale.autoscaling/web patched" \
  t patch deployment web --subresource=scale --type=merge -p '{"spec":{"replicas":2}}'
wait_for "controller scaled down" "2 desired | 2 updated | 2 total | 2 available | 0 unavailable" \
  t describe deployment web
check "scaling events" "Scaled down replica set web-" t events --for deployment/web
check "scale a replica set" "scaled" \
  t scale replicaset -l app=web --replicas=2

check "expose" "service/web exposed" t expose deployment web --port=80 --target-port=8080
check "service from the deployment" '{"app":"web"} 80 8080' \
  t get svc web -o jsonpath='{.spec.selector} {.spec.ports[0].port} {.spec.ports[0].targetPort}'
check "service wide" "PORT(S)   AGE   SELECTOR" t get svc web -o wide
check "service wide row" "80/TCP" t get svc web -o wide --no-headers
check "service wide selector" "app=web" t get svc web -o wide --no-headers
check "expose server dry run" "service/web-alt exposed (server dry run)" \
  t expose deployment web --port=81 --name=web-alt --dry-run=server

check "label" "deployment.apps/web labeled" t label deployment web tier=front
check "label refused without overwrite" "'tier' already has a value (front), and --overwrite is false" \
  t label deployment web tier=back
check "label overwrite" "deployment.apps/web labeled" t label deployment web tier=back --overwrite
check "select by the label" "deployment.apps/web" t get deploy -l tier=back -o name
check "unlabel" "deployment.apps/web unlabeled" t label deployment web tier-
check "label server dry run" "deployment.apps/web labeled (server dry run)" \
  t label deployment web dry=run --dry-run=server
check "dry run label not stored" '{"app":"web"}' t get deploy web -o jsonpath='{.metadata.labels}'
check "annotate" "deployment.apps/web annotated" t annotate deployment web owner=team-a
check "annotation stored" "team-a" t get deploy web -o jsonpath='{.metadata.annotations.owner}'
check "annotation removed" "deployment.apps/web annotated" t annotate deployment web owner-

env='{"spec":{"template":{"spec":{"containers":[{"name":"busybox","env":[{"name":"MODE","value":"fast"}]}]}}}}'
check "strategic merge patch" "deployment.apps/web patched" t patch deployment web -p "$env"
container='{.spec.template.spec.containers[0].image} '\
'{.spec.template.spec.containers[0].env[0].name}={.spec.template.spec.containers[0].env[0].value}'
check "strategic merge keeps the container" "busybox MODE=fast" \
  t get deploy web -o jsonpath="$container"
check "rollout after the patch" 'deployment "web" successfully rolled out' \
  t rollout status deployment/web --timeout=20s
check "merge patch" "deployment.apps/web patched" \
  t patch deployment web --type=merge -p '{"spec":{"revisionHistoryLimit":5}}'
check "json patch" "deployment.apps/web patched" \
  t patch deployment web --type=json -p '[{"op":"replace","path":"/spec/revisionHistoryLimit","value":4}]'
check "patches stored" "4" t get deploy web -o jsonpath='{.spec.revisionHistoryLimit}'
check "patch without a change" "deployment.apps/web patched (no change)" \
  t patch deployment web --type=merge -p '{"spec":{"revisionHistoryLimit":4}}'
check "json patch test fails" "testing value /spec/replicas failed: test failed" \
  t patch deployment web --type=json -p '[{"op":"test","path":"/spec/replicas","value":9}]'
# kubectl patch prints no dry-run suffix; the server must still store nothing.
check "patch server dry run" "deployment.apps/web patched" \
  t patch deployment web --type=merge -p '{"spec":{"revisionHistoryLimit":1}}' --dry-run=server
check "dry run patch not stored" "limit=4" \
  t get deploy web -o jsonpath='limit={.spec.revisionHistoryLimit}'

cat >"$work/settings.yaml" <<'YAML'
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: tutorial}
data: {mode: fast}
YAML
sed 's/fast/slow/' "$work/settings.yaml" >"$work/settings-changed.yaml"
sed 's/settings/fresh/' "$work/settings.yaml" >"$work/settings-new.yaml"
diff_exit() { k diff -f "$1" >/dev/null 2>&1 && echo "exit 0" || echo "exit $?"; }
check "apply for diff" "configmap/settings created" k apply -f "$work/settings.yaml"
check "diff of a change" "-  mode: fast
+  mode: slow" k diff -f "$work/settings-changed.yaml"
check "diff finds a change" "exit 1" diff_exit "$work/settings-changed.yaml"
check "diff finds none" "exit 0" diff_exit "$work/settings.yaml"
check "diff of a new object" "+  name: fresh" k diff -f "$work/settings-new.yaml"
check "diff created nothing" 'configmaps "fresh" not found' t get configmap fresh

check "create server dry run" "configmap/dry created (server dry run)" \
  t create configmap dry --from-literal=a=b --dry-run=server
check "dry run object" "uid:" t create configmap dry --from-literal=a=b --dry-run=server -o yaml
check "dry run created nothing" 'configmaps "dry" not found' t get configmap dry
check "run server dry run" "pod/dry created (server dry run)" \
  t run dry --image=busybox --dry-run=server
check "delete server dry run" 'configmap "settings" deleted (server dry run)' \
  t delete configmap settings --dry-run=server
check "dry run deleted nothing" "configmap/settings" t get configmap settings -o name

# Every output format of kubectl get.
echo '{.spec.replicas}' >"$work/replicas.jsonpath"
echo '{{.kind}}/{{.metadata.name}}' >"$work/name.gotemplate"
printf 'NAME REPLICAS\n.metadata.name .spec.replicas\n' >"$work/columns.txt"
check "-o name" "deployment.apps/web" t get deploy web -o name
check "-o json" '"kind": "Deployment"' t get deploy web -o json
check "-o json of a list" '"kind": "List"' t get deploy -o json
check "-o yaml" "kind: Deployment" t get deploy web -o yaml
check "-o wide" "CONTAINERS   IMAGES    SELECTOR" t get deploy web -o wide
check "-o jsonpath" "web 2" t get deploy web -o jsonpath='{.metadata.name} {.spec.replicas}'
check "-o jsonpath-as-json" '"web"' t get deploy web -o jsonpath-as-json='{.metadata.name}'
check "-o jsonpath-file" "2" t get deploy web -o jsonpath-file="$work/replicas.jsonpath"
check "-o go-template" "web=2" t get deploy web -o go-template='{{.metadata.name}}={{.spec.replicas}}'
check "-o go-template-file" "Deployment/web" t get deploy web -o go-template-file="$work/name.gotemplate"
check "-o template" "tutorial" t get deploy web -o template='{{.metadata.namespace}}'
check "-o templatefile" "Deployment/web" t get deploy web -o templatefile="$work/name.gotemplate"
check "-o custom-columns" "NAME   REPLICAS
web    2" t get deploy web -o custom-columns=NAME:.metadata.name,REPLICAS:.spec.replicas
check "-o custom-columns-file" "NAME   REPLICAS
web    2" t get deploy web -o custom-columns-file="$work/columns.txt"

# exec, attach and port-forward need streams that kubesim does not serve: refused at once.
# The shell takes two seconds to stop, so that kubectl wait --for=delete sees it go.
check "run" "pod/shell created" t run shell --image=busybox --restart=Never --command -- \
  sh -c 'trap "sleep 2; exit 0" TERM; while true; do sleep 1; done'

check "wait for a jsonpath" "pod/shell condition met" \
  t wait --for=jsonpath='{.status.phase}'=Running pod/shell --timeout=20s
check "wait for a condition" "pod/shell condition met" \
  t wait --for=condition=Ready pod/shell --timeout=20s
check "exec refused" \
  "Error from server (MethodNotAllowed): kubesim does not support exec: its containers run as" \
  t exec shell -- ls
check "exec into a deployment refused" "kubesim does not support exec" t exec deploy/web -- ls
check "attach refused" "Error from server (MethodNotAllowed): kubesim does not support attach" \
  t attach shell
check "port-forward refused" "error: error upgrading connection: kubesim does not support port-forward" \
  t port-forward pod/shell :80
check "delete without waiting" 'pod "shell" deleted' t delete pod shell --wait=false
check "wait for the delete" "pod/shell condition met" t wait --for=delete pod/shell --timeout=40s

# Deletion with each propagation policy, as the garbage collector carries it out.
check "deployment to orphan" "deployment.apps/kept created" \
  t create deployment kept --image=busybox --replicas=1 -- sleep 300
wait_for "its replica set" "kept-" t get rs -l app=kept -o name
check "delete orphaning" 'deployment.apps "kept" deleted' t delete deployment kept --cascade=orphan
wait_for "replica set released" "<none>" \
  t get rs -l app=kept -o custom-columns=OWNER:.metadata.ownerReferences[0].name --no-headers
check "orphaned pods kept" "Running" t get pods -l app=kept
check "delete in the background" 'deployment.apps "web" deleted' \
  t delete deployment web --cascade=background
wait_for "background delete collects" "No resources found" t get rs,pods -l app=web
check "delete in the foreground" 'replicaset.apps "' t delete rs -l app=kept --cascade=foreground
wait_for "foreground delete collects" "No resources found" t get rs,pods -l app=kept
check "delete namespace" 'namespace "tutorial" deleted' k delete namespace tutorial --wait=false

# Server-side apply: kubectl apply --server-side, fields owned by managers, conflicts with
# another manager's update, --force-conflicts and server dry runs, as on a cluster.
ssa() {  # ssa SIZE COLOR: a ConfigMap manifest, without color when COLOR is empty
  printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ssa, labels: {team: a}}\ndata:\n  size: "%s"\n' "$1"
  [ -z "$2" ] || printf '  color: %s\n' "$2"
}
ssa 1 red >"$work/ssa1.yaml"
ssa 2 red >"$work/ssa2.yaml"
ssa 2 blue >"$work/ssa-blue.yaml"
ssa 2 "" >"$work/ssa-plain.yaml"
check "server-side apply creates" "configmap/ssa serverside-applied" \
  k apply --server-side -f "$work/ssa1.yaml"
check "managed fields hidden by default" "hidden" \
  bash -c 'kubectl get cm ssa -o yaml | grep -q managedFields && echo shown || echo hidden'
check "apply entry" "manager: kubectl
    operation: Apply" k get cm ssa -o yaml --show-managed-fields
check "re-apply a changed field" "configmap/ssa serverside-applied" \
  k apply --server-side -f "$work/ssa2.yaml"
check "changed field" '"size":"2"' k get cm ssa -o jsonpath='{.data}'
check "another manager's update" "configmap/ssa patched" \
  k patch cm ssa --field-manager=editor --type=merge -p '{"data":{"size":"5"}}'
check "update entry" "manager: editor
    operation: Update" k get cm ssa -o yaml --show-managed-fields
check "apply conflicts" 'Apply failed with 1 conflict: conflict with "editor" using v1: .data.size' \
  k apply --server-side -f "$work/ssa2.yaml"
check "force conflicts" "configmap/ssa serverside-applied" \
  k apply --server-side --force-conflicts -f "$work/ssa2.yaml"
check "forced value" '"size":"2"' k get cm ssa -o jsonpath='{.data}'
check "server dry run" "configmap/ssa serverside-applied (server dry run)" \
  k apply --server-side --dry-run=server -f "$work/ssa-blue.yaml"
check "dry run stored nothing" '"color":"red"' k get cm ssa -o jsonpath='{.data}'
check "apply without a field" "configmap/ssa serverside-applied" \
  k apply --server-side -f "$work/ssa-plain.yaml"
check "field no longer applied is removed" '{"size":"2"}' k get cm ssa -o jsonpath='{.data}'
printf 'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w2}\nspec: {size: 2}\n' \
  >"$work/w2.yaml"
check "server-side apply of a custom resource" "widget.example.com/w2 serverside-applied" \
  k apply --server-side -f "$work/w2.yaml"
check "custom resource defaulted" "w2     2      red" k get widgets w2

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
