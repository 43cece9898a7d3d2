/**
 * The one grammar of every CLI time option (`plan --from`, `retention plan --now`):
 * ISO 8601 in UTC or with an offset, a date alone (its 00:00 UTC), or epoch seconds.
 */

/** What a time value may be, in messages. */
const TIME_GRAMMAR =
  'ISO 8601 with Z or an offset (2026-12-01T03:00:00Z, 2026-12-01T04:00+01:00), a date (2026-12-01: 00:00 UTC), or epoch seconds (1796083200)';

/** How `--help` describes a time value. */
export const TIME_HELP = `TIME is ISO 8601 with Z or an offset (2026-12-01T03:00:00Z, 2026-12-01T04:00+01:00),
a date (2026-12-01: its 00:00 UTC), or epoch seconds (1796083200).`;

const EPOCH = /^[0-9]{1,12}$/;
const ISO =
  /^([0-9]{4})-([0-9]{2})-([0-9]{2})(?:[T ]([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:\.([0-9]{1,9}))?)?(Z|z|[+-][0-9]{2}:?[0-9]{2}))?$/;

/** The time `value` of `option` names, in epoch milliseconds; or a message naming the option, the value and the grammar. */
export function parseTimeOption(option: string, value: string): { readonly ms: number } | { readonly problem: string } {
  const ms = timeMillis(value);
  if (ms !== undefined) return { ms };
  return { problem: `${option}: received ${JSON.stringify(value)}; a time: ${TIME_GRAMMAR}` };
}

function timeMillis(value: string): number | undefined {
  if (EPOCH.test(value)) return Number(value) * 1000;
  const m = ISO.exec(value);
  if (!m) return undefined;
  const [year, month, day, hour = 0, minute = 0, second = 0] = m
    .slice(1, 7)
    .map((f) => (f === undefined ? undefined : Number(f))) as number[];
  const fraction = m[7] === undefined ? 0 : Number(`0.${m[7]}`) * 1000;
  const zone = m[8];
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return undefined;
  const local = Date.UTC(year, month - 1, day, hour, minute, second);
  if (new Date(local).getUTCDate() !== day) return undefined; // 2026-02-30
  let offsetMinutes = 0;
  if (zone !== undefined && zone.toUpperCase() !== 'Z') {
    const digits = zone.slice(1).replace(':', '');
    const hours = Number(digits.slice(0, 2));
    const minutes = Number(digits.slice(2));
    if (hours > 23 || minutes > 59) return undefined;
    offsetMinutes = (zone[0] === '-' ? -1 : 1) * (hours * 60 + minutes);
  }
  return local + Math.floor(fraction) - offsetMinutes * 60_000;
}
