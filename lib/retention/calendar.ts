/**
 * Calendar arithmetic for retention: UTC formatting of epoch seconds and the
 * period keys of the bucket rules in an IANA time zone. The container
 * scripts compute the same keys with `TZ=<zone> date` (libc's zoneinfo), so
 * the ISO week here is computed from the local date with the ISO-8601 rule
 * (weeks start on Monday; week 1 holds the year's first Thursday), the same
 * definition as strftime's `%G`/`%V`.
 */

/** Latest epoch second accepted anywhere (9999-12-31T23:59:59Z). */
export const MAX_EPOCH_SECONDS = 253402300799;

/** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). */
export function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m > 2 ? m - 3 : m + 9) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** The inverse of {@link daysFromCivil}. */
export function civilFromDays(days: number): { y: number; m: number; d: number } {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  return { y: yoe + era * 400 + (m <= 2 ? 1 : 0), m, d };
}

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

/** `YYYY-MM-DDTHH:MM:SSZ` (RFC 3339, UTC, whole seconds). */
export function formatUtc(epochSeconds: number): string {
  const days = Math.floor(epochSeconds / 86400);
  const secs = epochSeconds - days * 86400;
  const { y, m, d } = civilFromDays(days);
  return `${pad(y, 4)}-${pad(m)}-${pad(d)}T${pad(Math.floor(secs / 3600))}:${pad(Math.floor((secs % 3600) / 60))}:${pad(secs % 60)}Z`;
}

/** ISO-8601 week-numbering year and week of a calendar date. */
export function isoWeek(y: number, m: number, d: number): { year: number; week: number } {
  const days = daysFromCivil(y, m, d);
  const weekday = (((days + 3) % 7) + 7) % 7; // 0 = Monday (1970-01-01 was a Thursday)
  const thursday = days - weekday + 3;
  const year = civilFromDays(thursday).y;
  const week = Math.floor((thursday - daysFromCivil(year, 1, 1)) / 7) + 1;
  return { year, week };
}

/** Local calendar fields of an instant in a time zone. */
export interface LocalFields {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  readonly hour: number;
}

const UTC_NAMES = new Set(['UTC', 'Etc/UTC']);
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (f === undefined) {
    try {
      f = new Intl.DateTimeFormat('en-US', {
        timeZone,
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        hourCycle: 'h23',
      });
    } catch {
      throw new Error(
        `unknown time zone ${JSON.stringify(timeZone)}; use an IANA name such as "UTC" or "Europe/Berlin"`,
      );
    }
    formatters.set(timeZone, f);
  }
  return f;
}

/** Throws when the zone is not a time zone this runtime knows. */
export function assertTimeZone(timeZone: string): void {
  if (typeof timeZone !== 'string' || timeZone === '' || timeZone === 'Local') {
    throw new Error(`unknown time zone ${JSON.stringify(timeZone)}; use an IANA name such as "UTC" or "Europe/Berlin"`);
  }
  if (!UTC_NAMES.has(timeZone)) formatterFor(timeZone);
}

/** Local calendar fields of `epochSeconds` in `timeZone`. */
export function localFields(epochSeconds: number, timeZone: string): LocalFields {
  if (UTC_NAMES.has(timeZone)) {
    const days = Math.floor(epochSeconds / 86400);
    const { y, m, d } = civilFromDays(days);
    return { year: y, month: m, day: d, hour: Math.floor((epochSeconds - days * 86400) / 3600) };
  }
  const parts = formatterFor(timeZone).formatToParts(new Date(epochSeconds * 1000));
  const get = (type: string): number => {
    const p = parts.find((x) => x.type === type);
    if (p === undefined) throw new Error(`cannot compute the local ${type} in ${timeZone}`);
    return Number(p.value);
  };
  return { year: get('year'), month: get('month'), day: get('day'), hour: get('hour') };
}

/** The period keys of the bucket rules for one instant. */
export interface PeriodKeys {
  /** `YYYY-MM-DDTHH` */
  readonly hourly: string;
  /** `YYYY-MM-DD` */
  readonly daily: string;
  /** `GGGG-Www` (ISO week-numbering year and week) */
  readonly weekly: string;
  /** `YYYY-MM` */
  readonly monthly: string;
  /** `YYYY` */
  readonly yearly: string;
}

/** Period keys of `epochSeconds` in `timeZone` (the scripts print the same). */
export function periodKeys(epochSeconds: number, timeZone: string): PeriodKeys {
  const { year, month, day, hour } = localFields(epochSeconds, timeZone);
  const w = isoWeek(year, month, day);
  const ymd = `${pad(year, 4)}-${pad(month)}-${pad(day)}`;
  return {
    hourly: `${ymd}T${pad(hour)}`,
    daily: ymd,
    weekly: `${pad(w.year, 4)}-W${pad(w.week)}`,
    monthly: `${pad(year, 4)}-${pad(month)}`,
    yearly: pad(year, 4),
  };
}
