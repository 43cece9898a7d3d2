import { ScheduleError } from './errors';

const UNITS = 'wdhms';
const SECONDS: Readonly<Record<string, number>> = { w: 604_800, d: 86_400, h: 3_600, m: 60, s: 1 };

/** Seconds in a duration such as `90s`, `15m`, `2h`, `1h30m`, `7d` or `2w`: whole numbers, units w/d/h/m/s, largest first. */
export function parseDuration(text: string): number {
  if (typeof text !== 'string' || !/^(\d+[wdhms])+$/.test(text)) {
    throw new ScheduleError(
      `duration ${JSON.stringify(text)} is not valid: use whole numbers with units w, d, h, m or s, such as 90s, 15m, 1h30m, 7d or 2w`,
    );
  }
  let total = 0;
  let previous = -1;
  for (const [, amount, unit] of text.matchAll(/(\d+)([wdhms])/g)) {
    const rank = UNITS.indexOf(unit);
    if (rank <= previous) {
      throw new ScheduleError(`duration "${text}" is not valid: units must go from largest to smallest (w, d, h, m, s), each at most once`);
    }
    previous = rank;
    total += Number(amount) * SECONDS[unit];
  }
  if (!Number.isSafeInteger(total)) throw new ScheduleError(`duration "${text}" is too long`);
  return total;
}
