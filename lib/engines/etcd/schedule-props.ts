/** Props of one etcd backup schedule (cdk8s `EtcdBackupSchedule`, a Pulumi component) → policy. */
import type { SchedulePolicyProps } from '../schedule-props';
import { SCHEDULE_POLICY_PROP_KEYS } from '../schedule-props';
import type { BackupPolicy, JobSettings } from '../../policy/types';
import { API_VERSION, KIND } from '../../policy/types';
import { pickSettings } from '../../target';
import type { EtcdSpec } from './types';

/**
 * `spec.etcd` plus the job settings of every CronJob (they become
 * `spec.defaults`; per-node overrides go in `nodes`), plus the policy-level
 * fields. `scheduleName` is not used: object names are `<name>` (cluster
 * mode) or `<name>-<node>` (perNode).
 */
export interface EtcdScheduleProps extends EtcdSpec, JobSettings, Omit<SchedulePolicyProps, 'scheduleName'> {}

/** Keys of `EtcdScheduleProps` that belong to `spec.etcd`. */
export const ETCD_SPEC_KEYS = [
  'mode', 'nodes', 'nodeRole', 'tolerateAllTaints', 'endpoint', 'hostNetwork', 'certificates', 'destination',
  'namePrefix', 'retentionScope', 'restoreCheck', 'images', 'restore',
] as const;

// Compile-time guard: a new EtcdSpec field must be listed above.
type Unlisted = Exclude<keyof EtcdSpec, (typeof ETCD_SPEC_KEYS)[number]>;
const everySpecKeyListed: [Unlisted] extends [never] ? true : Unlisted = true;
void everySpecKeyListed;

/** The policy document for the props (not validated yet: pass it to `renderPolicy`). */
export function etcdSchedulePolicy(props: EtcdScheduleProps): BackupPolicy {
  const etcd: Record<string, unknown> = {};
  for (const key of ETCD_SPEC_KEYS) if (props[key] !== undefined) etcd[key] = props[key];
  const defaults = pickSettings(props);
  const known = new Set<string>([...ETCD_SPEC_KEYS, ...SCHEDULE_POLICY_PROP_KEYS, ...Object.keys(defaults)]);
  const unknown = Object.keys(props).filter((k) => !known.has(k) && (props as unknown as Record<string, unknown>)[k] !== undefined);
  return {
    apiVersion: API_VERSION,
    kind: KIND,
    metadata: { name: props.name, namespace: props.namespace, labels: props.labels, annotations: props.annotations },
    spec: {
      defaults: Object.keys(defaults).length > 0 ? defaults : undefined,
      retention: props.retention,
      metrics: props.metrics,
      // Unknown props land in spec.etcd, where the closed schema names them.
      etcd: { ...etcd, ...Object.fromEntries(unknown.map((k) => [k, (props as unknown as Record<string, unknown>)[k]])) } as unknown as EtcdSpec,
    },
  };
}
