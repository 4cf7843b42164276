{{/* Names, labels, the image and the names of the Secrets every other template refers to. */}}

{{- define "vigil.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* Cluster-scoped objects (ClusterRoles and their bindings) carry the namespace too: one name per release. */}}
{{- define "vigil.clusterName" -}}
{{- printf "%s-%s" .Release.Namespace (include "vigil.fullname" .) | trunc 50 | trimSuffix "-" -}}
{{- end -}}

{{/* The operator's ClusterRole: it also owns the RecorderNodes (deleting it deletes them). Never rename it. */}}
{{- define "vigil.operatorClusterRole" -}}{{ include "vigil.clusterName" . }}-operator{{- end -}}

{{- define "vigil.labels" -}}
app.kubernetes.io/name: vigil
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{/* The operator Pods' selector. */}}
{{- define "vigil.operatorSelector" -}}
app.kubernetes.io/name: vigil
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: operator
{{- end -}}

{{/* Every recorder Pod the operator makes carries these labels (operator/src/desired/names.ts). */}}
{{- define "vigil.recorderSelector" -}}
app.kubernetes.io/name: vigil
app.kubernetes.io/component: recorder
{{- end -}}

{{- define "vigil.image" -}}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) -}}
{{- end -}}

{{- define "vigil.operatorName" -}}{{ include "vigil.fullname" . }}-operator{{- end -}}
{{- define "vigil.recorderName" -}}{{ include "vigil.fullname" . }}-recorder{{- end -}}
{{- define "vigil.settingsName" -}}{{ include "vigil.fullname" . }}-operator-settings{{- end -}}
{{- define "vigil.postgresqlName" -}}{{ include "vigil.fullname" . }}-postgresql{{- end -}}

{{- define "vigil.apiTokensSecret" -}}
{{- .Values.auth.existingSecret | default (printf "%s-api-tokens" (include "vigil.fullname" .)) -}}
{{- end -}}

{{- define "vigil.clusterTokenSecret" -}}
{{- .Values.clusterToken.existingSecret | default (printf "%s-cluster-token" (include "vigil.fullname" .)) -}}
{{- end -}}

{{/* Empty when there is no license. */}}
{{- define "vigil.licenseSecret" -}}
{{- if .Values.license.existingSecret -}}
{{- .Values.license.existingSecret -}}
{{- else if .Values.license.content -}}
{{- printf "%s-license" (include "vigil.fullname" .) -}}
{{- end -}}
{{- end -}}

{{/* Empty when there is no database. */}}
{{- define "vigil.databaseSecret" -}}
{{- if .Values.database.existingSecret -}}
{{- .Values.database.existingSecret -}}
{{- else if or .Values.database.url .Values.postgresql.enabled -}}
{{- printf "%s-database" (include "vigil.fullname" .) -}}
{{- end -}}
{{- end -}}

{{/* The per-node host template of the operator's Ingresses. */}}
{{- define "vigil.nodeHostTemplate" -}}
{{- .Values.ingress.nodeHostTemplate | default (printf "{node}.%s" .Values.ingress.host) -}}
{{- end -}}

{{/*
A generated secret value that survives upgrades: the value already in the cluster (lookup), else a new random one.
Arguments: (dict "ctx" $ "secret" NAME "key" KEY "length" N).
*/}}
{{- define "vigil.keptRandom" -}}
{{- $existing := lookup "v1" "Secret" .ctx.Release.Namespace .secret -}}
{{- if and $existing $existing.data (hasKey $existing.data .key) -}}
{{- index $existing.data .key | b64dec -}}
{{- else -}}
{{- randAlphaNum (int .length) -}}
{{- end -}}
{{- end -}}

{{/* V8's old-generation limit in MiB for a Node.js container with these resources: half its memory limit (Mi or Gi),
so that the collector works well before the container's limit; empty without a limit or in another unit. */}}
{{- define "vigil.heapLimitMiB" -}}
{{- $limit := "" -}}
{{- with . }}{{ with .limits }}{{ $limit = toString (.memory | default "") }}{{ end }}{{ end -}}
{{- if regexMatch "^[0-9]+Mi$" $limit -}}{{ div (trimSuffix "Mi" $limit | atoi) 2 }}
{{- else if regexMatch "^[0-9]+Gi$" $limit -}}{{ div (mul (trimSuffix "Gi" $limit | atoi) 1024) 2 }}
{{- end -}}
{{- end -}}

{{/* A duration value (6s, 1500ms, 1m, or plain seconds as a string or a number) in milliseconds. */}}
{{- define "vigil.durationMs" -}}
{{- $v := toString . -}}
{{- $n := regexFind "^[0-9]+(\\.[0-9]+)?" $v | float64 -}}
{{- if hasSuffix "ms" $v -}}{{ $n }}
{{- else if hasSuffix "m" $v -}}{{ mulf $n 60000 }}
{{- else -}}{{ mulf $n 1000 }}
{{- end -}}
{{- end -}}

