/**
 * Shared generators and checks of the parity property tests
 * (retention-parity.test.ts, retention-busybox.test.ts).
 *
 * Property: the container implementation (retention.sh: POSIX sh + awk +
 * date, run for real under /bin/sh and, when installed, busybox) prints
 * exactly the plan of the TypeScript reference (planRetention + formatPlan)
 * for random backup histories and rules -- time zones with DST (Europe/Berlin,
 * America/New_York, Australia/Lord_Howe's 30-minute shift), ISO week 53 and
 * year boundaries, equal times (name tie-break, byte-wise with non-ASCII names).
 *
 * Cases are generated with fast-check and run in batches (one shell per
 * batch) because each plan spawns a few processes; a mismatch reports the seed
 * and the whole case. Set RETENTION_PARITY_SEED to replay.
 */
import fc from 'fast-check';
import {
  BackupEntry,
  RetentionRules,
  formatListing,
  formatPlan,
  planRetention,
  retentionEnv,
} from '../../../lib/retention';
import { PlanCase, runPlanBatch } from './retention.harness';

export { fc };

export const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe'] as const;
const utc = (y: number, mo: number, d: number, h = 0, mi = 0): number => Date.UTC(y, mo - 1, d, h, mi) / 1000;

/** Instants near which histories cluster. */
export const ANCHORS = [
  utc(2020, 12, 28), // Monday of 2020-W53
  utc(2021, 1, 3, 23), // Sunday night: end of 2020-W53 (in some zones already Monday of 2021-W01)
  utc(2021, 1, 1), // year boundary
  utc(2021, 3, 28, 1), // Europe/Berlin spring forward
  utc(2021, 10, 31, 1), // Europe/Berlin fall back
  utc(2021, 3, 14, 7), // America/New_York spring forward
  utc(2021, 11, 7, 6), // America/New_York fall back
  utc(2021, 4, 3, 15), // Australia/Lord_Howe DST end (+11 -> +10:30)
  utc(2021, 10, 2, 15, 30), // Australia/Lord_Howe DST start
  utc(2015, 12, 31, 12), // 2015-W53
  utc(2026, 12, 31, 12), // 2026-W53 / year boundary
  utc(2024, 2, 29, 12), // leap day
];

const NAME_CHARS = [...'abcxyz0189-_. ', 'é', '\u{1D11E}', '\uFFFD', 'Z'];
const nameArb = fc
  .array(fc.constantFrom(...NAME_CHARS), { minLength: 1, maxLength: 8 })
  .map((cs) => `b-${cs.join('')}`);

const offsetArb = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: -10 * 86400, max: 10 * 86400 }) },
  { weight: 3, arbitrary: fc.integer({ min: -480, max: 480 }).map((n) => n * 1800) }, // exact half hours
  { weight: 2, arbitrary: fc.integer({ min: -60, max: 60 }).map((n) => n * 86400 * 7) },
  { weight: 1, arbitrary: fc.integer({ min: -1500, max: 1500 }).map((n) => n * 86400) },
  { weight: 1, arbitrary: fc.constantFrom(0, -1, 1, 3600, -3600) }, // ties and edges
);

const sizeArb = fc.oneof(
  { weight: 5, arbitrary: fc.integer({ min: 0, max: 1000 }) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 2 ** 40 }) },
);

const rulesArb: fc.Arbitrary<RetentionRules> = fc.record(
  {
    keepLast: fc.integer({ min: 1, max: 8 }),
    maxAge: fc.oneof(
      fc.integer({ min: 1, max: 40 * 86400 }).map((n) => `${n}s`),
      fc.integer({ min: 1, max: 30 }).map((n) => `${n}d`),
    ),
    maxTotalSize: fc.oneof(
      // byte-exact budgets as decimal kilobytes (0.001k = 1 byte)
      fc.integer({ min: 1, max: 6000 }).map((n) => `${(n / 1000).toFixed(3)}k`),
      fc.constantFrom('1Ki', '2k', '1Ti'),
    ),
    hourly: fc.integer({ min: 1, max: 8 }),
    daily: fc.integer({ min: 1, max: 8 }),
    weekly: fc.integer({ min: 1, max: 6 }),
    monthly: fc.integer({ min: 1, max: 6 }),
    yearly: fc.integer({ min: 1, max: 3 }),
  },
  { requiredKeys: [] },
);

export interface Case {
  entries: BackupEntry[];
  rules: RetentionRules;
  zone: string;
  now: number;
}

/** Offsets within ±4 days of an anchor on a 15-minute grid, or any second. */
export const nearOffsetArb = fc.oneof(
  fc.integer({ min: -384, max: 384 }).map((n) => n * 900),
  fc.integer({ min: -4 * 86400, max: 4 * 86400 }),
);

export function caseArb(
  maxEntries: number,
  opts: { anchors?: readonly number[]; offsets?: fc.Arbitrary<number> } = {},
): fc.Arbitrary<Case> {
  return fc
    .record({
      anchor: fc.constantFrom(...(opts.anchors ?? ANCHORS)),
      items: fc.uniqueArray(fc.record({ name: nameArb, offset: opts.offsets ?? offsetArb, size: sizeArb }), {
        maxLength: maxEntries,
        selector: (x) => x.name,
      }),
      rules: rulesArb,
      zone: fc.constantFrom(...ZONES),
      nowOffset: fc.integer({ min: -2 * 86400, max: 45 * 86400 }),
    })
    .map(({ anchor, items, rules, zone, nowOffset }) => {
      const entries = items.map((it) => ({ name: it.name, time: anchor + it.offset, size: it.size }));
      const newest = entries.reduce((m, e) => Math.max(m, e.time), anchor);
      return { entries, rules, zone, now: Math.max(0, newest + nowOffset) };
    });
}

export function toPlanCase(c: Case): PlanCase {
  const env: Record<string, string> = { RETENTION_NOW: String(c.now) };
  for (const { name, value } of retentionEnv(c.rules, c.zone, false)) env[name] = value;
  // Shuffle deterministically (reverse) so the script's own sort is exercised.
  return { env, listing: formatListing([...c.entries].reverse()) };
}

export function seed(): number {
  return process.env.RETENTION_PARITY_SEED ? Number(process.env.RETENTION_PARITY_SEED) : Date.now() % 2 ** 31;
}

export async function checkParity(
  label: string,
  cases: Case[],
  s: number,
  opts: Parameters<typeof runPlanBatch>[1] = {},
) {
  const results = await runPlanBatch(cases.map(toPlanCase), opts);
  let checkedWithBuckets = 0;
  results.forEach((r, i) => {
    const c = cases[i];
    const expected = formatPlan(planRetention(c.entries, c.rules, { now: c.now, timeZone: c.zone }));
    const context = `${label} case ${i} (seed ${s}): ${JSON.stringify(c)}\nstderr: ${r.stderr}`;
    if (r.status !== 0 || r.stdout !== expected) {
      // Throw with the whole case so it can be replayed.
      expect({ status: r.status, plan: r.stdout, context }).toEqual({ status: 0, plan: expected, context });
    }
    if (['hourly', 'daily', 'weekly', 'monthly', 'yearly'].some((k) => k in c.rules) && c.entries.length > 1) {
      checkedWithBuckets++;
    }
  });
  return checkedWithBuckets;
}
