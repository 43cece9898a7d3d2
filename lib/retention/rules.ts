/**
 * Retention rules: the policy-facing model, its validation and the
 * conversions (durations to seconds, sizes to bytes, with the policy's one
 * grammar of each in `lib/units`) shared by the TypeScript reference planner
 * and the container scripts' environment.
 */
import { DURATION_PATTERN, SIZE_PATTERN, durationProblem, parseDuration, parseSize, sizeProblem } from '../units';

/**
 * Which backups a policy keeps. Every rule is optional: an unset rule is not
 * used. A backup is kept when ANY rule keeps it, and the newest backup is
 * always kept (it is the one just verified). With no rule set at all, every
 * backup is kept and nothing is ever deleted.
 *
 * Only backups created by this policy and target are ever considered: the
 * listing matches the exact name pattern `<prefix><timestamp><suffix>`;
 * partial, temporary or foreign files never count.
 */
export interface RetentionRules {
  /**
   * Keep the newest N backups (integer ≥ 1).
   * @default undefined (rule not used)
   */
  readonly keepLast?: number;
  /**
   * Keep every backup whose age (`now - time`) is at most this duration
   * (longer than 0): `30d`, `12h`, `2w`, `1d12h`; units w, d (24 h), h, m, s,
   * largest first. Months and years are rejected (their length varies): use days.
   * @default undefined (rule not used)
   */
  readonly maxAge?: string;
  /**
   * Keep the longest run of newest backups whose cumulative size is at most
   * this size: a number with a binary (`Ki`, `Mi`, `Gi`, `Ti`, `Pi`, `Ei`) or
   * decimal (`k`, `M`, `G`, `T`, `P`, `E`) unit, as in Kubernetes quantities. Once the budget is exceeded every older backup is outside the
   * rule, even a small one (prefix semantics); the newest backup is kept even
   * when it alone exceeds the budget (it is never "wipe everything").
   * Not supported for Vitess destinations (sizes are not listed there).
   * @default undefined (rule not used)
   */
  readonly maxTotalSize?: string;
  /**
   * Keep the newest backup of each of the last N hours (in the policy's time
   * zone) that have a backup.
   * @default undefined (rule not used)
   */
  readonly hourly?: number;
  /**
   * Keep the newest backup of each of the last N calendar days (policy time
   * zone) that have a backup.
   * @default undefined (rule not used)
   */
  readonly daily?: number;
  /**
   * Keep the newest backup of each of the last N ISO-8601 weeks (Monday to
   * Sunday, week-numbering year, policy time zone) that have a backup.
   * @default undefined (rule not used)
   */
  readonly weekly?: number;
  /**
   * Keep the newest backup of each of the last N calendar months (policy
   * time zone) that have a backup.
   * @default undefined (rule not used)
   */
  readonly monthly?: number;
  /**
   * Keep the newest backup of each of the last N calendar years (policy time
   * zone) that have a backup.
   * @default undefined (rule not used)
   */
  readonly yearly?: number;
}

/** The name of one retention rule. */
export type RetentionRuleName = keyof RetentionRules;

/** The bucket (grandfather-father-son) rules, in the order they are reported. */
export const BUCKET_RULES = ['hourly', 'daily', 'weekly', 'monthly', 'yearly'] as const;
export type BucketRuleName = (typeof BUCKET_RULES)[number];

/** Every rule, in the order they are reported in a plan. */
export const RETENTION_RULE_NAMES: readonly RetentionRuleName[] = [
  'keepLast',
  'maxAge',
  'maxTotalSize',
  ...BUCKET_RULES,
];

const COUNT_RULES = ['keepLast', ...BUCKET_RULES] as const;

/** Largest count accepted for keepLast and the bucket rules. */
export const MAX_RETENTION_COUNT = 100_000;

/**
 * Rules with durations and sizes converted to integers: what the planner
 * uses and what the scripts receive through their environment.
 */
export interface NormalizedRetentionRules {
  readonly keepLast?: number;
  readonly maxAgeSeconds?: number;
  readonly maxTotalBytes?: number;
  readonly hourly?: number;
  readonly daily?: number;
  readonly weekly?: number;
  readonly monthly?: number;
  readonly yearly?: number;
}

/**
 * The generic destinations a retention plan can be applied to: a directory and S3. An engine whose
 * backups live elsewhere gives its own kind (Vitess: vtctld) as a `RetentionDestinationDefinition`
 * through the registry.
 */
export type RetentionDestinationKind = 'dir' | 's3';

/** What a destination says of the rules: its kind and the rules it cannot apply. */
export interface RetentionRuleSupport {
  /** Its kind (`BACKUP_DEST_KIND`), as messages name it. */
  readonly kind: string;
  /** The rules it cannot apply, each with why (`maxTotalSize` where the listing has no sizes). */
  readonly unsupported: Readonly<Partial<Record<RetentionRuleName, string>>>;
}

const ALL_RULES: readonly RetentionRuleName[] = RETENTION_RULE_NAMES;

/** Which rules a destination supports (every rule but its `unsupported` ones). */
export function supportedRules(destination: RetentionRuleSupport): readonly RetentionRuleName[] {
  return ALL_RULES.filter((r) => destination.unsupported[r] === undefined);
}

/** Options of {@link validateRetention}. */
export interface ValidateRetentionOptions {
  /** When given, rules the destination cannot apply are errors. */
  readonly destination?: RetentionRuleSupport;
}

/** Takes one problem of the rules: the rule it is about (undefined for the rules as a whole) and the message. */
export type ReportRetentionProblem = (rule: string | undefined, message: string) => void;

/**
 * Checks retention rules read from a policy (or given as props): each problem goes to `report` with the
 * rule it is about (the caller puts it under its own path) and a message naming the value received and
 * what is allowed.
 */
