/** The objects of a resolved policy by the keys users name them with (the construct and component handles). */
import { closest, show } from '../policy/errors';
import { engineDefinition } from '../registry';
import type { ResolvedPolicy, ResolvedTarget } from './resolve';

/** Object names by the keys users name them with: what the handles of the constructs and components look up. */
export interface ObjectKeys {
  /** Backup CronJob names by target key. */
  readonly backups: ReadonlyMap<string, string>;
  /** Retention-prune CronJob names by target key. */
  readonly prunes: ReadonlyMap<string, string>;
  /** Restore-drill CronJob names by target key. */
  readonly drills: ReadonlyMap<string, string>;
  /**
   * The CronJob names of each of the engine's extra roles (its `extraCronJobs`: Vitess's
   * `incremental-backup`), by target key, as the backups' they go with.
   */
  readonly extras: ReadonlyMap<string, ReadonlyMap<string, string>>;
}

export function objectKeys(r: ResolvedPolicy): ObjectKeys {
  const names = (component: ResolvedTarget['component']) =>
    new Map(r.targets.filter((t) => t.component === component).map((t) => [t.key, t.name]));
  return {
    backups: names('backup'),
    prunes: names('retention-prune'),
    drills: names('restore-drill'),
    extras: new Map(
      (Object.keys(engineDefinition(r.engine).extraCronJobs ?? {}) as ResolvedTarget['component'][]).map((role) => [
        role,
        names(role),
      ]),
    ),
  };
}

/**
 * The object of `key` in `objects`, or the only one when `key` is omitted;
 * otherwise throws naming the keys there are. `what` names the objects in
 * the message (`test/cache: backup CronJob`).
 */
export function objectByKey<T>(objects: ReadonlyMap<string, T>, key: string | undefined, what: string): T {
  const keys = [...objects.keys()];
  const listed = keys.length === 0 ? 'there is none' : `keys: ${keys.map((k) => show(k)).join(', ')}`;
  if (key === undefined) {
    const [only] = objects.values();
    if (objects.size === 1) return only;
    throw new Error(
      `${what}: ${keys.length === 0 ? 'there is none' : `there are ${keys.length}, name one (${listed})`}`,
    );
  }
  const found = objects.get(key);
  if (found !== undefined) return found;
  const guess = closest(key, keys);
  throw new Error(
    `${what}: no key ${show(key)}${guess === undefined ? '' : ` (did you mean ${show(guess)}?)`}; ${listed}`,
  );
}
