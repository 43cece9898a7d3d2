/** Every engine the core knows, in one table. Adding an engine = one entry here. */
import type { IssueList } from '../policy/errors';
import type { BackupPolicy, BackupPolicySpec } from '../policy/types';
import { validateSettings } from '../policy/validate';
import type { Target } from '../target';
import { validateVitess, vitessTargets } from './vitess';

export interface EngineDefinition {
  /** Validates spec.<key> beyond the schema (including its settings levels). */
  validate(policy: BackupPolicy, path: string, issues: IssueList): void;
  /** One target per CronJob, in policy order. */
  targets(policy: BackupPolicy, path: string): Target[];
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
  },
} satisfies Record<string, EngineDefinition> & { [K in keyof BackupPolicySpec]?: EngineDefinition };

export const ENGINE_KEYS = Object.keys(ENGINES) as EngineKey[];

/** The engines a policy sets (valid policies set exactly one). */
export function enginesOf(policy: BackupPolicy): EngineKey[] {
  return ENGINE_KEYS.filter((key) => policy.spec[key] !== undefined);
}
