import fc from 'fast-check';
import { dstAmbiguities, nextRuns, offsetChanges } from '../../../lib/schedule';

const HOUR = 3_600_000;
const at = (iso: string) => Date.parse(iso);
const YEAR_2026: [Date, Date] = [new Date('2026-01-01T00:00:00Z'), new Date('2027-01-01T00:00:00Z')];

/** The local wall time of an instant, `YYYY-MM-DDTHH:MM`, from Intl (independent of the implementation). */
function localTime(zone: string, instant: number): string {
  const p = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
    })
      .formatToParts(instant)
      .map(({ type, value }) => [type, value]),
  );
  return `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}`;
}

describe('offsetChanges', () => {
  test('Europe/Berlin 2026: forward on 29 March at 01:00Z, back on 25 October at 01:00Z (EU rules)', () => {
    expect(offsetChanges('Europe/Berlin', YEAR_2026[0].getTime(), YEAR_2026[1].getTime())).toEqual([
      { at: at('2026-03-29T01:00:00Z'), before: 1 * HOUR, after: 2 * HOUR },
      { at: at('2026-10-25T01:00:00Z'), before: 2 * HOUR, after: 1 * HOUR },
    ]);
  });

  test('Australia/Lord_Howe changes by 30 minutes', () => {
    expect(offsetChanges('Australia/Lord_Howe', YEAR_2026[0].getTime(), YEAR_2026[1].getTime())).toEqual([
      { at: at('2026-04-04T15:00:00Z'), before: 11 * HOUR, after: 10.5 * HOUR },
      { at: at('2026-10-03T15:30:00Z'), before: 10.5 * HOUR, after: 11 * HOUR },
    ]);
  });

  test('zones without changes, and a range that ends just before one', () => {
    expect(offsetChanges('UTC', YEAR_2026[0].getTime(), YEAR_2026[1].getTime())).toEqual([]);
    expect(offsetChanges('Asia/Kolkata', YEAR_2026[0].getTime(), YEAR_2026[1].getTime())).toEqual([]);
    expect(offsetChanges('Europe/Berlin', at('2026-03-28T00:00:00Z'), at('2026-03-29T01:00:00Z'))).toEqual([]);
    expect(offsetChanges('Europe/Berlin', at('2026-03-28T00:00:00Z'), at('2026-03-29T01:00:01Z'))).toHaveLength(1);
  });
});

describe('dstAmbiguities', () => {
  test('02:30 in Berlin: skipped in March, repeated in October', () => {
    expect(dstAmbiguities('30 2 * * *', 'Europe/Berlin', ...YEAR_2026)).toEqual([
      {
        kind: 'skipped',
        change: { at: at('2026-03-29T01:00:00Z'), before: HOUR, after: 2 * HOUR },
        localTimes: ['2026-03-29T02:30'],
      },
      {
        kind: 'repeated',
        change: { at: at('2026-10-25T01:00:00Z'), before: 2 * HOUR, after: HOUR },
        localTimes: ['2026-10-25T02:30'],
      },
    ]);
  });

  test('the stretches are half-open: 03:00 exists once in Berlin on both days', () => {
    expect(dstAmbiguities('0 3 * * *', 'Europe/Berlin', ...YEAR_2026)).toEqual([]);
    expect(dstAmbiguities('0 2 * * *', 'Europe/Berlin', ...YEAR_2026).map((d) => [d.kind, d.localTimes])).toEqual([
      ['skipped', ['2026-03-29T02:00']],
      ['repeated', ['2026-10-25T02:00']],
    ]);
  });

  test('every named minute of the stretch, and only on run days', () => {
    expect(
      dstAmbiguities('*/15 1-2 * * 0', 'America/New_York', ...YEAR_2026).map((d) => [d.kind, d.localTimes]),
    ).toEqual([
      ['skipped', ['2026-03-08T02:00', '2026-03-08T02:15', '2026-03-08T02:30', '2026-03-08T02:45']],
      ['repeated', ['2026-11-01T01:00', '2026-11-01T01:15', '2026-11-01T01:30', '2026-11-01T01:45']],
    ]);
    // the changes fall on Sundays; a Monday schedule never meets them
    expect(dstAmbiguities('30 2 * * 1', 'Europe/Berlin', ...YEAR_2026)).toEqual([]);
    expect(dstAmbiguities('30 2 * * *', undefined, ...YEAR_2026)).toEqual([]);
  });

  test('agrees with nextRuns: a skipped local time never runs that day, a repeated one runs exactly once, at its first occurrence', () => {
    const zones = [
      'Europe/Berlin',
      'America/New_York',
      'Australia/Lord_Howe',
      'America/Santiago',
      'Australia/Sydney',
      'Europe/London',
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(...zones),
        fc.integer({ min: 0, max: 59 }),
        fc.integer({ min: 0, max: 3 }),
        (zone, minute, hour) => {
          const expr = `${minute} ${hour} * * *`;
          for (const d of dstAmbiguities(expr, zone, ...YEAR_2026)) {
            const runs = nextRuns(expr, zone, new Date(d.change.at - 30 * HOUR), 3).map((r) => r.getTime());
            const local = runs.map((r) => localTime(zone, r));
            for (const l of d.localTimes) {
              if (d.kind === 'skipped') expect(local).not.toContain(l);
              else
                expect(runs.filter((r) => localTime(zone, r) === l)).toEqual([
                  Date.parse(`${l}:00Z`) - d.change.before,
                ]);
            }
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  test('a zone the API server refuses is an error', () => {
    expect(() => dstAmbiguities('0 2 * * *', 'Mars/Olympus', ...YEAR_2026)).toThrow(/not a known IANA time zone/);
  });
});
