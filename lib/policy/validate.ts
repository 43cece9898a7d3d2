/** Checks beyond the JSON Schema, shared by every engine. */
import { IssueList, childPath, show } from './errors';
import type { JobSettings, NodeRequirement, Toleration } from './types';
import { ScheduleError, containsHash, parseDuration, resolveHashedSchedule, validateSchedule, validateTimeZone } from '../schedule';

export function validateSettings(settings: JobSettings | undefined, path: string, issues: IssueList): void {
  if (!settings) return;
  const at = (field: string) => childPath(path, field);
  if (settings.schedule !== undefined) {
    const problem = scheduleProblem(settings.schedule);
    if (problem) issues.add(at('schedule'), `received ${show(settings.schedule)}; ${problem}`);
    else if (settings.stagger && containsHash(settings.schedule)) {
      issues.add(at('stagger'), 'stagger and hashed (H) schedule fields spread start times two ways: use one of them');
    }
  }
  if (settings.timeZone !== undefined) {
    const problem = validateTimeZone(settings.timeZone);
    if (problem) issues.add(at('timeZone'), `received ${show(settings.timeZone)}; ${problem}`);
  }
  for (const field of ['startingDeadline', 'timeout'] as const) {
    const seconds = checkedDuration(settings[field], at(field), issues);
    if (seconds === 0) issues.add(at(field), `received ${show(settings[field])}; must be longer than 0s`);
  }
  checkedDuration(settings.ttlAfterFinished, at('ttlAfterFinished'), issues);
  if (settings.stagger) {
    const windowPath = childPath(at('stagger'), 'window');
    const seconds = checkedDuration(settings.stagger.window, windowPath, issues);
    if (seconds !== undefined && seconds < 60) issues.add(windowPath, `received ${show(settings.stagger.window)}; must be at least 1m`);
  }
  const placement = settings.placement;
  if (placement) {
    const pPath = at('placement');
    placement.nodeAffinity?.forEach((r, i) => checkNodeRequirement(r, childPath(childPath(pPath, 'nodeAffinity'), i), issues));
    placement.tolerations?.forEach((t, i) => checkToleration(t, childPath(childPath(pPath, 'tolerations'), i), issues));
  }
  const pod = settings.pod;
  if (pod) {
    const names = new Set<string>();
    pod.volumes?.forEach((v, i) => {
      const vPath = childPath(childPath(childPath(path, 'pod'), 'volumes'), i);
      if (names.has(v.name)) issues.add(childPath(vPath, 'name'), `received ${show(v.name)}; volume names must be unique`);
      names.add(v.name);
    });
    pod.env?.forEach((e, i) => {
      const ePath = childPath(childPath(childPath(path, 'pod'), 'env'), i);
      if ((e.value === undefined) === (e.secretKeyRef === undefined)) issues.add(ePath, 'set exactly one of: value, secretKeyRef');
    });
  }
}

function scheduleProblem(expr: string): string | undefined {
  try {
    return validateSchedule(containsHash(expr) ? resolveHashedSchedule(expr, 'validation') : expr);
  } catch (e) {
    if (e instanceof ScheduleError) return e.message;
    throw e;
  }
}

/**
 * Seconds of a duration field, or undefined (unset, or reported: the schema's
 * pattern lets through forms the parser refuses, such as `30m1h`).
 */
export function checkedDuration(text: string | undefined, path: string, issues: IssueList): number | undefined {
  if (text === undefined) return undefined;
  try {
    return parseDuration(text);
  } catch (e) {
    if (!(e instanceof ScheduleError)) throw e;
    issues.add(path, `received ${show(text)}; ${e.message}`);
    return undefined;
  }
}

function checkNodeRequirement(r: NodeRequirement, path: string, issues: IssueList): void {
  const op = r.operator ?? 'In';
  const n = r.values?.length ?? 0;
  if ((op === 'In' || op === 'NotIn') && n === 0) issues.add(childPath(path, 'values'), `operator ${op} needs at least one value`);
  if ((op === 'Exists' || op === 'DoesNotExist') && n > 0) issues.add(childPath(path, 'values'), `received ${show(r.values)}; operator ${op} takes no values`);
  if ((op === 'Gt' || op === 'Lt') && (n !== 1 || !/^-?[0-9]+$/.test(r.values?.[0] ?? ''))) {
    issues.add(childPath(path, 'values'), `received ${show(r.values)}; operator ${op} takes exactly one integer value`);
  }
}

function checkToleration(t: Toleration, path: string, issues: IssueList): void {
  const op = t.operator ?? 'Equal';
  if (op === 'Exists' && t.value !== undefined) issues.add(childPath(path, 'value'), `received ${show(t.value)}; operator Exists takes no value`);
  if (!t.key && op !== 'Exists') issues.add(childPath(path, 'key'), 'an empty key tolerates every taint and needs operator Exists');
  if (t.tolerationSeconds !== undefined && t.effect !== 'NoExecute') issues.add(childPath(path, 'tolerationSeconds'), 'only valid with effect NoExecute');
}
