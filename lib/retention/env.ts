/**
 * The environment contract between the renderer and the retention functions
 * of `lib/scripts/retention.sh` (used by `lib/scripts/prune.sh` and by the
 * engines' backup scripts). This file is the one source of truth for these
 * names: the renderer must build the env with {@link retentionEnv} and
 * {@link retentionDestinationEnv}, never by hand.
 *
 * Each kind of destination is a {@link RetentionDestinationDefinition}: the
 * generic ones (`dir`, `s3`) here, an engine's own (Vitess: vtctld) in its
 * folder, which reaches the core through the registry.
 */

import {
  NormalizedRetentionRules,
  RetentionDestinationKind,
  RetentionRuleName,
  RetentionRuleSupport,
  RetentionRules,
  normalizeRetention,
  supportedRules,
  validateRetention,
} from './rules';
import type { Expansion } from '../kubernetes/expansion';

/** One container env var (the shape of a Kubernetes `EnvVar` with a value). */
export interface EnvVar {
  readonly name: string;
  readonly value: string;
}

/** A destination env var: a value, or one the kubelet expands (e.g. a name suffix with the node's name). */
export interface DestinationEnvVar {
  readonly name: string;
  readonly value: string | Expansion;
}

/** A name part: plain text, or text the kubelet expands in the container. */
export type RetentionDestinationName = string | Expansion;

const nameText = (name: RetentionDestinationName | undefined): string | undefined =>
  typeof name === 'object' ? name.expand : name;

/** Env var names read by retention.sh / prune.sh. */
export const RETENTION_ENV = {
  /** Positive integer; unset = rule not used. */
  keepLast: 'RETENTION_KEEP_LAST',
  /** Positive integer seconds. */
  maxAgeSeconds: 'RETENTION_MAX_AGE_SECONDS',
  /** Positive integer bytes. */
  maxTotalBytes: 'RETENTION_MAX_TOTAL_BYTES',
  hourly: 'RETENTION_HOURLY',
  daily: 'RETENTION_DAILY',
  weekly: 'RETENTION_WEEKLY',
  monthly: 'RETENTION_MONTHLY',
  yearly: 'RETENTION_YEARLY',
  /** IANA zone of the bucket rules; default UTC. */
  timeZone: 'RETENTION_TIME_ZONE',
  /** `true` prints the plan and deletes nothing; default `false`. */
  dryRun: 'RETENTION_DRY_RUN',
  /** Test hook: epoch seconds used as "now". Never set by the renderer. */
  now: 'RETENTION_NOW',
  /** The destination's kind: `dir`, `s3` or an engine's own (its `RetentionDestinationDefinition`). */
  destKind: 'BACKUP_DEST_KIND',
  /** dir: the directory holding the backups. */
  dir: 'BACKUP_DIR',
  /** dir, s3: the name prefix (required, non-empty, no `/`). */
  namePrefix: 'BACKUP_NAME_PREFIX',
  /** dir, s3: the name suffix after the timestamp (e.g. `.rdb.gz`). */
  nameSuffix: 'BACKUP_NAME_SUFFIX',
  /** dir, s3: space-separated suffixes of sidecar files deleted with a backup (e.g. `.json`). */
  sidecarSuffixes: 'BACKUP_SIDECAR_SUFFIXES',
  /** s3 */
  s3Bucket: 'S3_BUCKET',
  /** s3: key prefix before the name prefix (e.g. `prod/redis/`), may be empty. */
  s3Prefix: 'S3_PREFIX',
  /** s3: custom endpoint URL (MinIO etc.). */
  s3Endpoint: 'S3_ENDPOINT',
  /** s3: `true` forces path-style addressing. */
  s3ForcePathStyle: 'S3_FORCE_PATH_STYLE',
  /** s3: `GOVERNANCE` | `COMPLIANCE`: every object a run writes is locked (S3 Object Lock). */
  s3ObjectLockMode: 'S3_OBJECT_LOCK_MODE',
  /** s3: seconds each object stays locked after its upload (with S3_OBJECT_LOCK_MODE). */
  s3ObjectLockSeconds: 'S3_OBJECT_LOCK_SECONDS',
} as const;

