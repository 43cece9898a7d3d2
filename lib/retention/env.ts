/**
 * The environment contract between the renderer and the retention functions
 * of `lib/scripts/retention.sh` (used by `lib/scripts/prune.sh` and by the
 * engines' backup scripts). This file is the one source of truth for these
 * names: the renderer must build the env with {@link retentionEnv} and
 * {@link retentionDestinationEnv}, never by hand.
 */

import {
  NormalizedRetentionRules,
  RetentionDestinationKind,
  RetentionRules,
  normalizeRetention,
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
  /** `dir` | `s3` | `vitess`. */
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
  /** vitess: vtctld gRPC address host:port. */
  vtctldServer: 'VTCTLD_SERVER',
  vitessKeyspace: 'VITESS_KEYSPACE',
  vitessShard: 'VITESS_SHARD',
  /**
   * vitess: `true` when the shard takes incremental backups: the rules count its full (vtbackup)
   * backups, and each full one is deleted together with the incremental backups that follow it.
   */
  vitessIncrementalChains: 'VITESS_INCREMENTAL_CHAINS',
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

/** Where the backups to prune live. */
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
    }
  | {
      readonly kind: 'vitess';
      readonly server: string;
      readonly keyspace: string;
      readonly shard: string;
      /** The shard takes incremental backups (VITESS_INCREMENTAL_CHAINS). @default false */
      readonly incrementalChains?: boolean;
    };

type DestinationOf<K extends RetentionDestinationKind> = Extract<RetentionDestination, { readonly kind: K }>;
type Require = (field: string, value: string | undefined) => void;

/** The checks of a destination that names its backups (`dir`, `s3`), before the field that says where. */
function namedChecks(dest: DestinationOf<'dir' | 's3'>, path: string, req: Require, errors: string[]): void {
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

/** Each kind's checks (messages name `path.field`). */
const DESTINATION_CHECKS: {
  readonly [K in RetentionDestinationKind]: (
    dest: DestinationOf<K>,
    path: string,
    req: Require,
    errors: string[],
  ) => void;
} = {
  dir: (dest, path, req, errors) => {
    namedChecks(dest, path, req, errors);
    req('dir', dest.dir);
  },
  s3: (dest, path, req, errors) => {
    namedChecks(dest, path, req, errors);
    req('bucket', dest.bucket);
  },
  vitess: (dest, _path, req) => {
    req('server', dest.server);
    req('keyspace', dest.keyspace);
    req('shard', dest.shard);
  },
};

/** Problems with a destination (messages name `path.field`). */
export function validateRetentionDestination(dest: RetentionDestination, path: string): string[] {
  const errors: string[] = [];
  const req: Require = (field, value) => {
    if (typeof value !== 'string' || value === '')
      errors.push(`${path}.${field}: required, got ${JSON.stringify(value)}`);
  };
  (DESTINATION_CHECKS[dest.kind] as (d: RetentionDestination, path: string, req: Require, errors: string[]) => void)(
    dest,
    path,
    req,
    errors,
  );
  return errors;
}

type Add = (name: string, value: string | Expansion | undefined) => void;

/** Each kind's env, besides BACKUP_DEST_KIND. */
const DESTINATION_ENV: { readonly [K in RetentionDestinationKind]: (dest: DestinationOf<K>, add: Add) => void } = {
  dir: (dest, add) => {
    add(RETENTION_ENV.dir, dest.dir);
    add(RETENTION_ENV.namePrefix, dest.namePrefix);
    add(RETENTION_ENV.nameSuffix, dest.nameSuffix);
    add(RETENTION_ENV.sidecarSuffixes, (dest.sidecarSuffixes ?? []).join(' '));
  },
  s3: (dest, add) => {
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
  vitess: (dest, add) => {
    add(RETENTION_ENV.vtctldServer, dest.server);
    add(RETENTION_ENV.vitessKeyspace, dest.keyspace);
    add(RETENTION_ENV.vitessShard, dest.shard);
    if (dest.incrementalChains) add(RETENTION_ENV.vitessIncrementalChains, 'true');
  },
};

/** Env describing the destination, sorted by name. Throws on an invalid destination. */
export function retentionDestinationEnv(dest: RetentionDestination): DestinationEnvVar[] {
  const errors = validateRetentionDestination(dest, 'destination');
  if (errors.length > 0) throw new Error(errors.join('\n'));
  const env: DestinationEnvVar[] = [{ name: RETENTION_ENV.destKind, value: dest.kind }];
  const add: Add = (name, value) => {
    if (value !== undefined && value !== '') env.push({ name, value });
  };
  (DESTINATION_ENV[dest.kind] as (d: RetentionDestination, add: Add) => void)(dest, add);
  return env.sort(byName);
}

/** Validates rules against what the destination supports (e.g. no maxTotalSize for vitess). */
export function validateRetentionFor(rules: unknown, kind: RetentionDestinationKind, path: string): string[] {
  return validateRetention(rules, path, { destination: kind });
}
