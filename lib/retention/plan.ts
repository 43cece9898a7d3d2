/**
 * The TypeScript reference of the retention planner. `lib/scripts/retention.sh`
 * (POSIX sh + awk) implements the same algorithm for the containers; property
 * tests compare `formatPlan` with the script's output byte for byte.
 *
 * Algorithm (both implementations):
 * 1. Entries are sorted newest first: time descending, then name descending
 *    (byte-wise, as `LC_ALL=C sort`). Names must be unique.
 * 2. The first (newest) entry is always kept: reason `newest`.
 * 3. No rule set: every entry is kept, reason `noRules`.
 * 4. keepLast N: the first N entries.
 * 5. maxAge: entries with `now - time <= maxAgeSeconds` (future entries too).
 * 6. maxTotalSize: entry i is kept iff the cumulative size of entries 1..i is
 *    at most the budget; as sizes are ≥ 0 this is the longest newest-first
 *    prefix that fits, so a small old backup after the first overflow is not
 *    kept by this rule. The newest is kept anyway (step 2), even alone over
 *    budget.
 * 7. Bucket rules (hourly, daily, weekly, monthly, yearly), each on its own:
 *    walk newest first, compute the entry's period key in the policy time
 *    zone; if the key has not been kept yet and fewer than N keys were kept,
 *    keep the entry and remember the key. So the newest backup of each of the
 *    last N periods THAT HAVE BACKUPS is kept (restic/borg style: a gap in
 *    the history does not use up slots). Keys are remembered in a set, not
 *    compared with the previous entry only, so a key that re-appears after a
 *    backwards clock shift in the zone is never counted twice.
 * 8. An entry is kept iff at least one reason applies.
 */

import {
  BUCKET_RULES,
  BucketRuleName,
  NormalizedRetentionRules,
  RetentionRuleName,
  RetentionRules,
  normalizeRetention,
} from './rules';
import { MAX_EPOCH_SECONDS, PeriodKeys, assertTimeZone, formatUtc, periodKeys } from './calendar';

/** One backup as listed from a destination. */
export interface BackupEntry {
  /** Unique name: file name (dir), object key (s3) or backup name (vitess). No tab or newline. */
  readonly name: string;
  /** Creation time, epoch seconds (from the name's timestamp). */
  readonly time: number;
  /** Size in bytes (0 when the destination does not report sizes). */
  readonly size: number;
}

/** Why a backup is kept. */
export type RetentionReason = 'newest' | 'noRules' | RetentionRuleName;

/** One entry of a plan. */
export interface PlannedBackup extends BackupEntry {
  readonly keep: boolean;
  /** In the fixed order: newest, noRules, keepLast, maxAge, maxTotalSize, hourly … yearly. */
  readonly reasons: readonly RetentionReason[];
  /** The period a bucket rule kept this backup for, per bucket rule that kept it. */
  readonly periods: Readonly<Partial<Record<BucketRuleName, string>>>;
}

/** The result of {@link planRetention}. */
export interface RetentionPlan {
  readonly now: number;
  readonly timeZone: string;
  readonly rules: NormalizedRetentionRules;
  /** Newest first. */
  readonly entries: readonly PlannedBackup[];
  readonly keepCount: number;
  readonly deleteCount: number;
}

/** Options of {@link planRetention}. */
export interface PlanOptions {
  /** The current time, epoch seconds. */
  readonly now: number;
  /** IANA time zone of the bucket rules (the policy's `timeZone`). */
  readonly timeZone: string;
}

/** Byte-wise comparison of two strings' UTF-8 encodings (as `LC_ALL=C sort`). */
export function compareBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** Sorts newest first: time descending, then name descending (byte-wise). */
export function sortNewestFirst<T extends BackupEntry>(entries: readonly T[]): T[] {
  return [...entries].sort((a, b) => (a.time !== b.time ? b.time - a.time : compareBytes(b.name, a.name)));
}

/** Throws when an entry cannot be part of a plan (the scripts reject the same listings). */
export function assertEntries(entries: readonly BackupEntry[]): void {
  const seen = new Set<string>();
  entries.forEach((e, i) => {
    const at = `backup ${i + 1} (${JSON.stringify(e.name)})`;
    if (typeof e.name !== 'string' || e.name === '' || /[\t\n]/.test(e.name)) {
      throw new Error(`${at}: a name must be non-empty and contain no tab or newline`);
    }
    if (!Number.isInteger(e.time) || e.time < 0 || e.time > MAX_EPOCH_SECONDS) {
      throw new Error(`${at}: time must be whole epoch seconds from 0 to ${MAX_EPOCH_SECONDS}, got ${e.time}`);
    }
    if (!Number.isSafeInteger(e.size) || e.size < 0) {
      throw new Error(`${at}: size must be a whole number of bytes ≥ 0, got ${e.size}`);
    }
    if (seen.has(e.name)) throw new Error(`${at}: duplicate backup name`);
    seen.add(e.name);
  });
}

/**
 * Decides which backups to keep. Pure: no I/O, deletes nothing. `rules` are
 * validated (an Error lists every problem).
 */
export function planRetention(
  entries: readonly BackupEntry[],
  rules: RetentionRules | undefined,
  opts: PlanOptions,
): RetentionPlan {
  const normalized = normalizeRetention(rules);
  return planNormalized(entries, normalized, opts);
}