const byName = (a: { readonly name: string }, b: { readonly name: string }): number =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : 0;

/**
 * Env for the retention rules, sorted by name, only the rules that are set,
 * durations in seconds and sizes in bytes. Throws on invalid rules.
 */
export function retentionEnv(rules: RetentionRules | undefined, timeZone: string, dryRun: boolean): EnvVar[] {
  const n: NormalizedRetentionRules = normalizeRetention(rules);
  const env: EnvVar[] = [];
  const add = (name: string, value: number | undefined): void => {
    if (value !== undefined) env.push({ name, value: String(value) });
  };
  add(RETENTION_ENV.keepLast, n.keepLast);
  add(RETENTION_ENV.maxAgeSeconds, n.maxAgeSeconds);
  add(RETENTION_ENV.maxTotalBytes, n.maxTotalBytes);
  add(RETENTION_ENV.hourly, n.hourly);
  add(RETENTION_ENV.daily, n.daily);
  add(RETENTION_ENV.weekly, n.weekly);
  add(RETENTION_ENV.monthly, n.monthly);
  add(RETENTION_ENV.yearly, n.yearly);
  env.push({ name: RETENTION_ENV.timeZone, value: timeZone });
  env.push({ name: RETENTION_ENV.dryRun, value: dryRun ? 'true' : 'false' });
  return env.sort(byName);
}

/** Where the backups to prune live, at a generic destination. */
export type RetentionDestination =
  | {
      readonly kind: 'dir';
      /** Directory inside the container (a PVC or hostPath mount). */
      readonly dir: string;
      readonly namePrefix: string;
      readonly nameSuffix?: RetentionDestinationName;
      readonly sidecarSuffixes?: readonly string[];
    }
  | {
      readonly kind: 's3';
      readonly bucket: string;
      /** Key prefix before the name prefix, e.g. `prod/redis/`. */
      readonly prefix?: string;
      readonly namePrefix: string;
      readonly nameSuffix?: RetentionDestinationName;
      readonly endpoint?: string;
      readonly forcePathStyle?: boolean;
      readonly sidecarSuffixes?: readonly string[];
      /** Every object is locked for `seconds` after its upload: retention plans around it. @default - none */
      readonly objectLock?: { readonly mode: string; readonly seconds: number };
    };

/** Records a required field of a destination that is missing (`path.field: required`). */
export type RequireField = (field: string, value: string | undefined) => void;
/** Adds one env var of a destination; an undefined or empty value adds nothing. */
export type AddEnv = (name: string, value: string | Expansion | undefined) => void;

/**
 * One kind of retention destination, a table entry: its kind name, the env its script reads, the rules it
 * cannot apply and the script that lists and deletes its backups. The generic kinds are
 * {@link GENERIC_RETENTION_DESTINATIONS}; an engine gives its own through the registry
 * (`EngineDefinition.retentionDestinations`).
 */
export interface RetentionDestinationDefinition<
  Dest extends { readonly kind: string } = { readonly kind: string },
> extends RetentionRuleSupport {
  /** `BACKUP_DEST_KIND`'s value. */
  readonly kind: Dest['kind'];
  /**
   * The module joined with retention.sh that defines `_rt_check_dest`, `retention_destination`,
   * `retention_list` and `retention_delete` for it: `retention-<kind>.sh` (the workload builder chooses the
   * module from the container's `BACKUP_DEST_KIND`), among the shared scripts or the engine's own.
   */
  readonly script: string;
  /** The env names its script reads besides the rules' and `BACKUP_DEST_KIND`, by field. */
  readonly envNames: Readonly<Record<string, string>>;
  readonly unsupported: Readonly<Partial<Record<RetentionRuleName, string>>>;
  /** Its checks of a destination (messages name `path.field`). */
  check(dest: Dest, path: string, req: RequireField, errors: string[]): void;
  /** Its env, besides `BACKUP_DEST_KIND`. */
  env(dest: Dest, add: AddEnv): void;
}

