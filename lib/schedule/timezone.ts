import { closest } from '../messages';

const PART = /^[A-Za-z.\-_0-9+]{1,14}$/;

// Names ICU accepts but the tz database (and so Go's time.LoadLocation on the API server) does not have.
const ICU_ONLY = new Set([
  'ACT',
  'AET',
  'AGT',
  'ART',
  'AST',
  'BET',
  'BST',
  'CAT',
  'CNT',
  'CST',
  'CTT',
  'EAT',
  'ECT',
  'IET',
  'IST',
  'JST',
  'MIT',
  'NET',
  'NST',
  'PLT',
  'PNT',
  'PRT',
  'PST',
  'SST',
  'VST',
  'US/Pacific-New',
  'Canada/East-Saskatchewan',
]);

const valid = new Set<string>();
let canonicalByLowerCase: Map<string, string> | undefined;

/**
 * Returns undefined when the Kubernetes API server accepts `tz` as a CronJob timeZone
 * (an IANA name, checked against Node's ICU data), else why not.
 */
export function validateTimeZone(tz: string): string | undefined {
  if (typeof tz !== 'string') return `timeZone must be a string, got ${typeof tz}`;
  if (valid.has(tz)) return undefined;
  if (tz === '') return 'timeZone must not be empty: omit it or give an IANA name such as "Europe/Berlin"';
  for (const part of tz.split('/')) {
    if (part === '.' || part === '..') return `timeZone "${tz}" must not contain a "${part}" part`;
    if (part.startsWith('-')) return `timeZone "${tz}" has a part "${part}" that starts with "-"`;
    if (!PART.test(part)) {
      return `timeZone "${tz}" has an invalid part "${part}": each "/"-separated part must be 1-14 characters from A-Z, a-z, 0-9, ".", "-", "_" and "+"`;
    }
  }
  if (tz.toLowerCase() === 'local')
    return `timeZone "${tz}" is not allowed: give an explicit IANA name such as "Europe/Berlin"`;
  const resolved = icuZone(tz);
  if (resolved === undefined || ICU_ONLY.has(tz) || tz.startsWith('SystemV/')) {
    const offset = /^(?:GMT|UTC)([+-])(\d{1,2})$/.exec(tz);
    const hint = offset
      ? `: for a fixed offset of UTC${offset[1]}${offset[2]} use "Etc/GMT${offset[1] === '+' ? '-' : '+'}${Number(offset[2])}" (the Etc/GMT sign is inverted)`
      : '';
    const guess = offset ? undefined : closest(tz, Intl.supportedValuesOf('timeZone'));
    return `timeZone "${tz}" is not a known IANA time zone${hint}${guess ? ` (did you mean "${guess}"?)` : ''}`;
  }
  const canonical = canonicalCase(tz, resolved);
  if (canonical !== tz) {
    const hint = canonical ? `, did you mean "${canonical}"?` : ' (each part starts with a capital letter)';
    return `timeZone "${tz}" is not a known IANA time zone: names are case-sensitive${hint}`;
  }
  valid.add(tz);
  return undefined;
}

function icuZone(tz: string): string | undefined {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: tz }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

/** ICU matches names case-insensitively, the tz database does not: the correctly cased name when known. */
function canonicalCase(tz: string, resolved: string): string | undefined {
  canonicalByLowerCase ??= new Map(Intl.supportedValuesOf('timeZone').map((name) => [name.toLowerCase(), name]));
  const lower = tz.toLowerCase();
  if (resolved.toLowerCase() === lower) return resolved;
  const known = canonicalByLowerCase.get(lower);
  if (known) return known;
  return tz.split('/').some((part) => /^[a-z]/.test(part)) ? undefined : tz;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(tz, f);
  }
  return f;
}

const offsetCache = new Map<string, Map<number, number>>();
const OFFSET_CACHE_LIMIT = 100_000;

/** The offset of `tz` from UTC at `instant` (ms since the epoch), in ms: local wall time = instant + offset. */
export function zoneOffset(tz: string, instant: number): number {
  if (tz === 'UTC') return 0;
  let cache = offsetCache.get(tz);
  if (!cache) offsetCache.set(tz, (cache = new Map<number, number>()));
  let offset = cache.get(instant);
  if (offset === undefined) {
    const p: Record<string, number> = {};
    for (const { type, value } of formatter(tz).formatToParts(instant)) p[type] = Number(value);
    offset = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - Math.floor(instant / 1000) * 1000;
    if (cache.size >= OFFSET_CACHE_LIMIT) cache.clear();
    cache.set(instant, offset);
  }
  return offset;
}
