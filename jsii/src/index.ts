/**
 * The cdk8s constructs of `backup-cronjobs` for Python, Java and Go (jsii): the constructs of
 * `backup-cronjobs/cdk8s`, with the same names and props, rendering through the same core (bundled), so the
 * same props give the same bytes in every language.
 *
 * Each construct holds the core's construct as its child `Default` and hands out what it rendered. What jsii
 * cannot compile is given in the nearest form it can: the `ReadonlyMap`s of CronJobs as string-keyed objects,
 * readonly arrays as arrays; `manifests` (plain objects) is left out.
 *
 * @packageDocumentation
 */
import { readFileSync } from 'fs';
import { join } from 'path';
import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import type {
  BackupPolicyProps,
  EtcdBackupScheduleProps,
  RedisBackupScheduleProps,
  VitessBackupScheduleProps,
} from './props.generated';

export * from './props.generated';

/** The core's construct, as this module uses it (the bundled `backup-cronjobs/cdk8s`). */
interface CoreConstruct extends Construct {
  readonly namespace: string;
  readonly apiObjects: readonly ApiObject[];
  readonly cronJobs: readonly ApiObject[];
  readonly backupCronJobs: ReadonlyMap<string, ApiObject>;
  readonly pruneCronJobs: ReadonlyMap<string, ApiObject>;
  readonly drillCronJobs: ReadonlyMap<string, ApiObject>;
  readonly extraCronJobs: ReadonlyMap<string, ReadonlyMap<string, ApiObject>>;
  readonly prometheusRule?: ApiObject;
  cronJob(key?: string): ApiObject;
  pruneCronJob(key?: string): ApiObject;
  drillCronJob(key?: string): ApiObject;
  extraCronJob(role: string, key?: string): ApiObject;
}

type CoreClass = new (scope: Construct, id: string, props: unknown) => CoreConstruct;

/** The core's classes, loaded from the bundled package (not re-exported: jsii compiles only this module's classes). */
interface CoreModule {
  readonly BackupPolicy: CoreClass & { fromFile(scope: Construct, id: string, path: string): CoreConstruct };
  readonly VitessBackupSchedule: CoreClass;
  readonly RedisBackupSchedule: CoreClass;
  readonly EtcdBackupSchedule: CoreClass;
}

// eslint-disable-next-line @typescript-eslint/no-require-imports
const core = require('backup-cronjobs/cdk8s') as CoreModule;

/** What this module uses of the core's public API (the bundled `backup-cronjobs`). */
interface CorePublic {
  /** Formats a path's segments as the core formats every problem's path. */
  formatPath(segments: readonly (string | number)[]): string;
}

// eslint-disable-next-line @typescript-eslint/no-require-imports
const corePublic = require('backup-cronjobs') as CorePublic;

/** The id of the core's construct under each construct of this module. */
const INNER_ID = 'Default';

/** A problem of a policy, as the core's PolicyError lists it. */
interface Issue {
  readonly path: string;
  /** The path as keys and indexes. */
  readonly segments: readonly (string | number)[];
  readonly message: string;
  /** The message's text and the prop paths of the other fields it names. */
  readonly parts?: readonly (string | readonly (string | number)[])[];
}

/** The core's PolicyError, recognized by shape (its class is the bundled core's). */
interface PolicyErrorLike extends Error {
  readonly issues: readonly Issue[];
  readonly source?: string;
}

function isPolicyError(e: unknown): e is PolicyErrorLike {
  return e instanceof Error && e.name === 'PolicyError' && Array.isArray((e as PolicyErrorLike).issues);
}

/** A type of the jsii assembly (.jsii), as far as the prop paths need it. */
interface AssemblyType {
  readonly kind: string;
  readonly properties?: readonly { readonly name: string; readonly type: TypeReference }[];
}

interface TypeReference {
  readonly fqn?: string;
  readonly collection?: { readonly kind: 'array' | 'map'; readonly elementtype: TypeReference };
  readonly union?: { readonly types: readonly TypeReference[] };
}

let assemblyTypes: Record<string, AssemblyType> | undefined;

