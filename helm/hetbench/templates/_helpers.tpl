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
