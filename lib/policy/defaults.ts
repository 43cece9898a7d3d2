/** Every common default, defined once. The schema, the renderer and the field reference read these. */
export const JOB_DEFAULTS = {
  schedule: '@daily',
  suspend: false,
  concurrencyPolicy: 'Forbid',
  startingDeadline: '10m',
  successfulJobsHistoryLimit: 3,
  failedJobsHistoryLimit: 3,
  backoffLimit: 1,
  imagePullPolicy: 'IfNotPresent',
  namespace: 'default',
  serializationScope: 'node',
  clusterTopologyKey: 'kubernetes.io/os',
  nodeTopologyKey: 'kubernetes.io/hostname',
  nodeRequirementOperator: 'In',
  tolerationOperator: 'Equal',
  alertSeverity: 'warning',
  staleAfterIntervals: 2,
  /** spec.scripts.mode: the scripts in the policy's one ConfigMap, as written. */
  scriptsMode: 'configMap',
  /** Metric names of engines that do not set their own prefix. */
  metricsPrefix: 'backup_cronjobs',
} as const;

/** Defaults of `spec.metrics`. */
export const METRICS_DEFAULTS = {
  /** The keys of a `kubernetes.io/basic-auth` Secret. */
  basicAuthUsernameKey: 'username',
  basicAuthPasswordKey: 'password',
  /** The label kube-prometheus-stack's Grafana dashboard sidecar selects by default. */
  grafanaDashboardLabels: { grafana_dashboard: '1' },
} as const;

/** Defaults of `spec.contentChecks`. */
export const CONTENT_CHECK_DEFAULTS = {
  allowEmpty: false,
  /** A backup with fewer keys than this percentage of the newest earlier backup's has shrunk. */
  shrinkBelowPercent: 50,
  onShrink: 'warn',
} as const;

/** The label every pod of a serialization group carries. */
export const SERIALIZATION_GROUP_LABEL = 'backup-cronjobs.io/serialization-group';
