{{/* The name of every object: the release's. */}}
{{- define "ksched.name" -}}
{{- .Release.Name -}}
{{- end -}}

{{/* The labels of every object, as the kustomize base's. */}}
{{- define "ksched.labels" -}}
app.kubernetes.io/name: {{ include "ksched.name" . }}
{{- end -}}

{{/* The scheduler's pods, as its Deployment selects them. */}}
{{- define "ksched.selector" -}}
app.kubernetes.io/name: {{ include "ksched.name" . }}
app.kubernetes.io/component: scheduler
{{- end -}}

{{- define "ksched.serviceAccount" -}}
{{- if .Values.serviceAccount.create -}}{{ .Values.serviceAccount.name | default (include "ksched.name" .) }}{{- else -}}{{ .Values.serviceAccount.name | default "default" }}{{- end -}}
{{- end -}}

{{/* The KubeSchedulerConfiguration. */}}
{{- define "ksched.config" -}}
{{- $profile := merge (dict "schedulerName" .Values.schedulerName) (deepCopy .Values.profile) -}}
{{- if .Values.coscheduling.enabled -}}
{{- $coscheduling := list (dict "name" "Coscheduling") -}}
{{- $plugins := dict "multiPoint" (dict "enabled" $coscheduling) "queueSort" (dict "enabled" $coscheduling "disabled" (list (dict "name" "*"))) -}}
{{- $_ := set $profile "plugins" (merge (default (dict) $profile.plugins) $plugins) -}}
{{- if .Values.coscheduling.args -}}
{{- $_ := set $profile "pluginConfig" (concat (default (list) $profile.pluginConfig) (list (dict "name" "Coscheduling" "args" .Values.coscheduling.args))) -}}
{{- end -}}
{{- end -}}
{{- $config := dict "apiVersion" "kubescheduler.config.k8s.io/v1" "kind" "KubeSchedulerConfiguration" "profiles" (list $profile) -}}
{{- $election := dict "leaderElect" .Values.leaderElection.enabled -}}
{{- if .Values.leaderElection.enabled -}}
{{- $_ := set $election "resourceNamespace" .Release.Namespace -}}
{{- $_ := set $election "resourceName" .Values.leaderElection.resourceName -}}
{{- end -}}
{{- $_ := set $config "leaderElection" $election -}}
{{- toYaml (merge $config .Values.config) -}}
{{- end -}}
