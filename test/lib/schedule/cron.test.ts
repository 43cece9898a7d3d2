import fc from 'fast-check';
import { FIELDS, MACROS, parseSchedule, validateSchedule } from '../../../lib/schedule';

// etcd.md §8.3: the "Kubernetes CronJob API" column.
describe('validateSchedule: etcd.md §8.3 vectors', () => {
  it.each([
    '* 2 * * *',
    '0 22 * * 1-5',
    '5 4 * * SUN',
    '@hourly',
    '0 */2 * * *',
    '0 3 * * *',
    '0 0 * * 0',
    '0 0 * * MON-FRI',
    '0 0,12 * * *',
    '59 23 31 12 6',
    '@daily',
    '0 0 */2 * *',
    '0 0 * jan *',
    '@midnight',
    ' 0 0 * * *',
  ])('accepts %j', (expr) => {
    expect(validateSchedule(expr)).toBeUndefined();
  });

  it.each([
    ['5 4 * * FOO', 'field "day-of-week" value "FOO" is not valid: allowed values are 0-6 or SUN-SAT'],
    [
      '@hourli',
      'unknown macro "@hourli": allowed macros are @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly',
    ],
    [
      '* * * * 5L',
      'field "day-of-week" value "5L" uses L, W or # (Quartz extensions), which Kubernetes CronJobs do not support',
    ],
    [
      '* * L-5 * *',
      'field "day-of-month" value "L-5" uses L, W or # (Quartz extensions), which Kubernetes CronJobs do not support',
    ],
    [
      '* * 15W * *',
      'field "day-of-month" value "15W" uses L, W or # (Quartz extensions), which Kubernetes CronJobs do not support',
    ],
    ['0 0 * * 7', 'field "day-of-week" value "7" is out of range 0-6 (use 0 or SUN for Sunday)'],
    ['0 24 * * *', 'field "hour" value "24" is out of range 0-23'],
    ['0 0 1 13 *', 'field "month" value "13" is out of range 1-12'],
    ['0 0 0 * *', 'field "day-of-month" value "0" is out of range 1-31'],
    ['', 'schedule is empty: expected 5 fields (minute hour day-of-month month day-of-week) or a macro such as @daily'],
    ['60 * * * *', 'field "minute" value "60" is out of range 0-59'],
    [
      '0 0 * * * *',
      'expected 5 fields (minute hour day-of-month month day-of-week), got 6: a 6-field expression with seconds first is not supported by Kubernetes CronJobs',
    ],
    ['@hourly garbage', 'macro "@hourly" must be the whole schedule, found extra text "garbage"'],
    ['garbage 5 4 * * SUN', 'expected 5 fields (minute hour day-of-month month day-of-week), got 6'],
    ['*/5 */0 * * *', 'field "hour" step "0" in "*/0" must be a whole number from 1 to 24'],
    ['CRON_TZ=UTC 0 0 * * *', '"CRON_TZ=UTC" prefixes are not allowed in a schedule: set timeZone instead'],
    ['TZ=UTC 0 0 * * *', '"TZ=UTC" prefixes are not allowed in a schedule: set timeZone instead'],
  ])('rejects %j', (expr, message) => {
    expect(validateSchedule(expr)).toBe(message);
  });
});

describe('validateSchedule: messages for other bad input', () => {
  it.each([
    ['0 0 * * * * *', 'expected 5 fields (minute hour day-of-month month day-of-week), got 7'],
    ['0 0 * *', 'expected 5 fields (minute hour day-of-month month day-of-week), got 4'],
    [
      '0 0 * * TZ',
      '"TZ" must not appear anywhere in a schedule (the API server rejects TZ and CRON_TZ): set timeZone instead',
    ],
    [
      '@every 5m',
      '@every is not supported: use 5 fields (minute hour day-of-month month day-of-week) or one of @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly',
    ],
    [
      '@DAILY',
      'unknown macro "@DAILY": allowed macros are @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly',
    ],
    [' @daily', 'macro "@daily" must not be surrounded by whitespace: the API server does not trim macros'],
    ['@daily\n', 'macro "@daily" must not be surrounded by whitespace: the API server does not trim macros'],
    ['1,,2 * * * *', 'field "minute" has an empty element in the list "1,,2"'],
    [
      '0 5-3 * * *',
      'field "hour" range "5-3" is reversed: the start must not be greater than the end (ranges do not wrap around)',
    ],
    ['? * * * *', 'field "minute" does not allow "?": only day-of-month and day-of-week do'],
    ['0 0 * ? *', 'field "month" does not allow "?": only day-of-month and day-of-week do'],
    ['*/61 * * * *', 'field "minute" step "61" in "*/61" must be a whole number from 1 to 60'],
    ['*/x * * * *', 'field "minute" step "x" in "*/x" must be a whole number from 1 to 60'],
    ['1/2/3 * * * *', 'field "minute" element "1/2/3" has more than one "/"'],
    ['1-2-3 * * * *', 'field "minute" element "1-2-3" is not a value, a range a-b or a step'],
    ['/5 * * * *', 'field "minute" element "/5" is missing a value: allowed values are 0-59'],
    ['+5 * * * *', 'field "minute" value "+5" is not valid: allowed values are 0-59'],
    ['0 0 * JANUARY *', 'field "month" value "JANUARY" is not valid: allowed values are 1-12 or JAN-DEC'],
    [
      '0 0 * * MON#2',
      'field "day-of-week" value "MON#2" uses L, W or # (Quartz extensions), which Kubernetes CronJobs do not support',
    ],
    [
      '0 0 L * *',
      'field "day-of-month" value "L" uses L, W or # (Quartz extensions), which Kubernetes CronJobs do not support',
    ],
    ['H 2 * * *', 'field "minute" value "H" is a hashed (H) value: resolve it with resolveHashedSchedule first'],
    ['0 0 30 2 *', 'schedule never runs: day-of-month "30" does not occur in any month selected by "2"'],
    ['0 0 31 4,6,9,11 *', 'schedule never runs: day-of-month "31" does not occur in any month selected by "4,6,9,11"'],
  ])('rejects %j', (expr, message) => {
    expect(validateSchedule(expr)).toBe(message);
  });

  it('rejects a non-string', () => {
    expect(validateSchedule(5 as unknown as string)).toBe('schedule must be a string, got number');
  });

  it.each([
    '0 0 29 2 *', // runs in leap years
    '0 0 30 2 1', // day-of-week restricted too: runs on Mondays (either matches)
    '0\t0  *\n* *',
    '0 0 ? * ?',
    '5-10/2,30 1-23/3 1,15 JAN-mar/2 mon-fri',
    '0 0 * * 0-6/1',
    '0 0 * * SUN/2',
    ...Object.keys(MACROS),
  ])('accepts %j', (expr) => {
    expect(validateSchedule(expr)).toBeUndefined();
  });
});

