/**
 * `backup-cronjobs restore --time` for Vitess: the point-in-time procedure of each shard that
 * has incremental backups, as the `vtctldclient` commands to run (Vitess 18 and newer:
 * `RestoreFromBackup --restore-to-timestamp`, vitessio/website
 * content/en/docs/18.0/user-guides/operating-vitess/backup-and-restore/bootstrap-and-restore.md).
 */
import { mergeSettings } from '../../policy/settings';
import { resolveSettings } from '../../policy/resolve-settings';
import type { PointInTimeProcedure, PointInTimeRequest, PolicyContext } from '../engine';
import { VITESS_DEFAULTS } from './defaults';
import { goDuration } from './flags';
import type { VitessSpec } from './types';

interface Shard {
  readonly keyspace: string;
  readonly shard: string;
  readonly schedule: string;
  readonly incremental: string;
  /** The full backup's deadline, the restore's --action_timeout. */
  readonly timeout: string;
}

/** Every keyspace/shard of a schedule with incremental backups (the first such schedule of each). */
function incrementalShards(spec: VitessSpec, policy: PolicyContext): Shard[] {
  const found = new Map<string, Shard>();
  for (const sched of spec.schedules) {
    if (!sched.incremental) continue;
    // the schedule's own deadline, as its backup CronJob gets it
    const { activeDeadlineSeconds } = resolveSettings(mergeSettings(policy.defaults, sched), {
      timeout: VITESS_DEFAULTS.timeout,
    });
    for (const strategy of sched.strategies)
      for (const shard of strategy.shards) {
        const key = `${strategy.keyspace}/${shard}`;
        if (!found.has(key))
          found.set(key, {
            keyspace: strategy.keyspace,
            shard,
            schedule: sched.name,
            incremental: sched.incremental.schedule,
            timeout: goDuration(activeDeadlineSeconds),
          });
      }
  }
  return [...found.values()];
}

export function vitessPointInTime(
  spec: VitessSpec,
  policy: PolicyContext,
  request: PointInTimeRequest,
): PointInTimeProcedure {
  const all = incrementalShards(spec, policy);
  const name = policy.metadata.name;
  if (all.length === 0)
    return {
      problems: [
        `--time: policy ${name} takes no incremental backups, and a point-in-time restore needs them (a full backup before the time and the incremental backups after it): add incremental to a schedule (spec.vitess.schedules[].incremental)`,
      ],
    };
  const shards = request.target === undefined ? all : all.filter((s) => `${s.keyspace}/${s.shard}` === request.target);
  if (shards.length === 0)
    return {
      problems: [
        `--target: received ${JSON.stringify(request.target)}; the shards of policy ${name} with incremental backups are: ${all.map((s) => `${s.keyspace}/${s.shard}`).join(', ')}`,
      ],
    };
  const t = request.time;
  const vtctld = `vtctldclient --server ${spec.vtctldServer}`;
  const lines = [
    `# Point-in-time restore of policy ${name} (Vitess cluster ${spec.cluster}) to ${t}, for Vitess 18 and newer.`,
    `# RestoreFromBackup --restore-to-timestamp restores the newest full backup taken before ${t}, then the`,
    '# incremental backups after it, and applies the binary logs up to and excluding that time (1 s granularity).',
    '#',
    '# Before you start:',
    `# - The shard needs a full backup from before ${t} and incremental backups from it past ${t} (GetBackups`,
    '#   lists them; the dry run below checks that they chain). Incremental backups are skipped until a full',
    '#   backup exists, and a binary log purged before an incremental copied it breaks the chain.',
    '# - The restore runs on one tablet of the shard, never the primary: its mysqld is stopped and its data',
    `#   replaced, and it ends in the DRAINED type with replication stopped, out of serving, holding the shard`,
    `#   as of ${t}. Pick a REPLICA or RDONLY tablet you can spare (GetTablets), or start one for it.`,
    '# - The tablet reads the backups with its own backup storage flags: the storage of this policy.',
    '# - vtctldclient waits for the whole restore, within --action_timeout (the full backup deadline below).',
    '# - Run the commands where vtctld is reachable (in the cluster, or through kubectl port-forward).',
  ];
  for (const s of shards) {
    const target = `${s.keyspace}/${s.shard}`;
    lines.push(
      '',
      `# ${target} (schedule ${s.schedule}, incremental backups ${s.incremental}); <tablet-alias> is <cell>-<uid>, e.g. zone1-0000000102`,
      `${vtctld} GetBackups ${target}`,
      `${vtctld} GetTablets --keyspace=${s.keyspace} --shard=${s.shard} --tablet-type=replica`,
      `${vtctld} RestoreFromBackup --dry-run --restore-to-timestamp=${t} <tablet-alias>`,
      `${vtctld} --action_timeout ${s.timeout} RestoreFromBackup --restore-to-timestamp=${t} <tablet-alias>`,
    );
  }
  lines.push(
    '',
    '# Afterwards: copy what you need from the DRAINED tablet (e.g. mysqldump of the tables), then bring it back',
    '# to the present: RestoreFromBackup without --restore-to-timestamp restores the newest full backup and',
    '# resumes replication:',
    `# ${vtctld} --action_timeout ${shards[0].timeout} RestoreFromBackup <tablet-alias>`,
  );
  return { text: `${lines.join('\n')}\n` };
}
