/**
 * Backup names and listings, shared with `lib/scripts/retention.sh`.
 *
 * Listing format (what the scripts' listing functions print and what
 * `retention_plan` reads, and what the CLI's `retention plan --listing FILE`
 * reads): one backup per line, `<epoch seconds><TAB><size bytes><TAB><name>`;
 * integers without leading zeros; empty lines are ignored; anything else is
 * an error (nothing is planned from a listing that is not understood).
 */

import { MAX_EPOCH_SECONDS, daysFromCivil, formatUtc } from './calendar';
import { BackupEntry, PlanOptions, RetentionPlan, planRetention } from './plan';
import { RetentionRules } from './rules';

const INT = /^(0|[1-9][0-9]*)$/;

/** Parses the listing format; throws naming the first bad line. */
export function parseListing(text: string): BackupEntry[] {
  const entries: BackupEntry[] = [];
  const seen = new Set<string>();
  text.split('\n').forEach((line, i) => {
    if (line === '') return;
    const fields = line.split('\t');
    const bad = (why: string): never => {
      throw new Error(
        `listing line ${i + 1}: ${why}; expected <epoch seconds><TAB><size bytes><TAB><name>, got ${JSON.stringify(line)}`,
      );
    };
    if (fields.length !== 3) bad(`${fields.length} tab-separated fields`);
    const [t, s, name] = fields;
    if (!INT.test(t) || t.length > 12 || Number(t) > MAX_EPOCH_SECONDS) bad(`bad epoch seconds ${JSON.stringify(t)}`);
    if (!INT.test(s) || s.length > 16 || !Number.isSafeInteger(Number(s))) bad(`bad size ${JSON.stringify(s)}`);
    if (name === '') bad('empty name');
    if (seen.has(name)) bad(`duplicate backup name ${JSON.stringify(name)}`);
    seen.add(name);
    entries.push({ name, time: Number(t), size: Number(s) });
  });
  return entries;
}

/** Formats entries in the listing format (in the given order). */
export function formatListing(entries: readonly BackupEntry[]): string {
  return entries.map((e) => `${e.time}\t${e.size}\t${e.name}\n`).join('');
}

/**
 * The CLI helper behind `backup-cronjobs retention plan --listing FILE …`:
 * parses a listing and plans it (print the result with `formatPlan`).
 * Deletes nothing.
 */
export function planFromListing(text: string, rules: RetentionRules | undefined, opts: PlanOptions): RetentionPlan {
  return planRetention(parseListing(text), rules, opts);
}

/** The timestamp written into backup names: `YYYY-MM-DDTHH:MM:SSZ` (UTC). */
export function formatBackupTimestamp(epochSeconds: number): string {
  return formatUtc(epochSeconds);
}

/** `<prefix><YYYY-MM-DDTHH:MM:SSZ><suffix>`, the name of a backup file or object. */
export function backupName(prefix: string, epochSeconds: number, suffix = ''): string {
  return `${prefix}${formatBackupTimestamp(epochSeconds)}${suffix}`;
}

/**
 * Epoch seconds of a UTC date and time, or undefined when it is no such time or before 1970 (the names'
 * timestamps: `parseBackupName` here, an engine's own names in its folder).
 */
export function civilToEpoch(y: number, mo: number, d: number, h: number, mi: number, s: number): number | undefined {
  if (y < 1970 || mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 59) return undefined;
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const dim = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1];
  if (d > dim) return undefined;
  return daysFromCivil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s;
}

/** What client-side encryption appends to an artifact's name (`spec.encryption`). */
export const ENCRYPTED_SUFFIX = '.age';

/**
 * The time of a backup named `<prefix><YYYY-MM-DDTHH:MM:SSZ><suffix>`, or
 * `…<suffix>.age` (encrypted: one retention covers a policy's backups from
 * before and after encryption was turned on or off), or undefined when the
 * name is not exactly that (other prefixes, `.partial` files, sidecars,
 * invalid dates, years before 1970 are not backups).
 */
export function parseBackupName(name: string, prefix: string, suffix = ''): number | undefined {
  const clear = name.endsWith(suffix + ENCRYPTED_SUFFIX) ? name.slice(0, -ENCRYPTED_SUFFIX.length) : name;
  if (clear.length !== prefix.length + 20 + suffix.length) return undefined;
  if (!clear.startsWith(prefix) || !clear.endsWith(suffix)) return undefined;
  const ts = name.slice(prefix.length, prefix.length + 20);
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})Z$/.exec(ts);
  if (!m) return undefined;
  const t = civilToEpoch(+m[1], +m[2], +m[3], +m[4], +m[5], +m[6]);
  return t !== undefined && t <= MAX_EPOCH_SECONDS ? t : undefined;
}

/** CLI flags of `backup-cronjobs retention plan` and the rule each sets. */
export const RETENTION_CLI_FLAGS: Readonly<Record<string, keyof RetentionRules>> = {
  'keep-last': 'keepLast',
  'max-age': 'maxAge',
  'max-total-size': 'maxTotalSize',
  hourly: 'hourly',
  daily: 'daily',
  weekly: 'weekly',
  monthly: 'monthly',
  yearly: 'yearly',
};

/**
 * Rules from CLI flag values (`{ 'keep-last': '3', 'max-age': '30d' }`):
 * counts are parsed as integers, durations and sizes kept as text. Unknown
 * flags throw; validate the result with `validateRetention` (or let
 * `planRetention` do it).
 */
export function retentionRulesFromFlags(flags: Readonly<Record<string, string | undefined>>): RetentionRules {
  const rules: Record<string, string | number> = {};
  for (const [flag, value] of Object.entries(flags)) {
    if (value === undefined) continue;
    const rule = RETENTION_CLI_FLAGS[flag];
    if (rule === undefined) {
      throw new Error(
        `unknown retention flag --${flag}; allowed: ${Object.keys(RETENTION_CLI_FLAGS)
          .map((f) => `--${f}`)
          .join(', ')}`,
      );
    }
    if (rule === 'maxAge' || rule === 'maxTotalSize') rules[rule] = value;
    else {
      if (!/^\d+$/.test(value)) throw new Error(`--${flag} must be a whole number, got ${JSON.stringify(value)}`);
      rules[rule] = Number(value);
    }
  }
  return rules;
}
