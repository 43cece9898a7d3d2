// The one duration grammar of a policy (lib/units/duration.ts).
import fc from 'fast-check';
import { DURATION_PATTERN, UnitError, durationProblem, formatDuration, parseDuration } from '../../../lib/units';

describe('parseDuration', () => {
  it.each([
    ['90s', 90],
    ['15m', 900],
    ['2h', 7200],
    ['1h30m', 5400],
    ['7d', 604_800],
    ['30d', 30 * 86_400],
    ['2w', 1_209_600],
    ['1d12h', 129_600],
    ['1w2d3h4m5s', 604_800 + 2 * 86_400 + 3 * 3600 + 4 * 60 + 5],
    ['0s', 0],
  ])('%j is %d seconds', (text, seconds) => {
    expect(parseDuration(text)).toBe(seconds);
    expect(new RegExp(DURATION_PATTERN).test(text)).toBe(true);
  });

  it.each([
    ['', /must be a duration/],
    ['1.5h', /must be a duration/],
    ['1h 30m', /must be a duration/],
    [' 30d', /must be a duration/],
    ['90', /\(a unit is required\)/],
    ['-5m', /must be a duration/],
    ['1y', /months and years vary in length/],
    ['1mo', /months and years vary in length/],
    ['1H', /must be a duration/],
    ['30m1h', /units go from largest to smallest, each at most once/],
    ['1h1h', /units go from largest to smallest, each at most once/],
    ['99999999999999999w', /too long/],
  ])('rejects %j', (text, message) => {
    expect(() => parseDuration(text)).toThrow(UnitError);
    expect(() => parseDuration(text)).toThrow(message);
    expect(new RegExp(DURATION_PATTERN).test(text) && !/too long/.test(String(message))).toBe(false);
  });

  it('rejects a non-string', () => {
    expect(durationProblem(90)).toMatch(/must be a duration/);
  });

  it('adds up any well-formed duration, and the schema pattern accepts exactly what the parser does', () => {
    const units: [string, number][] = [
      ['w', 604_800],
      ['d', 86_400],
      ['h', 3600],
      ['m', 60],
      ['s', 1],
    ];
    fc.assert(
      fc.property(fc.array(fc.option(fc.nat({ max: 10_000 })), { minLength: 5, maxLength: 5 }), (amounts) => {
        fc.pre(amounts.some((a) => a !== null));
        const text = amounts.map((a, i) => (a === null ? '' : `${a}${units[i][0]}`)).join('');
        const seconds = amounts.reduce<number>((sum, a, i) => sum + (a ?? 0) * units[i][1], 0);
        expect(parseDuration(text)).toBe(seconds);
      }),
    );
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9wdhms. ]{0,8}$/), (text) => {
        expect(new RegExp(DURATION_PATTERN).test(text)).toBe(durationProblem(text) === undefined);
      }),
    );
  });

  it('formats seconds back into the grammar', () => {
    expect(formatDuration(0)).toBe('0s');
    expect(formatDuration(93_784)).toBe('1d2h3m4s');
    fc.assert(fc.property(fc.nat({ max: 10 ** 9 }), (s) => expect(parseDuration(formatDuration(s))).toBe(s)));
  });
});