/** This module's assembly (.jsii next to lib/): the props structs, to find which path segments are props. */
function types(): Record<string, AssemblyType> {
  if (assemblyTypes === undefined) {
    try {
      const assembly = JSON.parse(readFileSync(join(__dirname, '..', '.jsii'), 'utf8')) as {
        readonly types?: Record<string, AssemblyType>;
      };
      assemblyTypes = assembly.types ?? {};
    } catch {
      assemblyTypes = {};
    }
  }
  return assemblyTypes;
}

function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

function pascalCase(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}

/**
 * How the host language spells a prop, by JSII_AGENT (which the jsii runtime sets: `Python/3.12.3`,
 * `go1.26.8/linux/amd64`): snake_case in Python, PascalCase in Go (its struct fields); Java's builders keep
 * TypeScript's camelCase.
 */
function hostSpelling(): ((name: string) => string) | undefined {
  const agent = process.env.JSII_AGENT ?? '';
  if (agent.startsWith('Python/')) return snakeCase;
  if (/^go\d/.test(agent)) return pascalCase;
  return undefined;
}

/** The structs a type reference can hold (through arrays, maps and unions), with whether a map comes first. */
function structsOf(ref: TypeReference | undefined): { readonly fqns: string[]; readonly map: boolean } {
  if (ref === undefined) return { fqns: [], map: false };
  if (ref.collection !== undefined) {
    const inner = structsOf(ref.collection.elementtype);
    return { fqns: inner.fqns, map: ref.collection.kind === 'map' };
  }
  if (ref.union !== undefined) return { fqns: ref.union.types.flatMap((t) => structsOf(t).fqns), map: false };
  return { fqns: ref.fqn !== undefined && types()[ref.fqn]?.kind === 'interface' ? [ref.fqn] : [], map: false };
}

/**
 * A prop path's segments (`['sentinel', 'passwordSecret', 'name']`) in the spelling of the host language:
 * snake_case in Python (`sentinel.password_secret.name`), PascalCase in Go (`Sentinel.PasswordSecret.Name`),
 * as written elsewhere. Only the props of the structs are respelled: map keys (`labels.appName`) and indexes stay.
 */
function hostSegments(
  segments: readonly (string | number)[],
  propsFqn: string,
  spell: (name: string) => string,
): (string | number)[] {
  let structs: string[] = [propsFqn];
  let mapKeyNext = false;
  return segments.map((segment) => {
    if (typeof segment === 'number' || mapKeyNext) {
      // an index, or a map's key: the same structs go on (an array's, a map's elements)
      mapKeyNext = false;
      return segment;
    }
    const prop = structs
      .map((fqn) => types()[fqn]?.properties?.find((p) => p.name === segment))
      .find((p) => p !== undefined);
    if (prop === undefined) {
      structs = [];
      return segment;
    }
    const next = structsOf(prop.type);
    structs = next.fqns;
    mapKeyNext = next.map;
    return spell(segment);
  });
}

/**
 * An issue at its prop path in the host language's spelling, and the props its message names spelled so too (a
 * problem of the props as a whole keeps its path).
 */
function inHostSpelling(issue: Issue, propsFqn: string | undefined): Issue {
  const spell = hostSpelling();
  if (propsFqn === undefined || spell === undefined) return issue;
  const respell = (segments: readonly (string | number)[]) => hostSegments(segments, propsFqn, spell);
  const parts = issue.parts?.map((part) => (typeof part === 'string' ? part : respell(part)));
  const message =
    parts === undefined
      ? issue.message
      : parts.map((part) => (typeof part === 'string' ? part : corePublic.formatPath(part))).join('');
  const segments = issue.segments.length === 0 ? issue.segments : respell(issue.segments);
  const path = issue.segments.length === 0 ? issue.path : corePublic.formatPath(segments);
  return { ...issue, path, segments, message, ...(parts === undefined ? {} : { parts }) };
}

/** Runs the core's constructor; on invalid props, the package's error at this construct's path and in the host's spelling, and no construct left behind. */
function render(wrapper: Construct, make: () => CoreConstruct, propsFqn: string | undefined): CoreConstruct {
  try {
    return make();
  } catch (e) {
    wrapper.node.scope?.node.tryRemoveChild(wrapper.node.id);
    if (!isPolicyError(e)) throw e;
    const inner = `${wrapper.node.path}/${INNER_ID}`;
    const source = e.source === inner ? wrapper.node.path : e.source;
    const issues = e.issues.map((i) => inHostSpelling(i, propsFqn));
    const PolicyErrorClass = e.constructor as new (issues: readonly Issue[], source?: string) => Error;
    throw new PolicyErrorClass(issues, source);
  }
}

