{{/* The release name, followed by the chart's unless it already contains it (release "mcpsm": "mcpsm"). */}}
{{- define "mcpsm.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "mcpsm.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "mcpsm.labels" -}}
{{ include "mcpsm.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "mcpsm.image" -}}
{{ printf "%s:%s" .Values.image.repository .Values.image.tag | quote }}
{{- end -}}

{{- define "mcpsm.encryptionSecret" -}}
{{- if .Values.encryption.existingSecret -}}{{ .Values.encryption.existingSecret }}{{- else -}}{{ include "mcpsm.fullname" . }}{{- end -}}
{{- end -}}

{{/* The environment shared by the service's pods and the migration Job. */}}
{{- define "mcpsm.env" -}}
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ if .Values.database.existingSecret }}{{ .Values.database.existingSecret }}{{ else }}{{ include "mcpsm.fullname" . }}{{ end }}
      key: {{ if .Values.database.existingSecret }}{{ .Values.database.key }}{{ else }}DATABASE_URL{{ end }}
- name: DATABASE_POOL_SIZE
  value: {{ .Values.database.poolSize | quote }}
- name: DATABASE_MIGRATE_ON_START
  value: "false"
- name: ENCRYPTION_KEY
  valueFrom:
    secretKeyRef:
      name: {{ include "mcpsm.encryptionSecret" . }}
      key: ENCRYPTION_KEY
{{- if .Values.encryption.oldKeys }}
- name: ENCRYPTION_KEYS_OLD
  valueFrom:
    secretKeyRef:
      name: {{ include "mcpsm.encryptionSecret" . }}
      key: ENCRYPTION_KEYS_OLD
{{- end }}
{{- if or .Values.redis.url .Values.redis.existingSecret }}
- name: REDIS_URL
  valueFrom:
    secretKeyRef:
      name: {{ if .Values.redis.existingSecret }}{{ .Values.redis.existingSecret }}{{ else }}{{ include "mcpsm.fullname" . }}{{ end }}
      key: {{ if .Values.redis.existingSecret }}{{ .Values.redis.key }}{{ else }}REDIS_URL{{ end }}
- name: RATE_LIMIT_KEY_PREFIX
  value: {{ .Values.redis.rateLimitKeyPrefix | quote }}
{{- end }}
{{- if .Values.auth.issuer }}
- name: AUTH_ISSUER
  value: {{ .Values.auth.issuer | quote }}
- name: AUTH_AUDIENCE
  value: {{ required "auth.audience is required with auth.issuer" .Values.auth.audience | quote }}
- name: AUTH_JWKS_URL
  value: {{ required "auth.jwksUrl is required with auth.issuer" .Values.auth.jwksUrl | quote }}
{{- end }}
{{- if .Values.publicUrl }}
- name: MCP_PUBLIC_URL
  value: {{ .Values.publicUrl | quote }}
{{- end }}
- name: HOST
  value: "0.0.0.0"
- name: PORT
  value: "8080"
- name: METRICS_PORT
  value: {{ .Values.metrics.port | quote }}
- name: DATA_DIR
  value: /data
- name: LOG_LEVEL
  value: {{ .Values.logLevel | quote }}
- name: TRUST_PROXY_HOPS
  value: {{ .Values.trustProxyHops | quote }}
{{- with .Values.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end -}}
