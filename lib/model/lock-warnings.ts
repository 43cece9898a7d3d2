/**
 * Retention rules that an S3 Object Lock keeps from being honoured: a rule that would delete a
 * backup sooner than the lock lets anybody delete it. Such a backup stays stored, locked, until the
 * lock ends (retention reports it as locked and pushes the count). The policy stays valid: a lock
 * longer than a short rule (hourly backups kept a day, each locked a week) is a choice; `validate`
 * and `plan` say what it costs.
 */
import { retentionRules } from '../policy/retention-options';
import type { BackupPolicy } from '../registry';
import { formatDuration, parseDuration } from '../units';
import { policyStores } from './list';

export interface PolicyWarning {
  /** The rule's path, e.g. `spec.retention.daily`. */
  readonly path: string;
  readonly message: string;
}

const HOUR = 3600;
const DAY = 24 * HOUR;

/** How long each time rule keeps a backup at most: `daily: 7`, 7 days (a month: its shortest, 28 days). */
const HORIZONS: readonly {
  readonly rule: 'hourly' | 'daily' | 'weekly' | 'monthly' | 'yearly';
  readonly seconds: number;
}[] = [
  { rule: 'hourly', seconds: HOUR },
  { rule: 'daily', seconds: DAY },
  { rule: 'weekly', seconds: 7 * DAY },
  { rule: 'monthly', seconds: 28 * DAY },
  { rule: 'yearly', seconds: 365 * DAY },
];

/** The rules of `policy` (a validated document) that would delete a backup while its S3 Object Lock holds it. */
export function objectLockWarnings(policy: BackupPolicy): PolicyWarning[] {
  const rules = retentionRules(policy.spec.retention);
  if (!rules) return [];
  const lock = policyStores(policy).stores.find((s) => s.objectLock !== undefined)?.objectLock;
  if (!lock) return [];
  const rulesKeep: { readonly rule: string; readonly value: string | number; readonly seconds: number }[] = [
    ...HORIZONS.flatMap(({ rule, seconds }) => {
      const n = rules[rule];
      return n === undefined ? [] : [{ rule, value: n, seconds: n * seconds }];
    }),
    ...(rules.maxAge === undefined
      ? []
      : [{ rule: 'maxAge', value: rules.maxAge, seconds: parseDuration(rules.maxAge) }]),
  ];
  return rulesKeep
    .filter((r) => r.seconds < lock.seconds)
    .map((r) => ({
      path: `spec.retention.${r.rule}`,
      message:
        `${r.rule}: ${r.value} deletes a backup after ${formatDuration(r.seconds)}, but the S3 Object Lock ` +
        `(${lock.mode}) keeps every object ${formatDuration(lock.seconds)}: such a backup stays stored, locked, until then, ` +
        `and retention reports it as locked (retention_locked)`,
    }));
}