export function checkRetentionRules(
  rules: unknown,
  report: ReportRetentionProblem,
  opts: ValidateRetentionOptions = {},
): void {
  if (rules === undefined || rules === null) return;
  if (typeof rules !== 'object' || Array.isArray(rules)) {
    report(undefined, `must be an object with the rules ${ALL_RULES.join(', ')}, got ${describe(rules)}`);
    return;
  }
  const r = rules as Record<string, unknown>;
  for (const key of Object.keys(r).sort()) {
    if (!(ALL_RULES as readonly string[]).includes(key)) {
      report(key, `unknown retention rule (value ${describe(r[key])}); allowed: ${ALL_RULES.join(', ')}`);
    }
  }
  for (const key of RETENTION_RULE_NAMES) {
    const value = r[key];
    if (value === undefined) continue;
    if ((COUNT_RULES as readonly string[]).includes(key)) {
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_RETENTION_COUNT) {
        report(
          key,
          `must be an integer from 1 to ${MAX_RETENTION_COUNT} (leave it unset to not use the rule), got ${describe(value)}`,
        );
      }
    } else if (key === 'maxAge') {
      const problem = durationProblem(value);
      if (problem) report(key, `received ${describe(value)}; ${problem}`);
      else if (parseDuration(value as string) === 0) report(key, `received ${describe(value)}; must be longer than 0s`);
    } else if (key === 'maxTotalSize') {
      const problem = sizeProblem(value);
      if (problem) report(key, `received ${describe(value)}; ${problem}`);
    }
    const why = opts.destination?.unsupported[key];
    if (opts.destination !== undefined && why !== undefined) {
      report(
        key,
        `not supported for ${opts.destination.kind} destinations (${why}); supported there: ${supportedRules(opts.destination).join(', ')}`,
      );
    }
  }
}

/**
 * The problems of retention rules as lines of text (the CLI's flags and `normalizeRetention`): one per
 * problem, each naming `path.field`; an empty list means valid. Policy checks use `checkRetentionRules`.
 */
export function validateRetention(rules: unknown, path: string, opts: ValidateRetentionOptions = {}): string[] {
  const errors: string[] = [];
  checkRetentionRules(
    rules,
    (rule, message) => errors.push(`${rule === undefined ? path : `${path}.${rule}`}: ${message}`),
    opts,
  );
  return errors;
}

/** True when at least one rule is set (otherwise everything is kept). */
export function hasRetentionRules(rules: RetentionRules | undefined): boolean {
  return rules !== undefined && RETENTION_RULE_NAMES.some((k) => rules[k] !== undefined);
}

/** Validates and converts rules; throws one Error listing every problem. */
export function normalizeRetention(rules: RetentionRules | undefined, path = 'retention'): NormalizedRetentionRules {
  const errors = validateRetention(rules, path);
  if (errors.length > 0) throw new Error(errors.join('\n'));
  const r = rules ?? {};
  return {
    ...(r.keepLast !== undefined ? { keepLast: r.keepLast } : {}),
    ...(r.maxAge !== undefined ? { maxAgeSeconds: parseDuration(r.maxAge) } : {}),
    ...(r.maxTotalSize !== undefined ? { maxTotalBytes: parseSize(r.maxTotalSize) } : {}),
    ...(r.hourly !== undefined ? { hourly: r.hourly } : {}),
    ...(r.daily !== undefined ? { daily: r.daily } : {}),
    ...(r.weekly !== undefined ? { weekly: r.weekly } : {}),
    ...(r.monthly !== undefined ? { monthly: r.monthly } : {}),
    ...(r.yearly !== undefined ? { yearly: r.yearly } : {}),
  };
}

/** A JSON Schema fragment for {@link RetentionRules} (draft 2020-12 / ajv). */
export const RETENTION_JSON_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  description:
    'Which backups to keep. A backup is kept if any rule keeps it; the newest is always kept; no rule set keeps everything.',
  properties: {
    keepLast: { type: 'integer', minimum: 1, maximum: MAX_RETENTION_COUNT, description: 'Keep the newest N backups.' },
    maxAge: {
      type: 'string',
      pattern: DURATION_PATTERN,
      description: 'Keep backups at most this old, e.g. 30d or 1d12h (units w d h m s, largest first).',
    },
    maxTotalSize: {
      type: 'string',
      pattern: SIZE_PATTERN,
      description: 'Keep the newest backups whose total size fits this budget, e.g. 10Gi or 500M.',
    },
    hourly: {
      type: 'integer',
      minimum: 1,
      maximum: MAX_RETENTION_COUNT,
      description: 'Newest backup of each of the last N hours with a backup.',
    },
    daily: {
      type: 'integer',
      minimum: 1,
      maximum: MAX_RETENTION_COUNT,
      description: 'Newest backup of each of the last N days with a backup.',
    },
    weekly: {
      type: 'integer',
      minimum: 1,
      maximum: MAX_RETENTION_COUNT,
      description: 'Newest backup of each of the last N ISO weeks with a backup.',
    },
    monthly: {
      type: 'integer',
      minimum: 1,
      maximum: MAX_RETENTION_COUNT,
      description: 'Newest backup of each of the last N months with a backup.',
    },
    yearly: {
      type: 'integer',
      minimum: 1,
      maximum: MAX_RETENTION_COUNT,
      description: 'Newest backup of each of the last N years with a backup.',
    },
  },
} as const;

/** Short description of a received value for error messages. */
export function describe(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  try {
    const s = JSON.stringify(value);
    return s.length > 80 ? `${s.slice(0, 77)}...` : s;
  } catch {
    return typeof value;
  }
}
