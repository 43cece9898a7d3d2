/**
 * Property test: retention.sh (POSIX sh + awk + GNU date, run for real under
 * /bin/sh = dash) prints exactly the plan of the TypeScript reference for
 * random histories and rules. Generators: retention.arbitraries.ts.
 */
import { ANCHORS, caseArb, checkParity, fc, nearOffsetArb, seed } from './retention.arbitraries';

describe('retention.sh plans exactly like the TypeScript reference', () => {
  test('dash + GNU date: 160 random histories and rules across DST and ISO-week boundaries', async () => {
    const s = seed();
    const cases = fc.sample(caseArb(60), { numRuns: 160, seed: s });
    const withBuckets = await checkParity('dash', cases, s);
    expect(withBuckets).toBeGreaterThan(60);
  });

  test('dash + GNU date: 60 histories within days of ISO-week/year boundaries and DST shifts, bucket rules only', async () => {
    const s = seed() + 1;
    const boundaryCase = caseArb(40, { anchors: ANCHORS.slice(0, 9), offsets: nearOffsetArb }).map((c) => ({
      ...c,
      rules: {
        hourly: c.rules.hourly,
        daily: c.rules.daily ?? 3,
        weekly: c.rules.weekly ?? 2,
        monthly: c.rules.monthly,
        yearly: c.rules.yearly,
      },
    }));
    const cases = fc.sample(boundaryCase, { numRuns: 60, seed: s }).map((c) => ({
      ...c,
      rules: Object.fromEntries(Object.entries(c.rules).filter(([, v]) => v !== undefined)),
    }));
    await checkParity('boundaries', cases, s);
  });
});
