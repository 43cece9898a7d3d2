import { ParsedSchedule, parseSchedule } from './cron';
import { ScheduleError } from './errors';
import { shortestInterval } from './runs';

/**
 * Spreads `identities` evenly over `windowMinutes` after the start of `baseExpr` (evaluated in UTC).
 * Identities are sorted by string value (UTF-16 code units); the k-th of N starts
 * floor(k * windowMinutes / N) minutes late. result[i] is the schedule of identities[i].
 * While N <= windowMinutes no two identities share a start minute.
 */
export function staggerSchedules(baseExpr: string, identities: readonly string[], windowMinutes: number): string[] {
  if (!Number.isInteger(windowMinutes) || windowMinutes < 1) {
    throw new ScheduleError(`stagger window must be a whole number of minutes of at least 1, got ${windowMinutes}`);
  }
  const schedule = parseSchedule(baseExpr);
  const minuteText = schedule.fields[0];
  if (!/^\d+$/.test(minuteText)) {
    throw new ScheduleError(
      `stagger needs a fixed minute in the base schedule "${baseExpr}", got minute field "${minuteText}"`,
    );
  }
  const interval = shortestInterval(schedule, 'UTC');
  if (windowMinutes > interval) {
    throw new ScheduleError(
      `stagger window of ${windowMinutes} minutes is longer than the shortest interval between runs of "${baseExpr}" (${interval} minutes)`,
    );
  }
  const order = identities.map((_, i) => i).sort((a, b) => compare(identities[a], identities[b]));
  order.forEach((index, k) => {
    if (k > 0 && identities[index] === identities[order[k - 1]]) {
      throw new ScheduleError(`stagger identities must be unique, "${identities[index]}" appears more than once`);
    }
  });
  const result: string[] = new Array<string>(identities.length);
  order.forEach((index, k) => {
    result[index] = shifted(schedule, baseExpr, Math.floor((k * windowMinutes) / identities.length));
  });
  return result;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function shifted(schedule: ParsedSchedule, baseExpr: string, offset: number): string {
  const [minuteText, hourText, ...days] = schedule.fields;
  const total = Number(minuteText) + offset;
  const hourShift = Math.floor(total / 60);
  const hours = hourShift === 0 ? hourText : shiftedHours(schedule, baseExpr, offset, hourShift);
  return [String(total % 60), hours, ...days].join(' ');
}

function shiftedHours(schedule: ParsedSchedule, baseExpr: string, offset: number, hourShift: number): string {
  const everyDay = schedule.dayOfMonth.full && schedule.month.full && schedule.dayOfWeek.full;
  const moved = schedule.hour.values.map((h) => h + hourShift);
  if (!everyDay && moved.some((h) => h > 23)) {
    throw new ScheduleError(
      `stagger offset of ${offset} minutes moves a run of "${baseExpr}" past midnight, onto another day than its ` +
        'day-of-month, month and day-of-week allow: use a shorter window or an earlier start',
    );
  }
  const hours = [...new Set(moved.map((h) => h % 24))].sort((a, b) => a - b);
  return hours.length === 24 ? '*' : hours.join(',');
}
