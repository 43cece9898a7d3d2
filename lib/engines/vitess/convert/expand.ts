/**
 * vitess-operator's schedule checks and strategy expansion
 * (pkg/controller/vitessbackupschedule/vitessbackupschedule_controller.go,
 * `expandStrategy`, `getExcludedKeyspaces`; reference vitess.md §1.3, §2.3):
 * Shard scope as is, Keyspace scope to every shard of the keyspace, Cluster
 * scope to every shard of every keyspace not claimed by a Keyspace-scope
 * strategy of this or another valid, running schedule of the same cluster.
 */
import { safeShard } from '../../../kubernetes/names';
import { ScheduleError, frequencyMinutes } from '../../../schedule';
import type { ClusterInfo } from './cluster';
import { Obj, asArr, asBool, asObj, asStr, at } from '../../convert';

/** One schedule of a cluster: a template of `spec.backup.schedules`, or a VitessBackupSchedule's spec. */
export interface OperatorSchedule {
  readonly name: string;
  readonly template: Obj;
  /** The source object, for notes. */
  readonly object: string;
  /** Path of the template in it (`spec.backup.schedules[0]`, or `spec` of a VitessBackupSchedule). */
  readonly path: string;
}

type Scope = 'Shard' | 'Keyspace' | 'Cluster';

/** One Job target of a schedule: an expanded strategy. */
export interface ExpandedTarget {
  readonly keyspace: string;
  readonly shard: string;
  readonly strategyName: string;
  /** `<strategy>-<keyspace>-<safe shard>` for Keyspace and Cluster scope; the strategy name for Shard scope. */
  readonly expandedName: string;
  readonly scope: Scope;
  readonly strategyPath: string;
}

interface Strategy {
  readonly name: string;
  readonly scope: string;
  readonly keyspace?: string;
  readonly shard?: string;
  readonly path: string;
}

function strategies(s: OperatorSchedule): Strategy[] {
  return asArr(s.template.strategies).map((raw, i) => {
    const o = asObj(raw);
    return {
      name: asStr(o?.name) ?? '',
      scope: asStr(o?.scope) ?? 'Shard',
      keyspace: asStr(o?.keyspace),
      shard: asStr(o?.shard),
      path: at(s.path, 'strategies', i),
    };
  });
}

function suspended(s: OperatorSchedule): boolean {
  return asBool(s.template.suspend) === true;
}

/** `ValidateScheduleConfig` and `ValidateStrategies`: each of the operator's terminal errors goes to `report` at its field. */
export function checkSchedule(s: OperatorSchedule, report: (path: string, message: string) => void): void {
  const schedule = asStr(s.template.schedule);
  const frequency = asStr(s.template.frequency);
  if (schedule && frequency)
    report(at(s.path, 'frequency'), 'schedule and frequency are both set; the operator refuses the schedule: keep one');
  if (!schedule && !frequency)
    report(s.path, 'neither schedule nor frequency is set; the operator makes no VitessBackupSchedule from it');
  if (frequency) {
    try {
      frequencyMinutes(frequency);
    } catch (e) {
      if (!(e instanceof ScheduleError)) throw e;
      report(at(s.path, 'frequency'), e.message);
    }
  }
  const list = strategies(s);
  if (list.length === 0) report(at(s.path, 'strategies'), 'no strategy: nothing to back up');
  for (const st of list) {
    const need = (field: 'keyspace' | 'shard', wanted: boolean) => {
      if (wanted && !st[field]) report(at(st.path, field), `required for ${st.scope} scope`);
      if (!wanted && st[field]) report(at(st.path, field), `must not be set for ${st.scope} scope`);
    };
    if (st.scope === 'Shard') {
      need('keyspace', true);
      need('shard', true);
      if (st.shard && !st.shard.includes('-'))
        report(at(st.path, 'shard'), `received "${st.shard}"; a shard is a key range such as "-", "-80" or "80-"`);
    } else if (st.scope === 'Keyspace') {
      need('keyspace', true);
      need('shard', false);
    } else if (st.scope === 'Cluster') {
      need('keyspace', false);
      need('shard', false);
    } else {
      report(at(st.path, 'scope'), `received "${st.scope}"; the operator knows Shard, Keyspace and Cluster`);
    }
  }
}

