{{- define "flotilla-hub.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "flotilla-hub.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "flotilla-hub.selectorLabels" -}}
app.kubernetes.io/name: {{ include "flotilla-hub.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "flotilla-hub.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{ include "flotilla-hub.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: flotilla
{{- end -}}

{{- define "flotilla-hub.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "flotilla-hub.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "flotilla-hub.image" -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}
{{- end -}}

{{/* true when the hub runs on the embedded database (no external PostgreSQL given) */}}
{{- define "flotilla-hub.embedded" -}}
{{- if not (or .Values.database.url .Values.database.existingSecret) -}}true{{- end -}}
{{- end -}}

{{/* The Secret the chart writes, only for values given inline. */}}
{{- define "flotilla-hub.secretName" -}}
{{- include "flotilla-hub.fullname" . -}}
{{- end -}}

{{/* The Secret of values the chart generates (admin and metrics tokens), kept across upgrades. */}}
{{- define "flotilla-hub.generatedSecretName" -}}
{{- include "flotilla-hub.fullname" . }}-generated
{{- end -}}

{{/* Where each token comes from: "existing", "inline", "generated" or "" (none). */}}
{{- define "flotilla-hub.adminTokenSource" -}}
{{- if .Values.adminToken.existingSecret -}}existing{{- else if .Values.adminToken.value -}}inline{{- else -}}generated{{- end -}}
{{- end -}}
{{- define "flotilla-hub.metricsTokenSource" -}}
{{- if .Values.metricsToken.existingSecret -}}existing{{- else if .Values.metricsToken.value -}}inline{{- else if .Values.serviceMonitor.enabled -}}generated{{- end -}}
{{- end -}}

{{/* The Secret and key a token is read from: a dict with name and key. */}}
{{- define "flotilla-hub.tokenRef" -}}
{{- $ctx := index . 0 -}}{{- $v := index . 1 -}}{{- $env := index . 2 -}}{{- $source := index . 3 -}}
{{- if eq $source "existing" -}}
{{- dict "name" $v.existingSecret "key" $v.existingSecretKey | toJson -}}
{{- else if eq $source "inline" -}}
{{- dict "name" (include "flotilla-hub.secretName" $ctx) "key" $env | toJson -}}
{{- else if eq $source "generated" -}}
{{- dict "name" (include "flotilla-hub.generatedSecretName" $ctx) "key" $env | toJson -}}
{{- end -}}
{{- end -}}

{{/*
A generated value, base64: the one the live Secret holds (so upgrades keep
it), else new randomness. `helm template` cannot look, so it renders a new one.
*/}}
{{- define "flotilla-hub.generatedValue" -}}
{{- $ctx := index . 0 -}}{{- $key := index . 1 -}}
{{- $live := lookup "v1" "Secret" $ctx.Release.Namespace (include "flotilla-hub.generatedSecretName" $ctx) -}}
{{- if and $live $live.data (hasKey $live.data $key) -}}
{{- index $live.data $key -}}
{{- else -}}
{{- randAlphaNum 48 | b64enc -}}
{{- end -}}
{{- end -}}

{{/*
Settings no schema can express; every template includes this, so a bad
combination fails `helm install` and `helm template` before anything is applied.
*/}}
{{- define "flotilla-hub.validate" -}}
{{- if and (gt (int .Values.replicaCount) 1) (include "flotilla-hub.embedded" .) -}}
{{- fail (printf "replicaCount=%d needs an external PostgreSQL: the embedded database (PGlite) serves a single replica only. Set database.url or database.existingSecret, or set replicaCount to 1." (int .Values.replicaCount)) -}}
{{- end -}}
{{- if and (gt (int .Values.replicaCount) 1) (not (or .Values.encryptionKeys.value .Values.encryptionKeys.existingSecret)) -}}
{{- fail (printf "replicaCount=%d needs shared encryption keys: set encryptionKeys.value or encryptionKeys.existingSecret (each replica would otherwise generate its own key and could not open the others' credentials)." (int .Values.replicaCount)) -}}
{{- end -}}
{{- if and .Values.database.url .Values.database.existingSecret -}}
{{- fail "database: set url or existingSecret, not both" -}}
{{- end -}}
{{- if and .Values.encryptionKeys.value .Values.encryptionKeys.existingSecret -}}
{{- fail "encryptionKeys: set value or existingSecret, not both" -}}
{{- end -}}
{{- if and .Values.adminToken.value .Values.adminToken.existingSecret -}}
{{- fail "adminToken: set value or existingSecret, not both" -}}
{{- end -}}
{{- if and .Values.metricsToken.value .Values.metricsToken.existingSecret -}}
{{- fail "metricsToken: set value or existingSecret, not both" -}}
{{- end -}}
{{- if and .Values.cdevents.enabled (not (or .Values.cdevents.secrets.value .Values.cdevents.secrets.existingSecret)) -}}
{{- fail "cdevents.enabled needs the receiver's shared secrets: set cdevents.secrets.value or cdevents.secrets.existingSecret (the receiver only takes signed events)" -}}
{{- end -}}
{{- if and .Values.cdevents.secrets.value .Values.cdevents.secrets.existingSecret -}}
{{- fail "cdevents.secrets: set value or existingSecret, not both" -}}
{{- end -}}
{{- end -}}
