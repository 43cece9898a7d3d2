import { parseTimeOption } from '../../../lib/cli/time';

const MIDNIGHT = Date.UTC(2026, 11, 1);

test.each([
  ['1796083200', MIDNIGHT],
  ['0', 0],
  ['2026-12-01', MIDNIGHT],
  ['2026-12-01T00:00:00Z', MIDNIGHT],
  ['2026-12-01T00:00z', MIDNIGHT],
  ['2026-12-01 00:00Z', MIDNIGHT],
  ['2026-12-01T01:00+01:00', MIDNIGHT],
  ['2026-11-30T19:00:00-0500', MIDNIGHT],
  ['2026-12-01T00:00:01.250Z', MIDNIGHT + 1250],
])('%s is a time: ISO 8601 or epoch seconds', (value, ms) => {
  expect(parseTimeOption('--from', value)).toEqual({ ms });
});

test.each([
  'yesterday',
  '2026-12-01T00:00',
  '2026-12-01T00:00:00',
  '2026-02-30',
  '2026-13-01',
  '2026-12-01T24:00Z',
  '2026-12-01T00:60Z',
  '2026-12-01T00:00+25:00',
  '-1',
  '1.5',
  '',
  'Tue, 01 Dec 2026 00:00:00 GMT',
])('%j is refused, naming the option, the value and the grammar', (value) => {
  const result = parseTimeOption('--now', value) as { problem: string };
  expect(
    result.problem.startsWith(`--now: received ${JSON.stringify(value)}; a time: ISO 8601 with Z or an offset (`),
  ).toBe(true);
  expect(result.problem.endsWith('or epoch seconds (1796083200)')).toBe(true);
});
