/** Every engine the core knows, in one table. Adding an engine = one entry here. */
import type { IssueList } from '../policy/errors';
import type { BackupPolicy, BackupPolicySpec } from '../policy/types';
import { validateSettings } from '../policy/validate';
import type { RetentionDestinationKind } from '../retention';
import type { Target } from '../target';
import { validateVitess, vitessTargets } from './vitess';
import { redisTargets, validateRedis } from './redis';
import { ETCD_DEFAULTS, etcdTargets, validateEtcd } from './etcd';
import { REDIS_DEFAULTS } from './redis';
import { JOB_DEFAULTS } from '../policy/defaults';

export interface EngineDefinition {
  /** Validates spec.<key> beyond the schema (including its settings levels). */
  validate(policy: BackupPolicy, path: string, issues: IssueList): void;
  /** One target per CronJob, in policy order. */
  targets(policy: BackupPolicy, path: string): Target[];
  /** Where the policy's backups live, for the retention rules it supports. @default - every rule */
  retentionDestination?(policy: BackupPolicy): RetentionDestinationKind;
  /** The prefix of the metric names its scripts push. */
  readonly metricsPrefix: string;
}

export type EngineKey = keyof typeof ENGINES;

export const ENGINES = {
  vitess: {
    validate(policy, path, issues) {
      const spec = policy.spec.vitess!;
      validateVitess(spec, path, issues);
      spec.schedules.forEach((s, i) => validateSettings(s, `${path}.schedules[${i}]`, issues));
    },
    targets: (policy, path) => vitessTargets(policy, policy.spec.vitess!, path),
    retentionDestination: () => 'vitess',
    metricsPrefix: JOB_DEFAULTS.metricsPrefix,
  },
  redis: {
    validate: (policy, path, issues) => validateRedis(policy.spec.redis!, path, issues),
    targets: (policy, path) => redisTargets(policy, policy.spec.redis!, path),
    retentionDestination: () => 's3',
    metricsPrefix: REDIS_DEFAULTS.metricsPrefix,
  },
  etcd: {
    validate: (policy, path, issues) => validateEtcd(policy, policy.spec.etcd!, path, issues),
    targets: (policy, path) => etcdTargets(policy, policy.spec.etcd!, path),
    metricsPrefix: ETCD_DEFAULTS.metricsPrefix,
  },
} satisfies Record<string, EngineDefinition> & { [K in keyof BackupPolicySpec]?: EngineDefinition };

export const ENGINE_KEYS = Object.keys(ENGINES) as EngineKey[];

/** The engines a policy sets (valid policies set exactly one). */
export function enginesOf(policy: BackupPolicy): EngineKey[] {
  return ENGINE_KEYS.filter((key) => policy.spec[key] !== undefined);
}
