/**
 * Job settings: the checks beyond the schema (every level) and the field-by-field
 * merge of levels; their resolution, every default applied once, is resolve-settings.ts.
 */
import { IssueList, show } from './errors';
import type { PolicyPath } from './errors';
import { nodeRequirementOperator, tolerationOperator } from './defaults';
import type { JobSettings, NodeRequirement, PodOptions, Toleration } from './types';
import { ScheduleError, containsHash, resolveHashedSchedule, validateSchedule, validateTimeZone } from '../schedule';
import { durationProblem, parseDuration } from '../units';
import { checkPlacement, checkPodOptions } from './kubernetes-checks';
import { isInt64 } from '../kubernetes/validation';
import { mergeResources } from './resources';
import { jobSettingsProperties } from './schema-settings';

export { resolveSettings } from './resolve-settings';
export type { EngineSettingsDefaults, ResolvedJobSettings } from './resolve-settings';

/** The largest value of the API's int32 fields. */
const INT32_MAX = 2 ** 31 - 1;

export function validateSettings(settings: JobSettings | undefined, path: PolicyPath, issues: IssueList): void {
  if (!settings) return;
  const at = (field: string) => [...path, field];
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
  const ttl = checkedDuration(settings.ttlAfterFinished, at('ttlAfterFinished'), issues);
  if (ttl !== undefined && ttl > INT32_MAX) {
    issues.add(
      at('ttlAfterFinished'),
      `received ${show(settings.ttlAfterFinished)}; ttlSecondsAfterFinished is a 32-bit field: at most ${INT32_MAX}s (about 68 years)`,
    );
  }
  if (settings.stagger) {
    const windowPath = [...at('stagger'), 'window'];
    const seconds = checkedDuration(settings.stagger.window, windowPath, issues);
    if (seconds !== undefined && seconds < 60)
      issues.add(windowPath, `received ${show(settings.stagger.window)}; must be at least 1m`);
  }
  const placement = settings.placement;
  if (placement) {
    const pPath = at('placement');
    placement.nodeAffinity?.forEach((r, i) => checkNodeRequirement(r, [...pPath, 'nodeAffinity', i], issues));
    placement.tolerations?.forEach((t, i) => checkToleration(t, [...pPath, 'tolerations', i], issues));
    checkPlacement(placement, pPath, issues);
  }
  const pod = settings.pod;
  if (pod) {
    checkPodOptions(pod, at('pod'), issues);
    const names = new Set<string>();
    const mountPaths = new Set<string>();
    pod.volumes?.forEach((v, i) => {
      const vPath = [...path, 'pod', 'volumes', i];
      if (names.has(v.name)) issues.add([...vPath, 'name'], `received ${show(v.name)}; volume names must be unique`);
      names.add(v.name);
      if (mountPaths.has(v.mountPath))
        issues.add([...vPath, 'mountPath'], `received ${show(v.mountPath)}; mount paths must be unique`);
      mountPaths.add(v.mountPath);
    });
    const envNames = new Set<string>();
    pod.env?.forEach((e, i) => {
      const ePath = [...path, 'pod', 'env', i];
      if ((e.value === undefined) === (e.secretKeyRef === undefined))
        issues.add(ePath, 'set exactly one of: value, secretKeyRef');
      // a repeated name silently replaces the earlier value in the container
      if (envNames.has(e.name)) issues.add([...ePath, 'name'], `received ${show(e.name)}; env names must be unique`);
      envNames.add(e.name);
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

/** Seconds of a duration field, or undefined (unset, or not a duration: reported). */
export function checkedDuration(text: string | undefined, path: PolicyPath, issues: IssueList): number | undefined {
  if (text === undefined) return undefined;
  const problem = durationProblem(text);
  if (!problem) return parseDuration(text);
  issues.add(path, `received ${show(text)}; ${problem}`);
  return undefined;
}

function checkNodeRequirement(r: NodeRequirement, path: PolicyPath, issues: IssueList): void {
  const op = nodeRequirementOperator(r);
  const n = r.values?.length ?? 0;
  if ((op === 'In' || op === 'NotIn') && n === 0)
    issues.add([...path, 'values'], `operator ${op} needs at least one value`);
  if ((op === 'Exists' || op === 'DoesNotExist') && n > 0)
    issues.add([...path, 'values'], `received ${show(r.values)}; operator ${op} takes no values`);
  if ((op === 'Gt' || op === 'Lt') && (n !== 1 || !isInt64(r.values?.[0] ?? ''))) {
    issues.add(
      [...path, 'values'],
      `received ${show(r.values)}; operator ${op} takes exactly one integer value (64-bit)`,
    );
  }
}

function checkToleration(t: Toleration, path: PolicyPath, issues: IssueList): void {
  const op = tolerationOperator(t);
  if (op === 'Exists' && t.value !== undefined)
    issues.add([...path, 'value'], `received ${show(t.value)}; operator Exists takes no value`);
  if (!t.key && op !== 'Exists')
    issues.add([...path, 'key'], 'an empty key tolerates every taint and needs operator Exists');
  if (t.tolerationSeconds !== undefined && t.effect !== 'NoExecute')
    issues.add([...path, 'tolerationSeconds'], 'only valid with effect NoExecute');
}

/** The job settings' fields, in the schema's order (the one declaration of each). */
const SETTING_KEYS = Object.keys(jobSettingsProperties) as readonly (keyof JobSettings)[];

/** Only the JobSettings fields of an object that also holds other fields (a schedule, a target). */
export function pickSettings(source: JobSettings): JobSettings {
  const out: Record<string, unknown> = {};
  for (const key of SETTING_KEYS) if (source[key] !== undefined) out[key] = source[key];
  return out;
}

/** Field-by-field merge of settings levels; later levels win; placement and pod merge per field. */
export function mergeSettings(...levels: readonly (JobSettings | undefined)[]): JobSettings {
  let out: JobSettings = {};
  for (const level of levels) {
    if (!level) continue;
    const picked = pickSettings(level);
    out = {
      ...out,
      ...picked,
      placement: out.placement || picked.placement ? { ...out.placement, ...picked.placement } : undefined,
      pod: out.pod || picked.pod ? mergePod(out.pod, picked.pod) : undefined,
    };
  }
  return out;
}

/** Pod options of two levels: field by field, and resources resource by resource (a level overrides the values it sets). */
function mergePod(earlier: PodOptions | undefined, later: PodOptions | undefined): PodOptions {
  const merged: PodOptions = { ...earlier, ...later };
  const resources =
    earlier?.resources && later?.resources ? mergeResources(earlier.resources, later.resources) : merged.resources;
  const names = [
    ...new Set([...Object.keys(earlier?.containerResources ?? {}), ...Object.keys(later?.containerResources ?? {})]),
  ];
  const containerResources =
    earlier?.containerResources && later?.containerResources
      ? Object.fromEntries(
          names.map((n) => [n, mergeResources(earlier.containerResources?.[n], later.containerResources?.[n])]),
        )
      : merged.containerResources;
  return { ...merged, ...(resources ? { resources } : {}), ...(containerResources ? { containerResources } : {}) };
}
