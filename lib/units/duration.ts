/**
 * The one duration grammar of a policy: whole numbers with the units w, d, h,
 * m, s, largest first and each at most once (`90s`, `15m`, `1h30m`, `7d`,
 * `2w`). Zero (`0s`) is a duration; fields that need more say so themselves.
 */
import { UnitError } from './errors';

const SECONDS: Readonly<Record<string, number>> = { w: 604_800, d: 86_400, h: 3_600, m: 60, s: 1 };
const GRAMMAR = /^(?=[0-9])(?:([0-9]+)w)?(?:([0-9]+)d)?(?:([0-9]+)h)?(?:([0-9]+)m)?(?:([0-9]+)s)?$/;
const UNITS = ['w', 'd', 'h', 'm', 's'] as const;

/** The JSON Schema pattern of a duration (the same grammar). */
export const DURATION_PATTERN = '^(?=[0-9])([0-9]+w)?([0-9]+d)?([0-9]+h)?([0-9]+m)?([0-9]+s)?$';

/** How the grammar is explained in messages. */
export const DURATION_GRAMMAR =
  'a duration: whole numbers with units w, d, h, m, s, largest first and each once, e.g. "90s", "15m", "1h30m", "7d", "2w"';

/** Why `text` is not a duration, or undefined when it is one. */
export function durationProblem(text: unknown): string | undefined {
  if (typeof text !== 'string') return `must be ${DURATION_GRAMMAR}`;
  const match = GRAMMAR.exec(text);
  if (!match) {
    let hint = '';
    if (/^[0-9]+$/.test(text)) hint = ' (a unit is required)';
    else if (/[0-9](mo|y|M)$|[0-9](mo|y|M)[0-9]/.test(text))
      hint = ' (months and years vary in length: use days, e.g. "365d")';
    else if (/^([0-9]+[wdhms])+$/.test(text)) hint = ' (units go from largest to smallest, each at most once)';
    return `must be ${DURATION_GRAMMAR}${hint}`;
  }
  const total = UNITS.reduce((sum, unit, i) => sum + Number(match[i + 1] ?? 0) * SECONDS[unit], 0);
  if (!Number.isSafeInteger(total)) return 'is too long a duration';
  return undefined;
}

/** Every target resolves the same few durations: each is parsed once. */
const parsedDurations = new Map<string, number>();

/** Seconds in a duration; throws UnitError saying what is allowed. */
export function parseDuration(text: string): number {
  let seconds = parsedDurations.get(text);
  if (seconds === undefined) {
    seconds = parseDurationText(text);
    if (parsedDurations.size > 10000) parsedDurations.clear();
    parsedDurations.set(text, seconds);
  }
  return seconds;
}

function parseDurationText(text: string): number {
  const problem = durationProblem(text);
  if (problem) throw new UnitError(`${JSON.stringify(text)} ${problem}`);
  const match = GRAMMAR.exec(text)!;
  return UNITS.reduce((sum, unit, i) => sum + Number(match[i + 1] ?? 0) * SECONDS[unit], 0);
}

/** `1d2h`-style rendering of seconds (the grammar above; `0s` for zero). */
export function formatDuration(seconds: number): string {
  let rest = seconds;
  let out = '';
  for (const unit of ['d', 'h', 'm', 's'] as const) {
    const n = Math.floor(rest / SECONDS[unit]);
    if (n > 0) out += `${n}${unit}`;
    rest -= n * SECONDS[unit];
  }
  return out || '0s';
}
