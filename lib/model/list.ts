/**
 * `backup-cronjobs list`, its pure part: where a policy's backups are stored (each engine's
 * `backupStores`), and, given what a store holds, the backups with their metadata's content facts
 * and what the policy's retention rules keep or delete next — the plan the prune would make.
 * Reading the stores (the aws CLI, a directory) is the CLI's part.
 */
import type { BackupStore } from '../engines/engine';
import { retentionRules } from '../policy/retention-options';
import { timeZoneOf } from '../policy/defaults';
import type { BackupPolicy } from '../registry';
import { engineDefinition, enginesOf } from '../registry';
import { formatUtc, planRetention } from '../retention';
import { ENCRYPTED_SUFFIX, parseBackupName } from '../retention/listing';
import type { RetentionReason } from '../retention';
import { policyContext } from './validate';

export type { BackupStore } from '../engines/engine';

/** An object of a store (key without the store's key prefix) or a file of its directory. */
export interface StoredObject {
  /** Its key without the store's key prefix, or its file name. */
  readonly name: string;
  /** Its size in bytes. */
  readonly size: number;
}

/** One backup of a store, as `list` prints it. */
export interface ListedBackup {
  /** The target it backs up: the shard, the node, `<keyspace>/<shard>`. */
  readonly target: string;
  /** etcd: the node that took it. @default - none */
  readonly node?: string;
  /** The object's key (without the store's key prefix) or file name. */
  readonly name: string;
  /** From the name: `YYYY-MM-DDTHH:MM:SSZ`. */
  readonly time: string;
  /** Its size in bytes. */
  readonly size: number;
  /** Stored as `<name>.age` (client-side encryption). */
  readonly encrypted: boolean;
  /** The content facts of its metadata (`revision`, `keyCount`), or why there are none. */
  readonly facts: Readonly<Record<string, number | string>>;
  /** Whether its metadata file (`<name>.json`) was read, is missing, or could not be read. */
  readonly metadata: 'read' | 'missing' | 'unreadable';
  /**
   * S3 Object Lock: until when nobody may delete it (`YYYY-MM-DDTHH:MM:SSZ`; the metadata's
   * `objectLock.retainUntil`, else the time in its name plus the policy's lock); none once passed.
   * @default - not locked
   */
  readonly lockedUntil?: string;
  /** What the retention rules do with it next: keep (and why) or delete; none without rules. */
  readonly retention?: { readonly keep: boolean; readonly reasons: readonly RetentionReason[] };
}

/** Where a policy's backups are: its engine's stores, or (an engine without) how to list them. */
export function policyStores(policy: BackupPolicy): {
  readonly stores: readonly BackupStore[];
  readonly help?: string;
} {
  const [engine] = enginesOf(policy.spec);
  const definition = engineDefinition(engine);
  if (!definition.backupStores)
    return { stores: [], help: definition.listHelp ?? `the ${engine} engine's backups cannot be listed` };
  return { stores: definition.backupStores(policy.spec[engine], policyContext(policy, engine)) };
}

const NODE = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

/**
 * The parts of a backup's name, or undefined for any other object (metadata, temporary files, other
 * policies): the time as the retention listings read it (`parseBackupName`), the node when names carry one.
 */
function parseName(
  store: BackupStore,
  name: string,
): { epoch: number; time: string; node?: string; encrypted: boolean } | undefined {
  const encrypted = name.endsWith(ENCRYPTED_SUFFIX);
  const clear = encrypted ? name.slice(0, -ENCRYPTED_SUFFIX.length) : name;
  // the part after the timestamp: the suffix, or `_<node>` and the suffix
  const rest = clear.slice(store.namePrefix.length + 20);
  const node = store.nodes === undefined ? undefined : rest.slice(1, rest.length - store.nameSuffix.length);
  if (node !== undefined && !(rest.startsWith('_') && NODE.test(node))) return undefined;
  const epoch = parseBackupName(
    name,
    store.namePrefix,
    node === undefined ? store.nameSuffix : `_${node}${store.nameSuffix}`,
  );
  if (epoch === undefined) return undefined;
  return {
    epoch,
    time: clear.slice(store.namePrefix.length, store.namePrefix.length + 20),
    ...(node !== undefined ? { node } : {}),
    encrypted,
  };
}

/**
 * The backups among `objects`, newest first, with the facts of their metadata (`metadataOf` returns
 * the text of `<name without .age><metadataSuffix>`, or undefined when it does not exist) and the
 * retention plan of the policy (per node for `nodes: each`).
 */
export function listStore(
  store: BackupStore,
  objects: readonly StoredObject[],
  metadataOf: (name: string) => string | undefined,
  policy: BackupPolicy,
  now: number,
): ListedBackup[] {
  const found = objects.flatMap((o) => {
    const parts = parseName(store, o.name);
    return parts ? [{ ...o, ...parts }] : [];
  });
  const rules = retentionRules(policy.spec.retention);
  const timeZone = timeZoneOf(policy.spec.defaults?.timeZone);
  const plans = new Map<string, { keep: boolean; reasons: readonly RetentionReason[] }>();
  if (rules !== undefined) {
    const groups = new Map<string, typeof found>();
    for (const b of found) {
      const group = store.nodes === 'each' ? (b.node ?? '') : '';
      groups.set(group, [...(groups.get(group) ?? []), b]);
    }
    for (const members of groups.values()) {
      const plan = planRetention(
        members.map((b) => ({ name: b.name, time: b.epoch, size: b.size })),
        rules,
        { now, timeZone },
      );
      for (const e of plan.entries) plans.set(e.name, { keep: e.keep, reasons: e.reasons });
    }
  }
  return found
    .sort((a, b) => (a.time !== b.time ? (a.time < b.time ? 1 : -1) : a.name < b.name ? 1 : -1))
    .map((b) => {
      const { facts, metadata, retainUntil } = contentFacts(
        store,
        metadataOf(`${b.encrypted ? b.name.slice(0, -4) : b.name}${store.metadataSuffix}`),
      );
      const lockEnd = retainUntil ?? (store.objectLock ? formatUtc(b.epoch + store.objectLock.seconds) : undefined);
      return {
        target: store.target,
        ...(b.node !== undefined ? { node: b.node } : {}),
        name: b.name,
        time: b.time,
        size: b.size,
        encrypted: b.encrypted,
        facts,
        metadata,
        ...(lockEnd !== undefined && Date.parse(lockEnd) > now * 1000 ? { lockedUntil: lockEnd } : {}),
        ...(plans.has(b.name) ? { retention: plans.get(b.name)! } : {}),
      };
    });
}

function contentFacts(
  store: BackupStore,
  text: string | undefined,
): { facts: Record<string, number | string>; metadata: ListedBackup['metadata']; retainUntil?: string } {
  if (text === undefined) return { facts: {}, metadata: 'missing' };
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return { facts: {}, metadata: 'unreadable' };
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) return { facts: {}, metadata: 'unreadable' };
  const facts: Record<string, number | string> = {};
  for (const key of store.contentFacts) {
    const value = (doc as Record<string, unknown>)[key];
    if (typeof value === 'number' || typeof value === 'string') facts[key] = value;
  }
  const lock = (doc as { objectLock?: { retainUntil?: unknown } }).objectLock?.retainUntil;
  const retainUntil = typeof lock === 'string' && !Number.isNaN(Date.parse(lock)) ? lock : undefined;
  return { facts, metadata: 'read', ...(retainUntil !== undefined ? { retainUntil } : {}) };
}
