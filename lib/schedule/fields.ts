export type FieldName = 'minute' | 'hour' | 'day-of-month' | 'month' | 'day-of-week';

export interface FieldSpec {
  readonly name: FieldName;
  readonly min: number;
  readonly max: number;
  /** Names for the values min, min+1, ... (matched case-insensitively). */
  readonly names?: readonly string[];
  /** Whether `?` (same as `*`) is allowed. */
  readonly question: boolean;
}

/** The five fields of a Kubernetes CronJob schedule, in order. */
export const FIELDS: readonly FieldSpec[] = [
  { name: 'minute', min: 0, max: 59, question: false },
  { name: 'hour', min: 0, max: 23, question: false },
  { name: 'day-of-month', min: 1, max: 31, question: true },
  {
    name: 'month',
    min: 1,
    max: 12,
    names: ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'],
    question: false,
  },
  { name: 'day-of-week', min: 0, max: 6, names: ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'], question: true },
];

export const FIELD_LIST = 'minute hour day-of-month month day-of-week';

/** The macros robfig/cron's ParseStandard accepts (except `@every`), with their 5-field meaning. */
export const MACROS: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

export const MACRO_LIST = Object.keys(MACROS).join(', ');

// The characters Go's strings.Fields (unicode.IsSpace) splits on.
const GO_SPACE = '[\\t\\n\\v\\f\\r \\u0085\\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000]';
const EDGE_SPACE = new RegExp(`^${GO_SPACE}+|${GO_SPACE}+$`, 'g');
const SPACE_RUN = new RegExp(`${GO_SPACE}+`);

export function trimSpace(text: string): string {
  return text.replace(EDGE_SPACE, '');
}

/** Splits a trimmed expression into its whitespace-separated tokens. */
export function splitTokens(trimmed: string): string[] {
  return trimmed === '' ? [] : trimmed.split(SPACE_RUN);
}
