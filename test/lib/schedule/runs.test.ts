import fc from 'fast-check';
import { ScheduleError, nextRuns, shortestIntervalMinutes } from '../../../lib/schedule';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const iso = (dates: Date[]) => dates.map((d) => d.toISOString());

// Local wall time of an instant, computed here independently of the implementation.
const formatters = new Map<string, Intl.DateTimeFormat>();
function wall(
  zone: string,
  instant: number,
): { key: string; month: number; day: number; weekday: number; hour: number; minute: number } {
  if (!formatters.has(zone)) {
    formatters.set(
      zone,
      new Intl.DateTimeFormat('en-US', {
        timeZone: zone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        weekday: 'short',
      }),
    );
  }
  const p = Object.fromEntries(
    formatters
      .get(zone)!
      .formatToParts(instant)
      .map(({ type, value }) => [type, value]),
  );
  const weekday = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'].indexOf(p.weekday);
  const n = (s: string) => Number(s);
  return {
    key: `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}`,
    month: n(p.month),
    day: n(p.day),
    weekday,
    hour: n(p.hour),
    minute: n(p.minute),
  };
}

describe('nextRuns', () => {
  it('returns runs strictly after from, in UTC by default', () => {
    expect(iso(nextRuns('0 0 * * *', undefined, new Date('2024-01-01T00:00:00Z'), 2))).toEqual([
      '2024-01-02T00:00:00.000Z',
      '2024-01-03T00:00:00.000Z',
    ]);
    expect(iso(nextRuns('*/20 * * * *', undefined, new Date('2024-01-01T00:19:59.999Z'), 2))).toEqual([
      '2024-01-01T00:20:00.000Z',
      '2024-01-01T00:40:00.000Z',
    ]);
  });

  it('evaluates the fields in the time zone', () => {
    expect(iso(nextRuns('@weekly', 'Asia/Tokyo', new Date('2024-01-01T00:00:00Z'), 2))).toEqual([
      '2024-01-06T15:00:00.000Z',
      '2024-01-13T15:00:00.000Z',
    ]);
    expect(iso(nextRuns('30 9 * * *', 'Asia/Kolkata', new Date('2024-06-01T00:00:00Z'), 1))).toEqual([
      '2024-06-01T04:00:00.000Z',
    ]);
  });

  it('matches a day on either day-of-month or day-of-week when both are restricted', () => {
    // 1st of the month OR Monday.
    expect(iso(nextRuns('0 0 1 * 1', 'UTC', new Date('2024-01-01T00:00:00Z'), 6))).toEqual([
      '2024-01-08T00:00:00.000Z',
      '2024-01-15T00:00:00.000Z',
      '2024-01-22T00:00:00.000Z',
      '2024-01-29T00:00:00.000Z',
      '2024-02-01T00:00:00.000Z',
      '2024-02-05T00:00:00.000Z',
    ]);
    // */2 clears robfig's star bit, so this is "odd days OR Mondays".
    expect(iso(nextRuns('0 0 */2 * 1', 'UTC', new Date('2024-01-01T00:00:00Z'), 4))).toEqual([
      '2024-01-03T00:00:00.000Z',
      '2024-01-05T00:00:00.000Z',
      '2024-01-07T00:00:00.000Z',
      '2024-01-08T00:00:00.000Z',
    ]);
    // With day-of-week "*", both must match: only the 1st.
    expect(iso(nextRuns('0 0 1 * *', 'UTC', new Date('2024-01-01T00:00:00Z'), 1))).toEqual([
      '2024-02-01T00:00:00.000Z',
    ]);
  });

  it('finds rare runs without stepping through every minute', () => {
    expect(iso(nextRuns('0 0 29 2 *', undefined, new Date('2097-01-01T00:00:00Z'), 2))).toEqual([
      '2104-02-29T00:00:00.000Z',
      '2108-02-29T00:00:00.000Z',
    ]);
  });

  describe('DST', () => {
    it('skips a local time that does not exist (Europe/Berlin spring forward)', () => {
      expect(iso(nextRuns('30 2 * * *', 'Europe/Berlin', new Date('2024-03-30T00:00:00Z'), 3))).toEqual([
        '2024-03-30T01:30:00.000Z',
        '2024-04-01T00:30:00.000Z',
        '2024-04-02T00:30:00.000Z',
      ]);
    });

    it('runs a repeated local time once, at its first occurrence (Europe/Berlin fall back)', () => {
      expect(iso(nextRuns('30 2 * * *', 'Europe/Berlin', new Date('2024-10-26T00:00:00Z'), 3))).toEqual([
        '2024-10-26T00:30:00.000Z',
        '2024-10-27T00:30:00.000Z',
        '2024-10-28T01:30:00.000Z',
      ]);
      expect(iso(nextRuns('*/30 * * * *', 'Europe/Berlin', new Date('2024-10-27T00:00:00Z'), 3))).toEqual([
        '2024-10-27T00:30:00.000Z',
        '2024-10-27T02:00:00.000Z',
        '2024-10-27T02:30:00.000Z',
      ]);
      // From inside the second pass of 02:xx, its 02:45 is not a run: the first 02:45 already was.
      expect(iso(nextRuns('45 2 * * *', 'Europe/Berlin', new Date('2024-10-27T01:10:00Z'), 1))).toEqual([
        '2024-10-28T01:45:00.000Z',
      ]);
    });

    it('skips a midnight that does not exist (America/Santiago)', () => {
      expect(iso(nextRuns('0 0 * * *', 'America/Santiago', new Date('2024-09-06T12:00:00Z'), 2))).toEqual([
        '2024-09-07T04:00:00.000Z',
        '2024-09-09T03:00:00.000Z',
      ]);
    });

    it('handles 30-minute shifts (Australia/Lord_Howe)', () => {
      // 2024-10-06 02:00 +10:30 becomes 02:30 +11: 02:00-02:29 do not exist.
      expect(iso(nextRuns('15,45 2 * * *', 'Australia/Lord_Howe', new Date('2024-10-05T12:00:00Z'), 2))).toEqual([
        '2024-10-05T15:45:00.000Z',
        '2024-10-06T15:15:00.000Z',
      ]);
    });
  });

  it.each([
    ['0 24 * * *', 'UTC', 1, 'field "hour" value "24" is out of range 0-23'],
    ['0 0 * * *', 'Mars/Base', 1, 'timeZone "Mars/Base" is not a known IANA time zone'],
    ['0 0 * * *', 'UTC', -1, 'count must be a whole number of at least 0, got -1'],
    [
      'H 0 * * *',
      'UTC',
      1,
      'field "minute" value "H" is a hashed (H) value: resolve it with resolveHashedSchedule first',
    ],
  ])('rejects %j in %j (count %d)', (expr, zone, count, message) => {
    expect(() => nextRuns(expr, zone, new Date(0), count)).toThrow(new ScheduleError(message));
  });

  it('rejects an invalid date and returns nothing for count 0', () => {
    expect(() => nextRuns('0 0 * * *', 'UTC', new Date(NaN), 1)).toThrow(ScheduleError);
    expect(nextRuns('0 0 * * *', 'UTC', new Date(0), 0)).toEqual([]);
  });

  const zones = [
    'UTC',
    'Europe/Berlin',
    'America/New_York',
    'Australia/Lord_Howe',
    'America/Santiago',
    'Asia/Kolkata',
    'Pacific/Chatham',
  ];
  // Near DST changes of the zones above, so that the property meets them.
  const aroundTransitions = fc
    .tuple(
      fc.constantFrom(
        '2024-03-31T01:00Z',
        '2024-10-27T01:00Z',
        '2024-03-10T07:00Z',
        '2024-11-03T06:00Z',
        '2024-04-06T15:00Z',
        '2024-10-05T15:30Z',
        '2024-09-08T04:00Z',
        '2024-04-07T03:00Z',
      ),
      fc.integer({ min: -36 * 60, max: 12 * 60 }),
    )
    .map(([at, minutes]) => Date.parse(at) + minutes * MINUTE + 17_000);

  it('agrees with a minute-by-minute scan in the zone (same times, none missed, DST included)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...zones),
        aroundTransitions,
        fc.uniqueArray(fc.integer({ min: 0, max: 59 }), { minLength: 1, maxLength: 4 }),
        fc.option(fc.uniqueArray(fc.integer({ min: 0, max: 23 }), { minLength: 1, maxLength: 6 })),
        (zone, from, minutes, hours) => {
          const expr = `${minutes.join(',')} ${hours ? hours.join(',') : '*'} * * *`;
          const runs = nextRuns(expr, zone, new Date(from), 3).map((d) => d.getTime());
          expect(runs).toHaveLength(3);
          const expected: number[] = [];
          const seen = new Set<string>();
          // Start a day early so that a local time seen before `from` counts as already run.
          for (let t = Math.floor(from / MINUTE) * MINUTE - DAY; expected.length < 3; t += MINUTE) {
            const w = wall(zone, t);
            const first = !seen.has(w.key);
            seen.add(w.key);
            if (t > from && first && minutes.includes(w.minute) && (!hours || hours.includes(w.hour))) expected.push(t);
          }
          expect(runs).toEqual(expected);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('returns strictly increasing runs that match the fields in the zone', () => {
    const set = (min: number, max: number) =>
      fc.oneof(
        fc.constant({ text: '*', values: undefined as number[] | undefined }),
        fc
          .uniqueArray(fc.integer({ min, max }), { minLength: 1, maxLength: 3 })
          .map((v) => ({ text: v.join(','), values: v })),
      );
    fc.assert(
      fc.property(
        fc.constantFrom(...zones),
        fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2040-01-01T00:00:00Z'), noInvalidDate: true }),
        fc.tuple(set(0, 59), set(0, 23), set(1, 28), set(1, 12), set(0, 6)),
        (zone, from, [mi, h, dom, mon, dow]) => {
          const expr = [mi, h, dom, mon, dow].map((f) => f.text).join(' ');
          const runs = nextRuns(expr, zone, from, 5).map((d) => d.getTime());
          expect(runs).toHaveLength(5);
          const has = (f: { values?: number[] }, v: number) => f.values === undefined || f.values.includes(v);
          runs.forEach((t, i) => {
            expect(t).toBeGreaterThan(i === 0 ? from.getTime() : runs[i - 1]);
            const w = wall(zone, t);
            expect(has(mi, w.minute) && has(h, w.hour) && has(mon, w.month)).toBe(true);
            const bothRestricted = dom.values !== undefined && dow.values !== undefined;
            const dayOk = bothRestricted
              ? has(dom, w.day) || has(dow, w.weekday)
              : has(dom, w.day) && has(dow, w.weekday);
            expect(dayOk).toBe(true);
          });
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('shortestIntervalMinutes', () => {
  it.each([
    ['*/5 * * * *', undefined, 5],
    ['0 * * * *', undefined, 60],
    ['0 */6 * * *', undefined, 360],
    ['30 1,23 * * *', undefined, 120],
    ['0 9-17/4 * * 1-5', undefined, 240],
    ['@daily', undefined, 1440],
    ['@daily', 'Europe/Berlin', 1380], // the spring-forward day is 23 hours long
    ['0 1,3 * * *', 'Europe/Berlin', 60], // 01:00 CET to 03:00 CEST
    ['@weekly', undefined, 10080],
    ['0 0 29 2 *', undefined, 1461 * 1440],
  ])('%j in %s → %d', (expr, zone, minutes) => {
    expect(shortestIntervalMinutes(expr, zone)).toBe(minutes);
  });
});