/** {@link planRetention} with rules already converted to seconds and bytes. */
export function planNormalized(
  entries: readonly BackupEntry[],
  rules: NormalizedRetentionRules,
  opts: PlanOptions,
): RetentionPlan {
  if (!Number.isInteger(opts.now) || opts.now < 0 || opts.now > MAX_EPOCH_SECONDS) {
    throw new Error(`now must be whole epoch seconds from 0 to ${MAX_EPOCH_SECONDS}, got ${opts.now}`);
  }
  assertTimeZone(opts.timeZone);
  assertEntries(entries);
  const sorted = sortNewestFirst(entries);
  const noRules = !(
    rules.keepLast !== undefined ||
    rules.maxAgeSeconds !== undefined ||
    rules.maxTotalBytes !== undefined ||
    BUCKET_RULES.some((r) => rules[r] !== undefined)
  );
  const usedBuckets = BUCKET_RULES.filter((r) => rules[r] !== undefined);
  const keptKeys: Record<BucketRuleName, Set<string>> = {
    hourly: new Set(),
    daily: new Set(),
    weekly: new Set(),
    monthly: new Set(),
    yearly: new Set(),
  };
  let cumulative = 0;
  const planned: PlannedBackup[] = sorted.map((e, i) => {
    const reasons: RetentionReason[] = [];
    const periods: Partial<Record<BucketRuleName, string>> = {};
    if (i === 0) reasons.push('newest');
    if (noRules) reasons.push('noRules');
    if (rules.keepLast !== undefined && i < rules.keepLast) reasons.push('keepLast');
    if (rules.maxAgeSeconds !== undefined && opts.now - e.time <= rules.maxAgeSeconds) reasons.push('maxAge');
    if (rules.maxTotalBytes !== undefined) {
      cumulative += e.size;
      if (cumulative <= rules.maxTotalBytes) reasons.push('maxTotalSize');
    }
    if (usedBuckets.length > 0) {
      const keys: PeriodKeys = periodKeys(e.time, opts.timeZone);
      for (const rule of usedBuckets) {
        const set = keptKeys[rule];
        const key = keys[rule];
        if (!set.has(key) && set.size < (rules[rule] as number)) {
          set.add(key);
          reasons.push(rule);
          periods[rule] = key;
        }
      }
    }
    return { ...e, keep: reasons.length > 0, reasons, periods };
  });
  const keepCount = planned.filter((p) => p.keep).length;
  return {
    now: opts.now,
    timeZone: opts.timeZone,
    rules,
    entries: planned,
    keepCount,
    deleteCount: planned.length - keepCount,
  };
}

/** The `rules:` part of a plan header, e.g. `keepLast=3 maxAge=86400s`. */
export function formatRules(rules: NormalizedRetentionRules): string {
  const parts: string[] = [];
  if (rules.keepLast !== undefined) parts.push(`keepLast=${rules.keepLast}`);
  if (rules.maxAgeSeconds !== undefined) parts.push(`maxAge=${rules.maxAgeSeconds}s`);
  if (rules.maxTotalBytes !== undefined) parts.push(`maxTotalSize=${rules.maxTotalBytes}B`);
  for (const r of BUCKET_RULES) if (rules[r] !== undefined) parts.push(`${r}=${rules[r]}`);
  return parts.length === 0 ? 'none (every backup is kept)' : parts.join(' ');
}

/**
 * The plan as text, exactly as `retention_plan` in `lib/scripts/retention.sh`
 * prints it:
 *
 * ```
 * # retention plan at 2021-01-04T00:00:00Z (now=1609718400), time zone Europe/Berlin
 * # rules: keepLast=2 maxAge=86400s maxTotalSize=1000B daily=7
 * # backups: 3, keep: 2, delete: 1
 * keep<TAB>2021-01-03T23:00:00Z<TAB>100<TAB>name-c<TAB>newest,keepLast,maxAge,maxTotalSize,daily:2021-01-04
 * keep<TAB>...<TAB>keepLast,daily:2021-01-03
 * delete<TAB>2020-12-01T00:00:00Z<TAB>100<TAB>name-a<TAB>-
 * ```
 *
 * Header lines start with `# `; each entry line has five tab-separated
 * fields: `keep`|`delete`, UTC time, size in bytes, name, reasons (comma
 * separated; a bucket reason carries its period key after `:`; `-` when
 * deleted). Every line ends with a newline.
 */
export function formatPlan(plan: RetentionPlan): string {
  const lines = [
    `# retention plan at ${formatUtc(plan.now)} (now=${plan.now}), time zone ${plan.timeZone}`,
    `# rules: ${formatRules(plan.rules)}`,
    `# backups: ${plan.entries.length}, keep: ${plan.keepCount}, delete: ${plan.deleteCount}`,
  ];
  for (const e of plan.entries) {
    const reasons = e.reasons.map((r) => {
      const key = (BUCKET_RULES as readonly string[]).includes(r) ? e.periods[r as BucketRuleName] : undefined;
      return key === undefined ? r : `${r}:${key}`;
    });
    lines.push(
      [
        e.keep ? 'keep' : 'delete',
        formatUtc(e.time),
        String(e.size),
        e.name,
        reasons.length ? reasons.join(',') : '-',
      ].join('\t'),
    );
  }
  return lines.join('\n') + '\n';
}

/** Names the plan deletes, newest first. */
export function plannedDeletions(plan: RetentionPlan): string[] {
  return plan.entries.filter((e) => !e.keep).map((e) => e.name);
}
