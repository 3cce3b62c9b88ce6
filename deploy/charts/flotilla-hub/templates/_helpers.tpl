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
{{- if and .Values.cdevents.enabled (not (or .Values.cdevents.secrets.value .Values.cdevents.secrets.existingSecret)) -}}
{{- fail "cdevents.enabled needs the receiver's shared secrets: set cdevents.secrets.value or cdevents.secrets.existingSecret (the receiver only takes signed events)" -}}
{{- end -}}
{{- if and .Values.cdevents.secrets.value .Values.cdevents.secrets.existingSecret -}}
{{- fail "cdevents.secrets: set value or existingSecret, not both" -}}
{{- end -}}
{{- end -}}