function record<T>(map: ReadonlyMap<string, T>): { [key: string]: T } {
  return Object.fromEntries(map);
}

/**
 * A construct holding the objects of one rendered policy, one `ApiObject` each, with the id `<Kind>-<object
 * name>` (`CronJob-cache-shard01`), or `Resource` when it renders one object only, under its child `Default`.
 * Rendering happens in the constructor: invalid props throw there, every problem listed with the prop path it
 * was written at (in Python snake_case, in Go PascalCase), the value received and what is allowed. Without a
 * namespace in the props, the objects go to the chart's namespace, else to `default`.
 */
export abstract class PolicyConstruct extends Construct {
  /** @internal the core's construct (set by the subclass's constructor) */
  protected _inner?: CoreConstruct;

  /**
   * @param scope the parent construct (a Chart, or a construct in one)
   * @param id the construct id
   */
  protected constructor(scope: Construct, id: string) {
    super(scope, id);
  }

  /** @internal renders the core's construct under this one */
  protected _render(make: () => CoreConstruct, propsFqn: string | undefined): void {
    this._inner = render(this, make, propsFqn);
  }

  private get core(): CoreConstruct {
    if (this._inner === undefined) throw new Error(`${this.node.path}: not rendered`);
    return this._inner;
  }

  /** A handle of the core's construct, its errors naming this construct (`backups/cache`, as in TypeScript). */
  private handle(get: () => ApiObject): ApiObject {
    try {
      return get();
    } catch (e) {
      const inner = `${this.node.path}/${INNER_ID}:`;
      if (e instanceof Error && e.message.startsWith(inner))
        e.message = `${this.node.path}:${e.message.slice(inner.length)}`;
      throw e;
    }
  }

  /** The namespace of every object. */
  public get namespace(): string {
    return this.core.namespace;
  }

  /** One ApiObject per rendered object, in render order. */
  public get apiObjects(): ApiObject[] {
    return [...this.core.apiObjects];
  }

  /** Every CronJob (backups, retention prunes, restore drills), in render order. */
  public get cronJobs(): ApiObject[] {
    return [...this.core.cronJobs];
  }

  /** The backup CronJob of each target, by target key: the shard, the node (etcd `cluster` mode: `cluster`), `<keyspace>/<shard>`. */
  public get backupCronJobs(): { [key: string]: ApiObject } {
    return record(this.core.backupCronJobs);
  }

  /** The retention-prune CronJobs (with `retention.schedule`), by the key of the backups they prune. */
  public get pruneCronJobs(): { [key: string]: ApiObject } {
    return record(this.core.pruneCronJobs);
  }

  /** The restore-drill CronJobs (with `spec.drill`), by the key of the backups they drill. */
  public get drillCronJobs(): { [key: string]: ApiObject } {
    return record(this.core.drillCronJobs);
  }

  /**
   * The engine's other CronJobs by role (its component label), each by the key of the backups they go with:
   * `incremental-backup` (Vitess, a schedule's `incremental`, by the key of the shard's backup CronJob).
   */
  public get extraCronJobs(): { [role: string]: { [key: string]: ApiObject } } {
    return Object.fromEntries([...this.core.extraCronJobs].map(([role, m]) => [role, record(m)]));
  }

  /**
   * The PrometheusRule (with `metrics.prometheusRule`).
   * @default - none
   */
  public get prometheusRule(): ApiObject | undefined {
    return this.core.prometheusRule;
  }

  /**
   * The backup CronJob of a target: `cronJob('shard01')`, `cronJob('cp-1')`, `cronJob('commerce/-80')`;
   * without a key, the only one (throws when there are several, listing their keys).
   * @param key the target key
   */
  public cronJob(key?: string): ApiObject {
    return this.handle(() => this.core.cronJob(key));
  }

  /**
   * The retention-prune CronJob of a target (with `retention.schedule`); without a key, the only one.
   * @param key the target key
   */
  public pruneCronJob(key?: string): ApiObject {
    return this.handle(() => this.core.pruneCronJob(key));
  }

  /**
   * The restore-drill CronJob of a target (with `spec.drill`): `drillCronJob('cp-1')`; without a key, the only one.
   * @param key the target key
   */
  public drillCronJob(key?: string): ApiObject {
    return this.handle(() => this.core.drillCronJob(key));
  }

