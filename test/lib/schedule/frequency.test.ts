import fc from 'fast-check';
import {
  ScheduleError,
  cronFromFrequency,
  frequencyMinutes,
  hashModulo,
  validateSchedule,
} from '../../../lib/schedule';

// vitess.md §4.4 "Frequency vectors": [frequency, cluster, keyspace, shard, expanded strategy name, offset, cron].
const VECTORS: [string, string, string, string, string, number, string][] = [
  ['24h', 'example', 'commerce', '-', 'all-commerce-x-x', 778, '58 12 * * *'],
  ['6h', 'example', 'customer', '-8000', 'customer-all-customer-x-8000', 138, '18 2/6 * * *'],
  ['6h', 'example', 'customer', '8000-', 'customer-all-customer-8000-x', 151, '31 2/6 * * *'],
  ['24h', 'cluster1', 'commerce', '-80', 'daily', 1155, '15 19 * * *'],
  ['30m', 'cluster1', 'ks1', '-', 'sched1', 18, '18/30 * * * *'],
  ['1h', 'cluster1', 'ks1', '-', 'sched1', 48, '48 * * * *'],
  ['6h', 'cluster1', 'ks1', '-', 'sched1', 48, '48 0/6 * * *'],
  ['24h', 'cluster1', 'ks1', '-', 'sched1', 48, '48 0 * * *'],
];

describe('cronFromFrequency (vitess.md §2.4, §4.4)', () => {
  it.each(VECTORS)('%s %s|%s|%s|%s → offset %d, %j', (frequency, cluster, keyspace, shard, name, offset, cron) => {
    const key = `${cluster}|${keyspace}|${shard}|${name}`;
    expect(hashModulo(key, frequencyMinutes(frequency))).toBe(offset);
    expect(cronFromFrequency(frequency, key)).toBe(cron);
  });

  it('gives 0/1 * * * * for 1m, whatever the key', () => {
    fc.assert(
      fc.property(fc.string(), (key) => {
        expect(cronFromFrequency('1m', key)).toBe('0/1 * * * *');
      }),
    );
  });

  it('gives valid schedules for every allowed frequency', () => {
    const allowed = [
      '1m',
      '2m',
      '3m',
      '4m',
      '5m',
      '6m',
      '10m',
      '12m',
      '15m',
      '20m',
      '30m',
      '1h',
      '2h',
      '3h',
      '4h',
      '6h',
      '8h',
      '12h',
      '24h',
    ];
    fc.assert(
      fc.property(fc.constantFrom(...allowed), fc.string(), (frequency, key) => {
        expect(validateSchedule(cronFromFrequency(frequency, key))).toBeUndefined();
      }),
    );
  });

  it.each([
    ['1m', 1],
    ['30m', 30],
    ['6h', 360],
    ['24h', 1440],
    ['1h0m0s', 60],
    ['0.5h', 30],
    ['1440m', 1440],
    ['86400s', 1440],
    ['+2h', 120],
  ])('accepts %j as %d minutes', (frequency, minutes) => {
    expect(frequencyMinutes(frequency)).toBe(minutes);
  });

  it.each([
    ['30s', 'frequency "30s" is shorter than 1m: the shortest frequency is 1m'],
    ['0', 'frequency "0" is shorter than 1m: the shortest frequency is 1m'],
    ['-1h', 'frequency "-1h" is shorter than 1m: the shortest frequency is 1m'],
    ['90s', 'frequency "90s" is not a whole number of minutes'],
    [
      '45m',
      'frequency "45m" is below 1h and does not divide 1h evenly: use 1m, 2m, 3m, 4m, 5m, 6m, 10m, 12m, 15m, 20m or 30m',
    ],
    ['90m', 'frequency "90m" must be a whole number of hours that divides 24h: use 1h, 2h, 3h, 4h, 6h, 8h, 12h or 24h'],
    [
      '1h30m',
      'frequency "1h30m" must be a whole number of hours that divides 24h: use 1h, 2h, 3h, 4h, 6h, 8h, 12h or 24h',
    ],
    ['5h', 'frequency "5h" must be a whole number of hours that divides 24h: use 1h, 2h, 3h, 4h, 6h, 8h, 12h or 24h'],
    ['48h', 'frequency "48h" is longer than 24h: the longest frequency is 24h'],
    ['1d', 'frequency "1d" is not a duration: use a Go duration such as 30m, 1h, 6h, 24h or 1h30m'],
    ['', 'frequency "" is not a duration: use a Go duration such as 30m, 1h, 6h, 24h or 1h30m'],
    ['6 h', 'frequency "6 h" is not a duration: use a Go duration such as 30m, 1h, 6h, 24h or 1h30m'],
    ['.h', 'frequency ".h" is not a duration: use a Go duration such as 30m, 1h, 6h, 24h or 1h30m'],
  ])('rejects %j', (frequency, message) => {
    expect(() => cronFromFrequency(frequency, 'c|k|-|s')).toThrow(new ScheduleError(message));
    expect(() => cronFromFrequency(frequency, 'c|k|-|s')).toThrow(ScheduleError);
  });
});