{{/* The chart refuses contradictory values with a message naming them (the schema checks each value alone). */}}
{{- define "vigil.validate" -}}
{{- $o := .Values.operator -}}
{{- $cm := .Values.tls.certManager -}}
{{- if and .Values.tls.enabled $cm.enabled -}}
{{- if not $cm.issuerRef.name }}{{ fail "tls.certManager.issuerRef.name is required with tls.certManager.enabled: the Issuer or ClusterIssuer that signs the recorders' certificates" }}{{ end -}}
{{- if eq (empty $cm.caBundle.configMap) (empty $cm.caBundle.secret) }}{{ fail "tls.certManager.caBundle: name exactly one of configMap or secret (the CA bundle the recorders trust, e.g. a trust-manager Bundle target)" }}{{ end -}}
{{- end -}}
{{- if and $o.podDisruptionBudget.enabled (ge (int $o.podDisruptionBudget.minAvailable) (int $o.replicas)) -}}
{{- fail (printf "operator.podDisruptionBudget.minAvailable (%d) must be below operator.replicas (%d): such a budget blocks every drain of a node running an operator Pod. With one replica set operator.podDisruptionBudget.enabled=false" (int $o.podDisruptionBudget.minAvailable) (int $o.replicas)) -}}
{{- end -}}
{{- $le := $o.leaderElection -}}
{{- $lease := include "vigil.durationMs" $le.leaseDuration | float64 -}}
{{- $renew := include "vigil.durationMs" $le.renewDeadline | float64 -}}
{{- $retry := include "vigil.durationMs" $le.retryPeriod | float64 -}}
{{- if not (lt $renew $lease) -}}
{{- fail (printf "operator.leaderElection.renewDeadline (%v) must be shorter than operator.leaderElection.leaseDuration (%v), or vigil-operator refuses to start (exit 2)" $le.renewDeadline $le.leaseDuration) -}}
{{- end -}}
{{- if not (lt $retry $renew) -}}
{{- fail (printf "operator.leaderElection.retryPeriod (%v) must be shorter than operator.leaderElection.renewDeadline (%v), or vigil-operator refuses to start (exit 2)" $le.retryPeriod $le.renewDeadline) -}}
{{- end -}}
{{- if not (gt (include "vigil.durationMs" $o.nodeSilence | float64) 2000.0) -}}
{{- fail (printf "operator.nodeSilence (%v) must be longer than the recorders' 2 s heartbeat renewal, or every node counts as offline" $o.nodeSilence) -}}
{{- end -}}
{{- $db := 0 -}}
{{- if .Values.database.url }}{{ $db = add1 $db }}{{ end -}}
{{- if .Values.database.existingSecret }}{{ $db = add1 $db }}{{ end -}}
{{- if .Values.postgresql.enabled }}{{ $db = add1 $db }}{{ end -}}
{{- if gt $db 1 -}}
{{- fail "database: set only one of database.url, database.existingSecret and postgresql.enabled" -}}
{{- end -}}
{{- if and .Values.auth.existingSecret .Values.auth.tokens -}}
{{- fail "auth: set auth.tokens or auth.existingSecret, not both" -}}
{{- end -}}
{{- if and .Values.clusterToken.existingSecret .Values.clusterToken.value -}}
{{- fail "clusterToken: set clusterToken.value or clusterToken.existingSecret, not both" -}}
{{- end -}}
{{- if and .Values.license.existingSecret .Values.license.content -}}
{{- fail "license: set license.content or license.existingSecret, not both" -}}
{{- end -}}
{{- $names := dict -}}
{{- range $i, $t := .Values.auth.tokens -}}
{{- if hasKey $names $t.name -}}
{{- fail (printf "auth.tokens[%d].name: %q is used twice" $i $t.name) -}}
{{- end -}}
{{- $_ := set $names $t.name true -}}
{{- end -}}
{{- end -}}


{{- /* The CSR signer the recorders name: the release CA's (the operator signs), or cert-manager's issuer. */ -}}
{{- define "vigil.tlsSignerName" -}}
{{- $cm := .Values.tls.certManager -}}
{{- if $cm.enabled -}}
{{- if eq $cm.issuerRef.kind "ClusterIssuer" -}}clusterissuers.cert-manager.io/{{ $cm.issuerRef.name }}
{{- else -}}issuers.cert-manager.io/{{ .Release.Namespace }}.{{ $cm.issuerRef.name }}
{{- end -}}
{{- else -}}vigil.io/recorder-serving
{{- end -}}
{{- end -}}

{{- /* Annotations every Ingress of the release carries: the user's, and with TLS the HTTPS backend for ingress-nginx. */ -}}
{{- define "vigil.ingressAnnotations" -}}
{{- $a := dict -}}
{{- if .Values.tls.enabled }}{{ $_ := set $a "nginx.ingress.kubernetes.io/backend-protocol" "HTTPS" }}{{ end -}}
{{- range $k, $v := .Values.ingress.annotations }}{{ $_ := set $a $k $v }}{{ end -}}
{{- toYaml $a -}}
{{- end -}}
