import { ParsedSchedule, parseSchedule } from './cron';
import { ScheduleError } from './errors';
import { validateTimeZone, zoneOffset } from './timezone';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
// Wider than any UTC offset: every instant whose local date is D lies within D ± this margin.
const MARGIN = 16 * HOUR;
const SEARCH_YEARS = 10;

/**
 * The next `count` run instants strictly after `from`, with the cron fields evaluated in `timeZone`
 * (default UTC) like robfig/cron v3. Day-of-month and day-of-week: when both are restricted (neither has a
 * `*` or `?` element; one with a step above 1 counts as restricted), a day matches if either matches, else
 * both must. DST: a local time that does not exist is skipped; a local time that occurs twice
 * runs once, at its first occurrence.
 */
export function nextRuns(expr: string, timeZone: string | undefined, from: Date, count: number): Date[] {
  const zone = checkedZone(timeZone);
  if (!Number.isInteger(count) || count < 0)
    throw new ScheduleError(`count must be a whole number of at least 0, got ${count}`);
  const start = from.getTime();
  if (Number.isNaN(start)) throw new ScheduleError('from must be a valid date');
  const runs: Date[] = [];
  if (count === 0) return runs;
  for (const instant of runInstants(parseSchedule(expr), zone, start)) {
    runs.push(new Date(instant));
    if (runs.length === count) break;
  }
  return runs;
}

/**
 * The run instants (ms since the epoch) strictly after `from` and before `to`, ascending, like `nextRuns`.
 * Throws ScheduleError when there are more than `limit`.
 */
export function runsBetween(
  expr: string,
  timeZone: string | undefined,
  from: number,
  to: number,
  limit: number,
): number[] {
  const zone = checkedZone(timeZone);
  const runs: number[] = [];
  if (to <= from) return runs;
  for (const instant of runInstants(parseSchedule(expr), zone, from)) {
    if (instant >= to) break;
    if (runs.length === limit)
      throw new ScheduleError(
        `schedule "${expr}" runs more than ${limit} times between ${new Date(from).toISOString()} and ${new Date(to).toISOString()}`,
      );
    runs.push(instant);
  }
  return runs;
}

const REFERENCE = Date.UTC(2024, 0, 1);
const HORIZON_DAYS = 400;
const MAX_RUNS = 10_000;

/**
 * The shortest gap in minutes between consecutive runs, over the runs of the 400 days from 2024-01-01T00:00Z
 * (at most 10,000 runs, at least 2), so the answer is deterministic and sees a full year of DST changes.
 */
export function shortestIntervalMinutes(expr: string, timeZone?: string): number {
  return shortestInterval(parseSchedule(expr), checkedZone(timeZone));
}

export function shortestInterval(schedule: ParsedSchedule, zone: string): number {
  const horizonEnd = REFERENCE + HORIZON_DAYS * DAY;
  let previous: number | undefined;
  let shortest = Infinity;
  let seen = 0;
  for (const instant of runInstants(schedule, zone, REFERENCE)) {
    if (previous !== undefined) shortest = Math.min(shortest, instant - previous);
    previous = instant;
    seen += 1;
    if (seen >= MAX_RUNS || (seen >= 2 && instant > horizonEnd)) break;
  }
  return shortest / MINUTE;
}

/**
 * The zone of a CronJob without `timeZone`: kube-controller-manager's, UTC on every managed cluster. Every
 * computation of its runs (plan, alerts, retention buckets, list) is made in it.
 */
export const TIME_ZONE_DEFAULT = 'UTC';

/** `timeZone` (TIME_ZONE_DEFAULT when unset), or ScheduleError when the API server would refuse it. */
export function checkedZone(timeZone: string | undefined): string {
  const zone = timeZone ?? TIME_ZONE_DEFAULT;
  const problem = validateTimeZone(zone);
  if (problem) throw new ScheduleError(problem);
  return zone;
}

/** Run instants (ms) strictly after `from`, ascending, visiting only matching months and days. */
export function* runInstants(s: ParsedSchedule, zone: string, from: number): Generator<number> {
  const fromWall = new Date(from + zoneOffset(zone, from));
  let lastYear = fromWall.getUTCFullYear() + SEARCH_YEARS;
  let day = Date.UTC(fromWall.getUTCFullYear(), fromWall.getUTCMonth(), fromWall.getUTCDate());
  for (;;) {
    const date = new Date(day);
    if (date.getUTCFullYear() > lastYear) {
      throw new ScheduleError(
        `schedule "${s.fields.join(' ')}" has no run within ${SEARCH_YEARS} years in time zone ${zone}`,
      );
    }
    if (!s.month.contains[date.getUTCMonth() + 1]) {
      day = Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
      continue;
    }
    if (dayMatches(s, date.getUTCDate(), date.getUTCDay())) {
      for (const instant of runsOnDay(s, zone, day)) {
        if (instant > from) {
          lastYear = date.getUTCFullYear() + SEARCH_YEARS;
          yield instant;
        }
      }
    }
    day += DAY;
  }
}

/** Whether a day is a run day, with robfig's rule for day-of-month and day-of-week together. */
export function dayMatches(s: ParsedSchedule, dayOfMonth: number, dayOfWeek: number): boolean {
  const domMatch = s.dayOfMonth.contains[dayOfMonth];
  const dowMatch = s.dayOfWeek.contains[dayOfWeek];
  return s.dayOfMonth.star || s.dayOfWeek.star ? domMatch && dowMatch : domMatch || dowMatch;
}

/** The instants of the day's matching local times (`day` = local midnight written as UTC ms). */
function* runsOnDay(s: ParsedSchedule, zone: string, day: number): Generator<number> {
  const before = zoneOffset(zone, day - MARGIN);
  const after = zoneOffset(zone, day + DAY + MARGIN);
  for (const hour of s.hour.values) {
    for (const minute of s.minute.values) {
      const wall = day + hour * HOUR + minute * MINUTE;
      const instant = before === after ? wall - before : firstInstant(zone, wall, before, after);
      if (instant !== undefined) yield instant;
    }
  }
}

/** Near an offset change: the earliest instant showing local time `wall`, or undefined if it does not exist. */
function firstInstant(zone: string, wall: number, before: number, after: number): number | undefined {
  const instants = [wall - before, wall - after].filter((t) => t + zoneOffset(zone, t) === wall);
  return instants.length ? Math.min(...instants) : undefined;
}
