import { joinName, labelValue, safeShard, isDnsLabel, CRONJOB_NAME_MAX } from '../../../lib/kubernetes/names';
import { withoutRepeats } from '../../../lib/kubernetes/names';
import fc from 'fast-check';

describe('names', () => {
  test('safe shard form of vitess-operator (reference/vitess.md §4.4)', () => {
    expect(['-', '-80', '80-', '40-80', '-8000'].map(safeShard)).toEqual(['x-x', 'x-80', '80-x', '40-80', 'x-8000']);
  });

  test('short clean names are kept as they are', () => {
    expect(joinName(['example', 'nightly', 'commerce', 'x-x'])).toBe('example-nightly-commerce-x-x');
  });

  test('long names are cut to 52 characters with a hash of the full name', () => {
    const name = joinName(['a-very-long-policy-name-for-backups', 'every-five-minutes', 'customer', 'x-80']);
    expect(name).toHaveLength(CRONJOB_NAME_MAX);
    expect(name).toMatch(/^a-very-long-policy-name-for-backups-every-f-[0-9a-f]{8}$/);
  });

  test('sanitized names get a hash so that distinct inputs stay distinct', () => {
    expect(joinName(['Daily_Sched', 'commerce'])).toMatch(/^daily-sched-commerce-[0-9a-f]{8}$/);
    expect(joinName(['Daily_Sched', 'commerce'])).not.toBe(joinName(['daily-sched', 'commerce']));
  });

  test('no repeated segment: a part that repeats the end of the one before it is dropped; the shard encoding stays', () => {
    expect(joinName(['vitess-main', 'frequent-customer', 'customer', safeShard('-80')])).toBe(
      'vitess-main-frequent-customer-x-80',
    );
    expect(joinName(['vitess-main', 'nightly', 'customer', safeShard('80-')])).toBe(
      'vitess-main-nightly-customer-80-x',
    );
    expect(joinName(['vitess-main', 'customer', 'customer', safeShard('-')])).toBe('vitess-main-customer-x-x');
    expect(joinName(['etcd', 'cp-1', 'cp-1'])).toBe('etcd-cp-1');
    // only a whole part repeating the end of the one before: x-80 after x, 1 after cp-1 are no repeats
    expect(joinName(['p', 'x', 'x-80'])).toBe('p-x-x-80');
    expect(joinName(['p', 'main-x', 'x-80'])).toBe('p-main-x-x-80');
    expect(withoutRepeats(['redis', 'shard01', 'shard01-drill'])).toEqual(['redis', 'shard01', 'shard01-drill']);
    expect(withoutRepeats(['a', 'B_c', 'c'])).toEqual(['a', 'B_c']);
  });

  test('label values: at most 63 characters, alphanumeric at both ends', () => {
    expect(labelValue('x-80')).toBe('x-80');
    const long = labelValue('a'.repeat(70));
    expect(long).toHaveLength(63);
    expect(labelValue('-weird value-')).toMatch(/^weird-value-[0-9a-f]{8}$/);
  });

  test('property: any parts give a valid, deterministic, length-bounded DNS label; distinct parts give distinct names', () => {
    const part = fc.string({ minLength: 1, maxLength: 40 });
    fc.assert(
      fc.property(
        fc.array(part, { minLength: 1, maxLength: 5 }),
        fc.array(part, { minLength: 1, maxLength: 5 }),
        (a, b) => {
          const name = joinName(a);
          expect(isDnsLabel(name)).toBe(true);
          expect(name.length).toBeLessThanOrEqual(CRONJOB_NAME_MAX);
          expect(joinName([...a])).toBe(name);
          // parts that differ only by a repeated part give the same name (the resolver refuses two targets of one name)
          if (withoutRepeats(a).join('\0') !== withoutRepeats(b).join('\0')) expect(joinName(b)).not.toBe(name);
        },
      ),
      { numRuns: 500 },
    );
  });
});