/** Whether the operator refuses `s` (`checkSchedule` finds an error). */
function refusedSchedule(s: OperatorSchedule): boolean {
  let refused = false;
  checkSchedule(s, () => (refused = true));
  return refused;
}

/** The keyspaces with shards, by name, each with its shard names in `sort.Strings` order (as the operator lists them). */
function keyspaceShards(cluster: ClusterInfo): [string, string[]][] {
  return [...cluster.keyspaces.entries()]
    .map(([name, shards]): [string, string[]] => [name, shards.map((s) => s.shard).sort()])
    .filter(([, shards]) => shards.length > 0)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

function expand(s: OperatorSchedule, cluster: ClusterInfo, excluded: ReadonlySet<string>): ExpandedTarget[] {
  const all = keyspaceShards(cluster);
  const byName = new Map(all);
  const toShards = (st: Strategy, keyspace: string, shards: readonly string[]): ExpandedTarget[] =>
    shards.map((shard) => ({
      keyspace,
      shard,
      strategyName: st.name,
      expandedName: `${st.name}-${keyspace}-${safeShard(shard)}`,
      scope: st.scope as Scope,
      strategyPath: st.path,
    }));
  return strategies(s).flatMap((st): ExpandedTarget[] => {
    if (st.scope === 'Keyspace') return toShards(st, st.keyspace!, byName.get(st.keyspace!) ?? []);
    if (st.scope === 'Cluster')
      return all.filter(([ks]) => !excluded.has(ks)).flatMap(([ks, shards]) => toShards(st, ks, shards));
    return [
      {
        keyspace: st.keyspace!,
        shard: st.shard!,
        strategyName: st.name,
        expandedName: st.name,
        scope: 'Shard',
        strategyPath: st.path,
      },
    ];
  });
}

function ownKeyspaceClaims(s: OperatorSchedule): string[] {
  return strategies(s)
    .filter((st) => st.scope === 'Keyspace' && st.keyspace)
    .map((st) => st.keyspace!);
}

/** The first `keyspace/shard` listed twice, with the two strategies, or undefined. */
function duplicate(targets: readonly ExpandedTarget[]): [ExpandedTarget, ExpandedTarget] | undefined {
  const seen = new Map<string, ExpandedTarget>();
  for (const t of targets) {
    const key = `${t.keyspace}/${t.shard}`;
    const first = seen.get(key);
    if (first) return [first, t];
    seen.set(key, t);
  }
  return undefined;
}

export type Expansion = { readonly targets: ExpandedTarget[] } | { readonly problem: [string, string] };

/** The targets of `s`, with `peers` the other schedules of the same cluster; or the operator's terminal error. */
export function expandSchedule(
  s: OperatorSchedule,
  cluster: ClusterInfo,
  peers: readonly OperatorSchedule[],
): Expansion {
  const excluded = new Set(ownKeyspaceClaims(s));
  for (const peer of peers) {
    if (peer === s || suspended(peer) || refusedSchedule(peer)) continue;
    if (duplicate(expand(peer, cluster, new Set(ownKeyspaceClaims(peer))))) continue;
    for (const ks of ownKeyspaceClaims(peer)) excluded.add(ks);
  }
  const targets = expand(s, cluster, excluded);
  const dup = duplicate(targets);
  if (dup) {
    const [first, second] = dup;
    return {
      problem: [
        second.strategyPath,
        `duplicate effective shard target ${second.keyspace}/${second.shard} in strategies "${first.expandedName}" and "${second.expandedName}"; the operator refuses the whole schedule: list each shard once`,
      ],
    };
  }
  return { targets };
}
