/**
 * batch/v1 CronJob and Job specs as the Kubernetes API server checks them (the rules that a
 * schema does not express).
 *
 * Sources: pkg/apis/batch/validation/validation.go (read in kubernetes v1.27–v1.33 sources):
 * validateCronJobSpec (startingDeadlineSeconds and the history limits non-negative;
 * validateScheduleFormat: 1.28 refuses TZ/CRON_TZ in the schedule when timeZone is set, newer
 * releases refuse it in any new CronJob — the strictest is applied; validateTimeZone: not empty,
 * not `Local`, each `/`-separated part `[A-Za-z.\-_0-9+]{1,14}`, not `.`/`..`, not starting with
 * `-`), ValidateJobTemplateSpec (`selector` is generated, manualSelector may not be true),
 * validateJobSpec (parallelism, completions, activeDeadlineSeconds, backoffLimit,
 * ttlSecondsAfterFinished non-negative; restartPolicy OnFailure or Never).
 * The Job a CronJob creates carries jobTemplate.metadata's labels and annotations, and the Job's
 * own ValidateObjectMeta checks them, so they are checked here too.
 * validateSchedule and validateTimeZone: the schedule parses as robfig/cron v3 ParseStandard (a
 * schedule that never runs is accepted, and so is robfig's `@every <Go duration>`, which the
 * package never renders) and the zone is one Go's time.LoadLocation knows, both as lib/schedule
 * decides them; validateCronJobSpec: concurrencyPolicy Allow, Forbid or Replace.
 */
import { show } from '../../../lib/messages';
import { parseGoDuration, scheduleSyntaxProblem, validateTimeZone } from '../../../lib/schedule';
import { annotationsProblems, labelsProblems } from './labels';
import { podTemplateProblems } from './pod';
import { type Problem, asRecord } from '../../../lib/kubernetes/validation/problems';
import { fieldPath, under } from './problems';
import { type Checks, EVERY_TIME } from './clean-parts';

const TIME_ZONE_PART = /^[A-Za-z.\-_0-9+]{1,14}$/;
const RESTART_POLICIES = ['OnFailure', 'Never'];
const CONCURRENCY_POLICIES = ['Allow', 'Forbid', 'Replace'];

function nonNegative(spec: Record<string, unknown>, fields: readonly string[]): Problem[] {
  return fields.flatMap((field) => {
    const value = spec[field];
    if (value === undefined || (typeof value === 'number' && Number.isInteger(value) && value >= 0)) return [];
    return [{ path: field, message: `received ${show(value)}; must be greater than or equal to 0` }];
  });
}

/** A CronJob `timeZone`: its shape, then whether the zone exists (validateTimeZone). */
export function timeZoneNameProblem(timeZone: string): string | undefined {
  if (timeZone === '') return 'received ""; timeZone must be unset or a non-empty string';
  if (timeZone.toLowerCase() === 'local')
    return `received ${show(timeZone)}; timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones`;
  const bad = timeZone
    .split('/')
    .some((part) => part === '.' || part === '..' || part.startsWith('-') || !TIME_ZONE_PART.test(part));
  if (bad)
    return `received ${show(timeZone)}; unknown time zone: each '/'-separated part must be 1 to 14 of [A-Za-z.-_0-9+], not '.' or '..', not starting with '-'`;
  const unknown = validateTimeZone(timeZone);
  return unknown ? `received ${show(timeZone)}; ${unknown}` : undefined;
}

/** A CronJob `schedule` beyond cron syntax: no TZ= / CRON_TZ= prefix (use timeZone). */
export function scheduleTimeZoneProblem(schedule: string): string | undefined {
  return schedule.includes('TZ')
    ? `received ${show(schedule)}; cannot use TZ or CRON_TZ in schedule, use timeZone field instead`
    : undefined;
}

/** A Job spec (of a Job, or of a CronJob's jobTemplate when `inTemplate`). Paths: `template.spec...`. */
export function jobSpecProblems(spec: unknown, inTemplate: boolean, checked: Checks = EVERY_TIME): Problem[] {
  const s = asRecord(spec) ?? {};
  const problems = nonNegative(s, [
    'parallelism',
    'completions',
    'activeDeadlineSeconds',
    'backoffLimit',
    'ttlSecondsAfterFinished',
  ]);
  problems.push(...under('template', podTemplateProblems(s.template, checked)));
  const restartPolicy = asRecord(asRecord(s.template)?.spec)?.restartPolicy;
  if (typeof restartPolicy !== 'string' || !RESTART_POLICIES.includes(restartPolicy)) {
    problems.push({
      path: 'template.spec.restartPolicy',
      message: `received ${show(restartPolicy)}; supported values: "OnFailure", "Never" (a Job's pods must end)`,
    });
  }
  if (inTemplate && s.selector !== undefined)
    problems.push({ path: 'selector', message: '`selector` will be auto-generated: leave it unset' });
  if (inTemplate && s.manualSelector === true)
    problems.push({ path: 'manualSelector', message: 'received true; supported values: unset, false' });
  return problems;
}

/** A CronJob spec. Paths: `schedule`, `jobTemplate.metadata.labels[k]`, `jobTemplate.spec...`. */
export function cronJobSpecProblems(spec: unknown, checked: Checks = EVERY_TIME): Problem[] {
  const s = asRecord(spec) ?? {};
  const problems = nonNegative(s, ['startingDeadlineSeconds', 'successfulJobsHistoryLimit', 'failedJobsHistoryLimit']);
  if (typeof s.schedule !== 'string' || s.schedule === '')
    problems.push({ path: 'schedule', message: 'a schedule is required' });
  else {
    const every = /^@every /.test(s.schedule.trim()) ? s.schedule.trim().slice('@every '.length) : undefined;
    const syntax =
      every === undefined
        ? scheduleSyntaxProblem(s.schedule)
        : parseGoDuration(every) === undefined
          ? `@every takes a Go duration such as 1h30m, received ${show(every)}`
          : undefined;
    const problem =
      scheduleTimeZoneProblem(s.schedule) ?? (syntax ? `received ${show(s.schedule)}; ${syntax}` : undefined);
    if (problem) problems.push({ path: 'schedule', message: problem });
  }
  if (s.concurrencyPolicy !== undefined && !CONCURRENCY_POLICIES.includes(s.concurrencyPolicy as string))
    problems.push({
      path: 'concurrencyPolicy',
      message: `received ${show(s.concurrencyPolicy)}; supported values: "Allow", "Forbid", "Replace"`,
    });
  if (s.timeZone !== undefined && s.timeZone !== null) {
    const tz =
      typeof s.timeZone === 'string'
        ? timeZoneNameProblem(s.timeZone)
        : `received ${show(s.timeZone)}; must be a string`;
    if (tz) problems.push({ path: 'timeZone', message: tz });
  }
  const template = asRecord(s.jobTemplate) ?? {};
  const metadata = asRecord(template.metadata) ?? {};
  problems.push(...under(fieldPath('jobTemplate', 'metadata.labels'), labelsProblems(metadata.labels, checked)));
  problems.push(
    ...under(fieldPath('jobTemplate', 'metadata.annotations'), annotationsProblems(metadata.annotations, checked)),
  );
  problems.push(...under('jobTemplate.spec', jobSpecProblems(template.spec, true, checked)));
  return problems;
}