  /**
   * One of the engine's other CronJobs (`extraCronJobs`) of a role, by the key of the backups it goes with:
   * `extraCronJob('incremental-backup', 'commerce/-80')`; without a key, the only one of the role.
   * @param role the role (`incremental-backup`)
   * @param key the target key
   */
  public extraCronJob(role: string, key?: string): ApiObject {
    return this.handle(() => this.core.extraCronJob(role, key));
  }
}

/** The jsii name of a props struct of this module. */
function fqn(name: string): string {
  return `backup-cronjobs-cdk8s.${name}`;
}

/** What `BackupPolicy.fromFile` hands its constructor in place of props (not seen by jsii: no call crosses it). */
class PolicyFile {
  constructor(readonly path: string) {}
}

/** Renders a BackupPolicy into its CronJobs (and the few objects they need). */
export class BackupPolicy extends PolicyConstruct {
  /**
   * Reads a policy file (YAML or JSON) holding exactly one BackupPolicy. Without a namespace in it, the chart's
   * applies. Its problems are reported at the file's paths, as written in it.
   * @param scope the parent construct
   * @param id the construct id
   * @param path the policy file
   */
  public static fromFile(scope: Construct, id: string, path: string): BackupPolicy {
    return new BackupPolicy(scope, id, new PolicyFile(path) as unknown as BackupPolicyProps);
  }

  /**
   * @param scope the parent construct
   * @param id the construct id
   * @param props the policy: its metadata and spec
   */
  constructor(scope: Construct, id: string, props: BackupPolicyProps) {
    super(scope, id);
    const file: unknown = props;
    if (file instanceof PolicyFile)
      this._render(() => core.BackupPolicy.fromFile(this, INNER_ID, file.path), undefined);
    else this._render(() => new core.BackupPolicy(this, INNER_ID, props), fqn('BackupPolicyProps'));
  }
}

/**
 * One CronJob per keyspace/shard of the strategies (`<name>-<schedule>-<keyspace>-<shard>`), running vtbackup.
 * `cronJob('<keyspace>/<shard>')` is a shard's CronJob (`cronJob('commerce/-80')`). The schedule is named by
 * `scheduleName`, else the construct id.
 */
export class VitessBackupSchedule extends PolicyConstruct {
  /**
   * @param scope the parent construct
   * @param id the construct id (the schedule's name without `scheduleName`)
   * @param props the schedule
   */
  constructor(scope: Construct, id: string, props: VitessBackupScheduleProps) {
    super(scope, id);
    this._render(
      () => new core.VitessBackupSchedule(this, INNER_ID, { ...props, scheduleName: props.scheduleName ?? id }),
      fqn('VitessBackupScheduleProps'),
    );
  }
}

/**
 * One CronJob per shard (`<name>-<shard>`): Sentinel discovery, `redis-cli --rdb` from a read-only replica,
 * gzip, S3. `cronJob('<shard>')` is a shard's CronJob.
 */
export class RedisBackupSchedule extends PolicyConstruct {
  /**
   * @param scope the parent construct
   * @param id the construct id
   * @param props the schedule
   */
  constructor(scope: Construct, id: string, props: RedisBackupScheduleProps) {
    super(scope, id);
    this._render(() => new core.RedisBackupSchedule(this, INNER_ID, props), fqn('RedisBackupScheduleProps'));
  }
}

/**
 * One CronJob on any control-plane node (`mode: cluster`, key `cluster`) or one per node (`mode: perNode`,
 * keyed by node): `etcdctl snapshot save`, checksum, `snapshot status` and a restore check, an atomic rename
 * (or an S3 upload), metadata, retention; plus retention-prune CronJobs with `retention.schedule`. Restore Jobs
 * are printed by `backup-cronjobs restore`, not synthesized.
 */
export class EtcdBackupSchedule extends PolicyConstruct {
  /**
   * @param scope the parent construct
   * @param id the construct id
   * @param props the schedule
   */
  constructor(scope: Construct, id: string, props: EtcdBackupScheduleProps) {
    super(scope, id);
    this._render(() => new core.EtcdBackupSchedule(this, INNER_ID, props), fqn('EtcdBackupScheduleProps'));
  }
}
