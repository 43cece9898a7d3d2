/** `spec.retention`: the retention rules plus when and how pruning runs. */
import { IssueList, show } from './errors';
import type { PolicyPath } from './errors';
import type { EnvVar } from '../kubernetes/objects';
import {
  RetentionRuleSupport,
  RetentionRules,
  checkRetentionRules,
  hasRetentionRules,
  retentionEnv,
} from '../retention';
import { validateSchedule } from '../schedule';
import type { RetentionOptions } from './types.generated';

export type { RetentionOptions } from './types.generated';

/** `destination` narrows the rules to those it supports (vtctld lists no sizes). */
export function validateRetentionOptions(
  options: RetentionOptions,
  path: PolicyPath,
  issues: IssueList,
  destination?: RetentionRuleSupport,
): void {
  checkRetentionRules(
    retentionRules(options),
    (rule, message) => issues.add(rule === undefined ? path : [...path, rule], message),
    { destination },
  );
  if (options.schedule !== undefined) {
    const problem = validateSchedule(options.schedule);
    if (problem) issues.add([...path, 'schedule'], `received ${show(options.schedule)}; ${problem}`);
    else if (!hasRetentionRules(retentionRules(options)))
      issues.add([...path, 'schedule'], 'a retention-prune CronJob needs at least one rule (keepLast, maxAge, ...)');
  }
}

/** The rules alone. */
export function retentionRules(options: RetentionOptions | undefined): RetentionRules | undefined {
  if (!options) return undefined;
  const { dryRun: _dryRun, schedule: _schedule, ...rules } = options;
  return rules;
}

/** Whether each backup run prunes right after its verified backup (rules set, no separate prune schedule). */
export function prunesAfterBackup(options: RetentionOptions | undefined): boolean {
  return options?.schedule === undefined && hasRetentionRules(retentionRules(options));
}

/** Rule env for retention.sh (empty without rules); bucket periods in the schedule's time zone. */
export function pruneEnv(options: RetentionOptions | undefined, timeZone: string): EnvVar[] {
  const rules = retentionRules(options);
  if (!hasRetentionRules(rules)) return [];
  return retentionEnv(rules, timeZone, options?.dryRun ?? false);
}