describe('parseSchedule', () => {
  it('expands macros and steps like robfig/cron', () => {
    const s = parseSchedule('@weekly');
    expect(s.fields).toEqual(['0', '0', '*', '*', '0']);
    expect(s.dayOfWeek.values).toEqual([0]);
    expect(parseSchedule('5/20 * * * *').minute.values).toEqual([5, 25, 45]);
    expect(parseSchedule('0 0 * * FRI-sat').dayOfWeek.values).toEqual([5, 6]);
  });

  it('sets the star flag only for * or ? without a step above 1', () => {
    expect(parseSchedule('0 0 * * *').dayOfMonth.star).toBe(true);
    expect(parseSchedule('0 0 ? * *').dayOfMonth.star).toBe(true);
    expect(parseSchedule('0 0 */1 * *').dayOfMonth.star).toBe(true);
    expect(parseSchedule('0 0 */2 * *').dayOfMonth.star).toBe(false);
    expect(parseSchedule('0 0 1-31 * *').dayOfMonth.star).toBe(false);
    expect(parseSchedule('0 0 1-31 * *').dayOfMonth.full).toBe(true);
  });
});

// Valid elements built from the grammar, rendered with numbers or names.
function element(
  min: number,
  max: number,
  names?: readonly string[],
): fc.Arbitrary<{ text: string; values: number[] }> {
  const value = fc.integer({ min, max });
  const render = (v: number, useName: boolean) => (useName && names ? names[v - min].toLowerCase() : String(v));
  const range = fc.tuple(value, value).map(([a, b]) => [Math.min(a, b), Math.max(a, b)] as const);
  const step = fc.integer({ min: 1, max: max - min + 1 });
  const span = (a: number, b: number, s: number) =>
    Array.from({ length: Math.floor((b - a) / s) + 1 }, (_, i) => a + i * s);
  return fc.oneof(
    fc.tuple(value, fc.boolean()).map(([v, n]) => ({ text: render(v, n), values: [v] })),
    fc
      .tuple(range, fc.boolean())
      .map(([[a, b], n]) => ({ text: `${render(a, n)}-${render(b, n)}`, values: span(a, b, 1) })),
    step.map((s) => ({ text: `*/${s}`, values: span(min, max, s) })),
    fc.tuple(value, step).map(([a, s]) => ({ text: `${a}/${s}`, values: span(a, max, s) })),
    fc.tuple(range, step).map(([[a, b], s]) => ({ text: `${a}-${b}/${s}`, values: span(a, b, s) })),
  );
}

describe('validateSchedule: grammar property', () => {
  it('accepts every expression of the grammar and selects the right values', () => {
    const fieldArbs = FIELDS.map((f) => fc.array(element(f.min, f.max, f.names), { minLength: 1, maxLength: 3 }));
    fc.assert(
      fc.property(fc.tuple(...fieldArbs), (fields) => {
        const expr = fields.map((items) => items.map((i) => i.text).join(',')).join(' ');
        // A day-of-month above 29 may never occur in the selected months (rejected by design).
        fc.pre(Math.min(...fields[2].flatMap((i) => i.values)) <= 29);
        expect(validateSchedule(expr)).toBeUndefined();
        const parsed = parseSchedule(expr);
        const sets = [parsed.minute, parsed.hour, parsed.dayOfMonth, parsed.month, parsed.dayOfWeek];
        fields.forEach((items, i) => {
          expect(sets[i].values).toEqual([...new Set(items.flatMap((it) => it.values))].sort((a, b) => a - b));
        });
      }),
    );
  });

  it('rejects any field value outside its range, naming the field and the range', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 200 }), (index, raw) => {
        const spec = FIELDS[index];
        fc.pre(raw < spec.min || raw > spec.max);
        const fields = ['0', '0', '1', '1', '0'];
        fields[index] = String(raw);
        const message = validateSchedule(fields.join(' '));
        expect(message).toMatch(
          new RegExp(`^field "${spec.name}" value "${raw}" is out of range ${spec.min}-${spec.max}`),
        );
      }),
    );
  });
});
