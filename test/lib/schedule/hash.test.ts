import { createHash } from 'node:crypto';
import fc from 'fast-check';
import {
  ScheduleError,
  containsHash,
  hashModulo,
  parseSchedule,
  resolveHashedSchedule,
  validateSchedule,
} from '../../../lib/schedule';

// The documented formula, written out independently of the implementation.
function expectedHash(identity: string, field: string, modulus: number): number {
  const digest = createHash('sha256').update(`${identity}|${field}`).digest();
  return Number(BigInt(`0x${digest.subarray(0, 8).toString('hex')}`) % BigInt(modulus));
}

describe('containsHash', () => {
  it.each([
    ['H 2 * * *', true],
    ['0 H(0-5) * * *', true],
    ['H/15 * * * *', true],
    ['0,H 2 * * *', true],
    ['0 0 * * THU', false],
    ['0 0 * * *', false],
    ['@hourly', false],
  ])('%j → %s', (expr, expected) => {
    expect(containsHash(expr)).toBe(expected);
  });
});

describe('resolveHashedSchedule', () => {
  it('replaces H with the hash of identity|field in the field range', () => {
    const resolved = resolveHashedSchedule('H H * * *', 'prod/etcd');
    expect(resolved).toBe(`${expectedHash('prod/etcd', 'minute', 60)} ${expectedHash('prod/etcd', 'hour', 24)} * * *`);
  });

  it('uses 1-28 for H in day-of-month and the full range elsewhere', () => {
    const id = 'redis/shard-3';
    expect(resolveHashedSchedule('0 0 H H H', id)).toBe(
      `0 0 ${1 + expectedHash(id, 'day-of-month', 28)} ${1 + expectedHash(id, 'month', 12)} ${expectedHash(id, 'day-of-week', 7)}`,
    );
  });

  it('renders H/n as start-max/n with start in [0, n)', () => {
    const id = 'vitess/commerce/-';
    expect(resolveHashedSchedule('H/15 * * * *', id)).toBe(`${expectedHash(id, 'minute', 15)}-59/15 * * * *`);
    expect(resolveHashedSchedule('0 H/6 * * *', id)).toBe(`0 ${expectedHash(id, 'hour', 6)}-23/6 * * *`);
  });

  it('supports H(a-b), H(a-b)/n and lists of hashed elements', () => {
    const id = 'x';
    const h = expectedHash(id, 'minute', 31);
    expect(resolveHashedSchedule('H(0-30) 3 * * *', id)).toBe(`${h} 3 * * *`);
    expect(resolveHashedSchedule('H(10-40)/10 3 * * *', id)).toBe(
      `${10 + expectedHash(id, 'minute', 10)}-40/10 3 * * *`,
    );
    const k = expectedHash(id, 'minute', 30);
    expect(resolveHashedSchedule('H(0-29),H(30-59) * * * *', id)).toBe(`${k},${30 + k} * * * *`);
  });

  it('keeps schedules without H as they are, after validating them', () => {
    expect(resolveHashedSchedule('@daily', 'x')).toBe('@daily');
    expect(resolveHashedSchedule('5 4 * * SUN', 'x')).toBe('5 4 * * SUN');
    expect(() => resolveHashedSchedule('0 24 * * *', 'x')).toThrow(
      new ScheduleError('field "hour" value "24" is out of range 0-23'),
    );
  });

  it.each([
    ['H(0-60) * * * *', 'field "minute" hashed range "H(0-60)" is out of range 0-59'],
    [
      'H(30-10) * * * *',
      'field "minute" hashed range "H(30-10)" is reversed: the start must not be greater than the end',
    ],
    ['H/0 * * * *', 'field "minute" step in "H/0" must be a whole number from 1 to 60'],
    ['H(0-9)/11 * * * *', 'field "minute" step in "H(0-9)/11" must be a whole number from 1 to 10'],
    ['H(0-30 * * * *', 'field "minute" hashed element "H(0-30" is not valid: use H, H/n, H(a-b) or H(a-b)/n'],
    ['0 H/x * * *', 'field "hour" hashed element "H/x" is not valid: use H, H/n, H(a-b) or H(a-b)/n'],
    ['H * * *', 'expected 5 fields (minute hour day-of-month month day-of-week), got 4'],
    ['H 1-H * * *', 'field "hour" value "H" is not valid: allowed values are 0-23'],
    ['H 0 30 2 *', 'schedule never runs: day-of-month "30" does not occur in any month selected by "2"'],
  ])('rejects %j', (expr, message) => {
    expect(() => resolveHashedSchedule(expr, 'id')).toThrow(new ScheduleError(message));
  });

  it('rejects an empty identity', () => {
    expect(() => resolveHashedSchedule('H * * * *', '')).toThrow(
      'identity for hashed schedule fields must not be empty',
    );
  });

  it('is deterministic, valid and in range for any identity', () => {
    const forms = ['H H * * *', 'H/15 H(1-5) * * *', 'H H H H H', 'H(0-29),H(30-59) H/4 * * 1-5', '0 H(2-4) H/7 * *'];
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.constantFrom(...forms), (identity, form) => {
        const resolved = resolveHashedSchedule(form, identity);
        expect(resolveHashedSchedule(form, identity)).toBe(resolved);
        expect(containsHash(resolved)).toBe(false);
        expect(validateSchedule(resolved)).toBeUndefined();
        const s = parseSchedule(resolved);
        if (form === 'H/15 H(1-5) * * *') {
          expect(s.minute.values).toHaveLength(4);
          expect(s.minute.values[0]).toBeLessThan(15);
          expect(s.hour.values[0]).toBeGreaterThanOrEqual(1);
          expect(s.hour.values[0]).toBeLessThanOrEqual(5);
        }
        if (form === 'H H H H H') expect(s.dayOfMonth.values[0]).toBeLessThanOrEqual(28);
      }),
    );
  });

  it('spreads identities over the range', () => {
    const minutes = new Set(
      Array.from({ length: 200 }, (_, i) => resolveHashedSchedule('H 2 * * *', `target-${i}`).split(' ')[0]),
    );
    expect(minutes.size).toBeGreaterThan(40);
  });
});

describe('hashModulo', () => {
  it('is the first 8 bytes of sha256 as a big-endian integer, mod the modulus', () => {
    expect(hashModulo('cluster1|ks1|-|sched1', 1440)).toBe(48);
    expect(hashModulo('anything', 1)).toBe(0);
  });

  it('rejects a modulus below 1', () => {
    expect(() => hashModulo('x', 0)).toThrow(RangeError);
  });
});