type DestinationOf<K extends RetentionDestinationKind> = Extract<RetentionDestination, { readonly kind: K }>;

/** The checks of a destination that names its backups (`dir`, `s3`), before the field that says where. */
function namedChecks(dest: DestinationOf<'dir' | 's3'>, path: string, req: RequireField, errors: string[]): void {
  req('namePrefix', dest.namePrefix);
  if (/[/\t\n]/.test(dest.namePrefix ?? '')) {
    errors.push(`${path}.namePrefix: must not contain "/", tab or newline, got ${JSON.stringify(dest.namePrefix)}`);
  }
  if (/[/\t\n]/.test(nameText(dest.nameSuffix) ?? '')) {
    errors.push(`${path}.nameSuffix: must not contain "/", tab or newline, got ${JSON.stringify(dest.nameSuffix)}`);
  }
  (dest.sidecarSuffixes ?? []).forEach((s, i) => {
    if (s === '' || /[\s/*?[]/.test(s)) {
      errors.push(
        `${path}.sidecarSuffixes[${i}]: must be non-empty without spaces, "/", "*", "?" or "[", got ${JSON.stringify(s)}`,
      );
    }
  });
}

/** The generic destinations, which every engine may use: a directory and S3. */
export const GENERIC_RETENTION_DESTINATIONS: {
  readonly [K in RetentionDestinationKind]: RetentionDestinationDefinition<DestinationOf<K>>;
} = {
  dir: {
    kind: 'dir',
    script: 'retention-dir.sh',
    envNames: {
      dir: RETENTION_ENV.dir,
      namePrefix: RETENTION_ENV.namePrefix,
      nameSuffix: RETENTION_ENV.nameSuffix,
      sidecarSuffixes: RETENTION_ENV.sidecarSuffixes,
    },
    unsupported: {},
    check: (dest, path, req, errors) => {
      namedChecks(dest, path, req, errors);
      req('dir', dest.dir);
    },
    env: (dest, add) => {
      add(RETENTION_ENV.dir, dest.dir);
      add(RETENTION_ENV.namePrefix, dest.namePrefix);
      add(RETENTION_ENV.nameSuffix, dest.nameSuffix);
      add(RETENTION_ENV.sidecarSuffixes, (dest.sidecarSuffixes ?? []).join(' '));
    },
  },
  s3: {
    kind: 's3',
    script: 'retention-s3.sh',
    envNames: {
      bucket: RETENTION_ENV.s3Bucket,
      prefix: RETENTION_ENV.s3Prefix,
      namePrefix: RETENTION_ENV.namePrefix,
      nameSuffix: RETENTION_ENV.nameSuffix,
      sidecarSuffixes: RETENTION_ENV.sidecarSuffixes,
      endpoint: RETENTION_ENV.s3Endpoint,
      forcePathStyle: RETENTION_ENV.s3ForcePathStyle,
      objectLockMode: RETENTION_ENV.s3ObjectLockMode,
      objectLockSeconds: RETENTION_ENV.s3ObjectLockSeconds,
    },
    unsupported: {},
    check: (dest, path, req, errors) => {
      namedChecks(dest, path, req, errors);
      req('bucket', dest.bucket);
    },
    env: (dest, add) => {
      add(RETENTION_ENV.s3Bucket, dest.bucket);
      add(RETENTION_ENV.s3Prefix, dest.prefix);
      add(RETENTION_ENV.namePrefix, dest.namePrefix);
      add(RETENTION_ENV.nameSuffix, dest.nameSuffix);
      add(RETENTION_ENV.sidecarSuffixes, (dest.sidecarSuffixes ?? []).join(' '));
      add(RETENTION_ENV.s3Endpoint, dest.endpoint);
      if (dest.forcePathStyle) add(RETENTION_ENV.s3ForcePathStyle, 'true');
      if (dest.objectLock) {
        add(RETENTION_ENV.s3ObjectLockMode, dest.objectLock.mode);
        add(RETENTION_ENV.s3ObjectLockSeconds, String(dest.objectLock.seconds));
      }
    },
  },
};

/** The definition of a destination: the given one (an engine's own kind) or its generic kind's. */
function definitionOf(
  dest: { readonly kind: string },
  definition?: RetentionDestinationDefinition,
): RetentionDestinationDefinition {
  const found =
    definition ??
    (Object.prototype.hasOwnProperty.call(GENERIC_RETENTION_DESTINATIONS, dest.kind)
      ? GENERIC_RETENTION_DESTINATIONS[dest.kind as RetentionDestinationKind]
      : undefined);
  if (found === undefined || found.kind !== dest.kind) {
    throw new Error(
      `a retention destination of kind ${JSON.stringify(dest.kind)} needs ${found === undefined ? 'its definition' : `a definition of that kind, got one of ${JSON.stringify(found.kind)}`} (a bug)`,
    );
  }
  return found;
}

/**
 * Problems with a destination (messages name `path.field`): a generic one, or an engine's own with its
 * definition.
 */
export function validateRetentionDestination(dest: RetentionDestination, path: string): string[];
export function validateRetentionDestination<Dest extends { readonly kind: string }>(
  dest: Dest,
  path: string,
  definition: RetentionDestinationDefinition<Dest>,
): string[];
export function validateRetentionDestination(
  dest: { readonly kind: string },
  path: string,
  definition?: RetentionDestinationDefinition,
): string[] {
  const errors: string[] = [];
  const req: RequireField = (field, value) => {
    if (typeof value !== 'string' || value === '')
      errors.push(`${path}.${field}: required, got ${JSON.stringify(value)}`);
  };
  definitionOf(dest, definition).check(dest, path, req, errors);
  return errors;
}

/**
 * Env describing the destination, sorted by name: a generic one, or an engine's own with its definition.
 * Throws on an invalid destination.
 */
export function retentionDestinationEnv(dest: RetentionDestination): DestinationEnvVar[];
export function retentionDestinationEnv<Dest extends { readonly kind: string }>(
  dest: Dest,
  definition: RetentionDestinationDefinition<Dest>,
): DestinationEnvVar[];
export function retentionDestinationEnv(
  dest: { readonly kind: string },
  definition?: RetentionDestinationDefinition,
): DestinationEnvVar[] {
  const def = definitionOf(dest, definition);
  const errors = validateRetentionDestination(dest, 'destination', def);
  if (errors.length > 0) throw new Error(errors.join('\n'));
  const env: DestinationEnvVar[] = [{ name: RETENTION_ENV.destKind, value: dest.kind }];
  const add: AddEnv = (name, value) => {
    if (value !== undefined && value !== '') env.push({ name, value });
  };
  def.env(dest, add);
  return env.sort(byName);
}

/** A generic kind's rule support, or the given destination's. */
const supportOf = (destination: RetentionDestinationKind | RetentionRuleSupport): RetentionRuleSupport =>
  typeof destination === 'string' ? GENERIC_RETENTION_DESTINATIONS[destination] : destination;

/** Which rules a destination supports: a generic kind (`dir`, `s3`: every rule) or a definition. */
export function supportedRetentionRules(
  destination: RetentionDestinationKind | RetentionRuleSupport,
): readonly RetentionRuleName[] {
  return supportedRules(supportOf(destination));
}

/** Validates rules against what the destination supports (e.g. no maxTotalSize where the listing has no sizes). */
export function validateRetentionFor(
  rules: unknown,
  destination: RetentionDestinationKind | RetentionRuleSupport,
  path: string,
): string[] {
  return validateRetention(rules, path, { destination: supportOf(destination) });
}
