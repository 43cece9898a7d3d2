import fc from 'fast-check';
import { ScheduleError, nextRuns, staggerSchedules, validateSchedule } from '../../../lib/schedule';

const MINUTE = 60_000;
const FROM = new Date('2025-01-01T00:00:00Z');

describe('staggerSchedules', () => {
  it('gives the k-th sorted identity floor(k * window / N) minutes, whatever the input order', () => {
    const result = staggerSchedules('0 2 * * *', ['c', 'a', 'b'], 90);
    // Sorted: a (0), b (30), c (60).
    expect(result).toEqual(['0 3 * * *', '0 2 * * *', '30 2 * * *']);
    expect(staggerSchedules('0 2 * * *', ['b', 'c', 'a'], 90)).toEqual(['30 2 * * *', '0 3 * * *', '0 2 * * *']);
  });

  it('expands macros and shifts lists and steps of hours', () => {
    expect(staggerSchedules('@daily', ['a', 'b'], 120)).toEqual(['0 0 * * *', '0 1 * * *']);
    expect(staggerSchedules('45 */6 * * *', ['a', 'b'], 60)).toEqual(['45 */6 * * *', '15 1,7,13,19 * * *']);
    expect(staggerSchedules('50 9,17 * * 1-5', ['a', 'b', 'c'], 30)).toEqual([
      '50 9,17 * * 1-5',
      '0 10,18 * * 1-5',
      '10 10,18 * * 1-5',
    ]);
    expect(staggerSchedules('30 * * * *', ['a', 'b'], 60)).toEqual(['30 * * * *', '0 * * * *']);
  });

  it('wraps hours past midnight when every day runs', () => {
    expect(staggerSchedules('0 23 * * *', ['a', 'b', 'c'], 180)).toEqual(['0 23 * * *', '0 0 * * *', '0 1 * * *']);
    expect(staggerSchedules('30 11,23 * * *', ['a', 'b'], 720)).toEqual(['30 11,23 * * *', '30 5,17 * * *']);
  });

  it('returns nothing for no identities', () => {
    expect(staggerSchedules('0 2 * * *', [], 30)).toEqual([]);
  });

  it.each([
    ['*/5 * * * *', 5, 'stagger needs a fixed minute in the base schedule "*/5 * * * *", got minute field "*/5"'],
    ['0,30 2 * * *', 5, 'stagger needs a fixed minute in the base schedule "0,30 2 * * *", got minute field "0,30"'],
    [
      '0 * * * *',
      90,
      'stagger window of 90 minutes is longer than the shortest interval between runs of "0 * * * *" (60 minutes)',
    ],
    [
      '0 1,3 * * *',
      121,
      'stagger window of 121 minutes is longer than the shortest interval between runs of "0 1,3 * * *" (120 minutes)',
    ],
    [
      '0 23 * * 1',
      120,
      'stagger offset of 60 minutes moves a run of "0 23 * * 1" past midnight, onto another day than its day-of-month, month and day-of-week allow: use a shorter window or an earlier start',
    ],
    ['0 2 * * *', 0, 'stagger window must be a whole number of minutes of at least 1, got 0'],
    ['0 2 * * *', 1.5, 'stagger window must be a whole number of minutes of at least 1, got 1.5'],
    ['H 2 * * *', 10, 'field "minute" value "H" is a hashed (H) value: resolve it with resolveHashedSchedule first'],
  ])('rejects %j with a %d-minute window', (expr, window, message) => {
    expect(() => staggerSchedules(expr, ['a', 'b'], window)).toThrow(new ScheduleError(message));
  });

  it('rejects duplicate identities', () => {
    expect(() => staggerSchedules('0 2 * * *', ['a', 'b', 'a'], 30)).toThrow(
      new ScheduleError('stagger identities must be unique, "a" appears more than once'),
    );
  });

  // Base schedules with a fixed minute, their days unrestricted or restricted.
  const base = fc.record({
    minute: fc.integer({ min: 0, max: 59 }),
    hours: fc.uniqueArray(fc.integer({ min: 0, max: 23 }), { minLength: 1, maxLength: 4 }),
    days: fc.constantFrom('* * *', '* * 1-5', '1,15 * *'),
  });

  it('moves every run by exactly its offset and never lets two identities share a start (N <= window)', () => {
    fc.assert(
      fc.property(
        base,
        fc.uniqueArray(fc.string({ minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 0, max: 2000 }),
        ({ minute, hours, days }, identities, extra) => {
          const expr = `${minute} ${hours.join(',')} ${days}`;
          const sorted = [...hours].sort((a, b) => a - b);
          const gaps = sorted.map((h, i) => ((i + 1 < sorted.length ? sorted[i + 1] : sorted[0] + 24) - h) * 60);
          const interval = days === '* * *' ? Math.min(...gaps) : 60;
          const window = Math.min(identities.length + extra, interval);
          fc.pre(identities.length <= window);
          let result: string[];
          try {
            result = staggerSchedules(expr, identities, window);
          } catch (err) {
            // Only a shift past midnight on restricted days may be refused.
            expect(days).not.toBe('* * *');
            expect((err as Error).message).toMatch(/past midnight/);
            return;
          }
          const order = [...identities].sort();
          const baseRuns = nextRuns(expr, 'UTC', FROM, 4).map((d) => d.getTime());
          const starts = new Set<number>();
          result.forEach((schedule, i) => {
            expect(validateSchedule(schedule)).toBeUndefined();
            const offset = Math.floor((order.indexOf(identities[i]) * window) / identities.length);
            const runs = nextRuns(schedule, 'UTC', new Date(FROM.getTime() + offset * MINUTE), 4).map((d) =>
              d.getTime(),
            );
            expect(runs).toEqual(baseRuns.map((t) => t + offset * MINUTE));
            starts.add(runs[0]);
          });
          expect(starts.size).toBe(identities.length);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('does not depend on the order of identities', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ minLength: 1 }), { minLength: 1, maxLength: 30 }),
        fc.integer(),
        (identities, seed) => {
          const shuffled = fc.sample(fc.shuffledSubarray(identities, { minLength: identities.length }), {
            numRuns: 1,
            seed,
          })[0];
          const byIdentity = (ids: readonly string[]) => {
            const schedules = staggerSchedules('0 2 * * *', ids, 600);
            return Object.fromEntries(ids.map((id, i) => [id, schedules[i]]));
          };
          expect(byIdentity(shuffled)).toEqual(byIdentity(identities));
        },
      ),
    );
  });
});
