/** Every engine the core knows, in one table. Adding an engine = one entry here. */
import type { IssueList } from '../policy/errors';
import type { BackupPolicy, BackupPolicySpec } from '../policy/types';
import { validateSettings } from '../policy/validate';
import type { RetentionDestinationKind } from '../retention';
import type { Target } from '../target';
import { validateVitess, vitessTargets } from './vitess';
import { redisTargets, validateRedis } from './redis';
import { etcdTargets, validateEtcd } from './etcd';

export interface EngineDefinition {
  /** Validates spec.<key> beyond the schema (including its settings levels). */
  validate(policy: BackupPolicy, path: string, issues: IssueList): void;
  /** One target per CronJob, in policy order. */
  targets(policy: BackupPolicy, path: string): Target[];
  /** Where the policy's backups live, for the retention rules it supports. @default - every rule */
  retentionDestination?(policy: BackupPolicy): RetentionDestinationKind;
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
  },
  redis: {
    validate: (policy, path, issues) => validateRedis(policy.spec.redis!, path, issues),
    targets: (policy, path) => redisTargets(policy, policy.spec.redis!, path),
    retentionDestination: () => 's3',
  },
  etcd: {
    validate: (policy, path, issues) => validateEtcd(policy, policy.spec.etcd!, path, issues),
    targets: (policy, path) => etcdTargets(policy, policy.spec.etcd!, path),
  },
} satisfies Record<string, EngineDefinition> & { [K in keyof BackupPolicySpec]?: EngineDefinition };

export const ENGINE_KEYS = Object.keys(ENGINES) as EngineKey[];

/** The engines a policy sets (valid policies set exactly one). */
export function enginesOf(policy: BackupPolicy): EngineKey[] {
  return ENGINE_KEYS.filter((key) => policy.spec[key] !== undefined);
}
