/** Every common default, defined once. The schema, the renderer and the field reference read these. */
import { TIME_ZONE_DEFAULT } from '../schedule/runs';

export { TIME_ZONE_DEFAULT };

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

/*
 * The defaults a check needs before the resolve (a combination of fields, a default's own limit): the resolve
 * applies them through the same helpers, so a default is read in one place.
 */

/** The namespace of a policy's objects: `metadata.namespace`, else JOB_DEFAULTS.namespace. */
export function policyNamespace(metadata: { readonly namespace?: string } | undefined): string {
  return metadata?.namespace ?? JOB_DEFAULTS.namespace;
}

/** The keys of `spec.metrics.basicAuthSecret` with their defaults. */
export function basicAuthKeys(secret: { readonly usernameKey?: string; readonly passwordKey?: string }): {
  readonly username: string;
  readonly password: string;
} {
  return {
    username: secret.usernameKey ?? METRICS_DEFAULTS.basicAuthUsernameKey,
    password: secret.passwordKey ?? METRICS_DEFAULTS.basicAuthPasswordKey,
  };
}

/** A node affinity requirement's operator with its default. */
export function nodeRequirementOperator<O extends string>(r: {
  readonly operator?: O;
}): O | typeof JOB_DEFAULTS.nodeRequirementOperator {
  return r.operator ?? JOB_DEFAULTS.nodeRequirementOperator;
}

/** A toleration's operator with its default. */
export function tolerationOperator<O extends string>(t: {
  readonly operator?: O;
}): O | typeof JOB_DEFAULTS.tolerationOperator {
  return t.operator ?? JOB_DEFAULTS.tolerationOperator;
}

/** The zone a schedule's runs are computed in: its `timeZone`, else TIME_ZONE_DEFAULT. */
export function timeZoneOf(timeZone: string | undefined): string {
  return timeZone ?? TIME_ZONE_DEFAULT;
}
