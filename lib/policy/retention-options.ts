/** `spec.retention`: the retention rules plus when and how pruning runs. */
import { IssueList, childPath, show } from './errors';
import { RetentionRules, validateRetention } from '../retention';
import { validateSchedule } from '../schedule';

export interface RetentionOptions extends RetentionRules {
  /** Print the prune plan and delete nothing. @default false */
  readonly dryRun?: boolean;
  /** Schedule of a separate retention-prune CronJob. @default - no separate job; pruning runs after each verified backup */
  readonly schedule?: string;
}

export function validateRetentionOptions(options: RetentionOptions, path: string, issues: IssueList): void {
  const { dryRun: _dryRun, schedule, ...rules } = options;
  for (const problem of validateRetention(rules, path)) {
    const [p, ...rest] = problem.split(': ');
    issues.add(rest.length > 0 ? p : path, rest.length > 0 ? rest.join(': ') : problem);
  }
  if (schedule !== undefined) {
    const problem = validateSchedule(schedule);
    if (problem) issues.add(childPath(path, 'schedule'), `received ${show(schedule)}; ${problem}`);
  }
}
