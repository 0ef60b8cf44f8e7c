{{/* The objects' name: hetbench-operator unless fullnameOverride says otherwise. */}}
{{- define "hetbench.fullname" -}}
{{- .Values.fullnameOverride | default "hetbench-operator" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Labels that select the operator's pods; the metrics Service selects on them. */}}
{{- define "hetbench.selectorLabels" -}}
app.kubernetes.io/name: hetbench-operator
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* Labels of every object. */}}
{{- define "hetbench.labels" -}}
{{ include "hetbench.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{- define "hetbench.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- .Values.serviceAccount.name | default (include "hetbench.fullname" .) -}}
{{- else -}}
{{- .Values.serviceAccount.name | default "default" -}}
{{- end -}}
{{- end -}}

{{- define "hetbench.image" -}}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) -}}
{{- end -}}

{{/*
The operator's arguments. The operator refuses a flag given twice, so a flag of
operator.extraArgs replaces the chart's flag of that name instead of being added beside it.
*/}}
{{- define "hetbench.args" -}}
{{- $chartArgs := list }}
{{- if .Values.leaderElection.enabled }}
{{- $chartArgs = append $chartArgs "--leader-elect" }}
{{- $chartArgs = append $chartArgs (printf "--leader-election-id=%s" .Values.leaderElection.id) }}
{{- $chartArgs = append $chartArgs (printf "--leader-elect-lease-duration=%s" .Values.leaderElection.leaseDuration) }}
{{- $chartArgs = append $chartArgs (printf "--leader-elect-renew-deadline=%s" .Values.leaderElection.renewDeadline) }}
{{- $chartArgs = append $chartArgs (printf "--leader-elect-retry-period=%s" .Values.leaderElection.retryPeriod) }}
{{- end }}
{{- with .Values.watchNamespaces }}
{{- $chartArgs = append $chartArgs (printf "--namespace=%s" (join "," .)) }}
{{- end }}
{{- $chartArgs = append $chartArgs (printf "--metrics-bind-address=:%v" .Values.ports.metrics) }}
{{- $chartArgs = append $chartArgs (printf "--health-probe-bind-address=:%v" .Values.ports.health) }}
{{- $chartArgs = append $chartArgs (printf "--logs-bind-address=:%v" .Values.ports.logs) }}
{{- $chartArgs = append $chartArgs (printf "--metrics-secure=%v" .Values.endpoints.metricsSecure) }}
{{- $chartArgs = append $chartArgs (printf "--logs-secure=%v" .Values.endpoints.logsSecure) }}
{{- if .Values.endpoints.tlsSecretName }}
{{- $chartArgs = append $chartArgs "--tls-cert-dir=/etc/hetbench/tls" }}
{{- end }}
{{- $chartArgs = append $chartArgs "--log-dir=/var/lib/hetbench/logs" }}
{{- $chartArgs = append $chartArgs (printf "--log-max-bytes=%d" (int64 .Values.operator.logMaxBytes)) }}
{{- $chartArgs = append $chartArgs (printf "--log-streams=%d" (int64 .Values.operator.logStreams)) }}
{{- $chartArgs = append $chartArgs (printf "--log-retention=%s" .Values.operator.logRetention) }}
{{- $chartArgs = append $chartArgs (printf "--log-dir-max-bytes=%d" (int64 .Values.operator.logDirMaxBytes)) }}
{{- $chartArgs = append $chartArgs (printf "--max-concurrent-reconciles=%v" .Values.operator.maxConcurrentReconciles) }}
{{- $chartArgs = append $chartArgs (printf "--kube-api-qps=%v" .Values.operator.kubeApiQps) }}
{{- $chartArgs = append $chartArgs (printf "--kube-api-burst=%v" .Values.operator.kubeApiBurst) }}
{{- $chartArgs = append $chartArgs (printf "--log-level=%s" .Values.operator.logLevel) }}
{{- $chartArgs = append $chartArgs (printf "--log-format=%s" .Values.operator.logFormat) }}
{{- if .Values.operator.defaultQueueName }}
{{- $chartArgs = append $chartArgs (printf "--default-queue-name=%s" .Values.operator.defaultQueueName) }}
{{- end }}
{{- $replaced := dict }}
{{- range .Values.operator.extraArgs }}
{{- $_ := set $replaced (regexReplaceAll "=.*" (toString .) "") true }}
{{- end }}
{{- range $chartArgs }}
{{- if not (hasKey $replaced (regexReplaceAll "=.*" . "")) }}
- {{ . | quote }}
{{- end }}
{{- end }}
{{- range .Values.operator.extraArgs }}
- {{ . | quote }}
{{- end }}
{{- end -}}

{{- define "hetbench.logClaimName" -}}
{{- .Values.logVolume.existingClaim | default (printf "%s-logs" (include "hetbench.fullname" .)) -}}
{{- end -}}

{{/*
What the operator does in the namespaces it watches, the rules of manifests/operator/
clusterrole.yaml (tests/packaging checks that they are the same); docs/deploy.md names the code
behind each rule.
*/}}
{{- define "hetbench.rules" -}}
- apiGroups: [hetbench.io]
  resources: [benchmarkruns]
  verbs: [get, list, watch, create, update, delete]
- apiGroups: [hetbench.io]
  resources: [benchmarkruns/status]
  verbs: [update]
- apiGroups: [hetbench.io]
  resources: [benchmarkruns/finalizers]
  verbs: [update]
- apiGroups: [hetbench.io]
  resources: [benchmarkschedules]
  verbs: [get, list, watch]
- apiGroups: [hetbench.io]
  resources: [benchmarkschedules/status, benchmarkschedules/finalizers]
  verbs: [update]
- apiGroups: [hetbench.io]
  resources: [benchmarkseries]
  verbs: [get, list, watch, create]
- apiGroups: [hetbench.io]
  resources: [benchmarkseries/status, benchmarkseries/finalizers]
  verbs: [update]
- apiGroups: [hetbench.io]
  resources: [benchmarksystems]
  verbs: [get, list, watch]
- apiGroups: [hetbench.io]
  resources: [slurmclusters]
  verbs: [get, list, watch]
- apiGroups: [hetbench.io]
  resources: [slurmclusters/status]
  verbs: [update]
- apiGroups: [""]
  resources: [pods]
  verbs: [get, list, watch, create, patch, delete]
- apiGroups: [batch]
  resources: [jobs]
  verbs: [get, list, watch, create, patch, delete]
- apiGroups: [graphcore.ai]
  resources: [ipujobs]
  verbs: [get, list, watch, create, patch, delete]
- apiGroups: [""]
  resources: [pods/log]
  verbs: [get]
- apiGroups: [""]
  resources: [services]
  verbs: [create]
- apiGroups: [""]
  resources: [events]
  verbs: [create, patch]
{{- end -}}

{{/*
What the secure log server and /metrics ask the API server (TokenReview, SubjectAccessReview),
the rules of manifests/operator/endpoint-auth.yaml; and what Prometheus needs to scrape /metrics,
those of manifests/observability/metrics-reader.yaml. tests/packaging/chart_check.py keeps them
equal.
*/}}
{{- define "hetbench.endpointAuthRules" -}}
- apiGroups: [authentication.k8s.io]
  resources: [tokenreviews]
  verbs: [create]
- apiGroups: [authorization.k8s.io]
  resources: [subjectaccessreviews]
  verbs: [create]
{{- end -}}

{{- define "hetbench.metricsReaderRules" -}}
- nonResourceURLs: [/metrics]
  verbs: [get]
{{- end -}}
