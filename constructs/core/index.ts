/**
 * What the cdk8s constructs and the Pulumi components share: where a policy
 * comes from (a document, an engine's flat props, a file), how problems reach
 * the props the user wrote, and the handles by target key. Imports neither
 * cdk8s nor Pulumi.
 */
import { readFileSync } from 'fs';
import {
  API_VERSION,
  KIND,
  PolicyError,
  engineProps,
  loadPolicies,
  objectKeys,
  withPropPaths,
} from '../../lib/internal';
import type { BackupPolicy, Manifest, PropsLayout, ResolvedPolicy, ScheduleEngineKey } from '../../lib/internal';

/** A policy document not validated yet. */
export interface PolicyLike {
  /** Its metadata, whose namespace a front end may fill in. @default - none yet */
  readonly metadata?: { readonly namespace?: unknown };
}

/** What a policy construct or component is made from: the props as the user wrote them, and how they become a policy. */
export interface PolicySource {
  /** The props (cdk8s) or args (Pulumi), with the front end's own values (a cdk8s `Duration`, a Pulumi `Output`). */
  readonly props: unknown;
  /** The policy document of the props, once the front end made their values plain (cdk8s) or marked them (Pulumi). */
  readonly toPolicy: (plain: unknown) => PolicyLike;
  /** Where the props land in the policy, so that problems name the prop the user wrote. @default - the props are a policy document */
  readonly layout?: PropsLayout;
  /** Dropped from the front of every backup CronJob key (a Vitess schedule's own name). @default - none */
  readonly backupKeyPrefix?: string;
}

/** A whole policy document without apiVersion and kind (`BackupPolicy`). */
export function documentSource(metadata: unknown, spec: unknown): PolicySource {
  return {
    props: { metadata, spec },
    toPolicy: (plain) => ({ apiVersion: API_VERSION, kind: KIND, ...(plain as object) }) as PolicyLike,
  };
}

/**
 * An engine's flat props (`RedisBackupSchedule`), mapped as the engine's
 * definition says; `name` is the construct id or component name (a Vitess
 * schedule's default name).
 */
export function scheduleSource(engine: ScheduleEngineKey, props: unknown, name: string): PolicySource {
  const definition = engineProps(engine);
  const scheduleName = (props as { readonly scheduleName?: unknown }).scheduleName;
  return {
    props,
    toPolicy: (plain) => definition.toPolicy(plain, name),
    layout: { engine, shape: definition.shape },
    backupKeyPrefix:
      definition.shape === 'schedule' ? `${typeof scheduleName === 'string' ? scheduleName : name}/` : undefined,
  };
}

/** `error` with its problems at the prop paths of `source`. */
export function atPropPaths(error: PolicyError, source: PolicySource): PolicyError {
  return source.layout ? withPropPaths(error, source.layout) : error;
}

/** The one BackupPolicy of a policy file (YAML or JSON); `what` names the caller in the error. */
export function readPolicyFile(path: string, what: string): BackupPolicy {
  const policies = loadPolicies(readFileSync(path, 'utf8'), path);
  if (policies.length !== 1)
    throw new Error(`${path}: holds ${policies.length} BackupPolicy documents; ${what} takes a file with exactly one`);
  return policies[0];
}

/** The CronJobs of a policy by target key, as a front end's objects (`items[i]` is the object of `manifests[i]`). */
export interface Handles<T> {
  /** Backup CronJobs: the shard, the node (etcd `cluster` mode: `cluster`), `<keyspace>/<shard>`. */
  readonly backups: ReadonlyMap<string, T>;
  /** Retention-prune CronJobs (with `retention.schedule`), by the key of the backups they prune. */
  readonly prunes: ReadonlyMap<string, T>;
  /** Restore-drill CronJobs (with `spec.drill`), by the key of the backups they drill. */
  readonly drills: ReadonlyMap<string, T>;
  /** The engine's extra CronJobs by role (its `extraCronJobs`), each by the key of the backups they go with. */
  readonly extras: ReadonlyMap<string, ReadonlyMap<string, T>>;
}

/** The handles of `resolved`'s CronJobs among a front end's objects. */
export function handles<T>(
  resolved: ResolvedPolicy,
  manifests: readonly Manifest[],
  items: readonly T[],
  backupKeyPrefix = '',
): Handles<T> {
  const keys = objectKeys(resolved);
  // each CronJob's item by name, made once: a lookup per key kept handles linear in the number of shards
  const cronJobs = new Map<string, T>();
  manifests.forEach((m, i) => {
    if (m.kind === 'CronJob' && !cronJobs.has(m.metadata.name)) cronJobs.set(m.metadata.name, items[i]);
  });
  const byKey = (names: ReadonlyMap<string, string>, prefix = '') =>
    new Map(
      [...names].map(([key, name]) => [key.startsWith(prefix) ? key.slice(prefix.length) : key, cronJobs.get(name)!]),
    );
  return {
    backups: byKey(keys.backups, backupKeyPrefix),
    prunes: byKey(keys.prunes),
    drills: byKey(keys.drills),
    extras: new Map([...keys.extras].map(([role, names]) => [role, byKey(names, backupKeyPrefix)])),
  };
}
