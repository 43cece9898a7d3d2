/** Every target's final schedule (resolve.ts): its hashed fields, then the stagger of the targets that share one. */
import { IssueList, show } from '../policy/errors';
import type { ResolvedJobSettings } from '../policy/resolve-settings';
import { ScheduleError, containsHash, resolveHashedSchedule, staggerSchedules, validateSchedule } from '../schedule';
import { parseDuration } from '../units';
import type { EngineTarget } from '../engines/engine';

/** Every target's final schedule: hashed fields, then stagger over the targets sharing a schedule, window and time zone. */
export function resolveSchedules(
  targets: readonly EngineTarget[],
  settings: readonly ResolvedJobSettings[],
  issues: IssueList,
): (string | undefined)[] {
  const result: (string | undefined)[] = targets.map(() => undefined);
  const groups = new Map<string, number[]>();
  targets.forEach((t, i) => {
    const { schedule, stagger, timeZone } = settings[i];
    if (stagger) {
      const key = JSON.stringify([schedule, stagger.window, timeZone ?? '']);
      groups.set(key, [...(groups.get(key) ?? []), i]);
      return;
    }
    result[i] = checked(containsHash(schedule) ? resolveHashedSchedule(schedule, t.id) : schedule, t, issues);
  });
  for (const [key, members] of groups) {
    const [base, window] = JSON.parse(key) as [string, string];
    try {
      const spread = staggerSchedules(
        base,
        members.map((i) => targets[i].id),
        parseDuration(window) / 60,
      );
      members.forEach((i, k) => (result[i] = checked(spread[k], targets[i], issues)));
    } catch (e) {
      if (!(e instanceof ScheduleError)) throw e;
      issues.add(
        [...targets[members[0]].settingsPath, 'stagger'],
        `cannot stagger ${members.length} target(s) of schedule ${show(base)} over ${show(window)}: ${e.message}`,
      );
    }
  }
  return result;
}

function checked(schedule: string, target: EngineTarget, issues: IssueList): string | undefined {
  const problem = validateSchedule(schedule);
  if (!problem) return schedule;
  issues.add([...target.settingsPath, 'schedule'], `resolved to ${show(schedule)}; ${problem}`);
  return undefined;
}
