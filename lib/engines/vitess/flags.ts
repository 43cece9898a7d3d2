/** vtbackup flags as vitess-operator renders them: sorted `--key=value`. */
import { VITESS_DEFAULTS } from './defaults';
import type { ResolvedVitess } from './resolve';
import { SECRET_DIRS, storageFlags } from './storage';

export { SECRET_DIRS, storageRoot } from './storage';

/** Flags the entry script adds at run time; extraFlags may not set them. */
export const RUNTIME_FLAGS = ['initial_backup', 'allow_first_backup'] as const;

/** `--mysql_server_version` from a numeric image tag (`mysql:8.0.40` → `8.0.40-Vitess`). */
export function mysqlServerVersion(image: string): string | undefined {
  const colon = image.lastIndexOf(':');
  const tag = colon < 0 ? '' : image.slice(colon + 1);
  const m = tag.includes('/') ? null : /^[0-9][0-9.]*/.exec(tag);
  return m ? `${m[0]}-Vitess` : undefined;
}

/** CPU request → xtrabackup parallelism: rounded up, at least 1. */
export function cpuParallelism(cpu: string | undefined): number {
  if (!cpu) return 1;
  const value = cpu.endsWith('m') ? Number(cpu.slice(0, -1)) / 1000 : Number(cpu);
  return Number.isFinite(value) ? Math.max(1, Math.ceil(value)) : 1;
}

/** Go `%v` of a duration given as seconds: `0s`, `1h0m0s`, `30m0s`, `45s`. */
export function goDuration(seconds: number): string {
  if (seconds === 0) return '0s';
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  if (h > 0) return `${h}h${m}m${s}s`;
  if (m > 0) return `${m}m${s}s`;
  return `${s}s`;
}

/** Every flag the operator sets (underscore keys) except the run-time type flags. */
export function requiredFlags(
  spec: ResolvedVitess,
  keyspace: string,
  shard: string,
  cpuRequest: string | undefined,
): Record<string, string> {
  const engine = spec.backupEngine;
  const flags: Record<string, string> = { backup_engine_implementation: engine };
  if (engine === 'xtrabackup') {
    const parallel = `--parallel=${cpuParallelism(cpuRequest)}`;
    Object.assign(flags, {
      xtrabackup_user: 'vt_dba',
      xtrabackup_stream_mode: 'xbstream',
      xtrabackup_stripes: '8',
      xtrabackup_backup_flags: parallel,
      xbstream_restore_flags: parallel,
      backup_storage_compress: 'true',
    });
  }
  const retention = spec.vtbackupRetention;
  Object.assign(flags, storageFlags(spec.storage, spec.cluster), {
    concurrency: String(VITESS_DEFAULTS.concurrency),
    min_backup_interval: goDuration(retention.minBackupIntervalSeconds),
    min_retention_time: goDuration(retention.minRetentionTimeSeconds),
    min_retention_count: String(retention.minRetentionCount),
    logtostderr: 'true',
    topo_implementation: spec.topology.implementation,
    topo_global_server_address: spec.topology.globalServerAddress,
    topo_global_root: spec.topology.globalRoot,
    init_keyspace: keyspace,
    init_shard: shard,
    init_db_name_override: `vt_${keyspace}`,
    db_dba_user: 'vt_dba',
    db_charset: spec.mysqlFlavor === 'MySQL80' ? 'utf8mb4' : 'utf8',
    mysql_socket: '/vt/socket/mysql.sock',
  });
  if (spec.dbInitScriptSecret) flags.init_db_sql_file = `${SECRET_DIRS.dbInit}/${spec.dbInitScriptSecret.key}`;
  const version = mysqlServerVersion(spec.images.mysqld);
  if (version) flags.mysql_server_version = version;
  return flags;
}

/** Flags that extraFlags can set (the operator adds it only when missing). */
export const OVERRIDABLE_DEFAULTS: Record<string, string> = {
  'builtinbackup-incremental-restore-path': '/vt/vtdataroot',
};

/** Every flag vtbackup gets: the required ones, over `extraFlags`, over the overridable defaults. */
function vtbackupFlags(
  spec: ResolvedVitess,
  keyspace: string,
  shard: string,
  cpuRequest: string | undefined,
): Record<string, string> {
  const flags = requiredFlags(spec, keyspace, shard, cpuRequest);
  // added to the required flags rather than spread with them: spreading a map of 30 keys cost 15 µs a shard
  for (const [key, value] of Object.entries({ ...OVERRIDABLE_DEFAULTS, ...spec.extraFlags }))
    if (!(key in flags)) flags[key] = value;
  return flags;
}

/**
 * vtbackup's args for the shards of one spec and cpu request: the flags every shard shares are rendered
 * and sorted once, and each shard's own values (keyspace, shard, database name) are set in their places.
 * The order is the keys', which no value changes.
 */
export function shardArgs(
  spec: ResolvedVitess,
  cpuRequest: string | undefined,
): (keyspace: string, shard: string) => string[] {
  const keyspaceHole = '\u0000keyspace\u0000';
  const shardHole = '\u0000shard\u0000';
  const template = renderFlags(vtbackupFlags(spec, keyspaceHole, shardHole, cpuRequest), spec.flagStyle);
  const holes = template.flatMap((arg, i) => (arg.includes('\u0000') ? [i] : []));
  return (keyspace, shard) => {
    const args = template.slice();
    for (const i of holes) args[i] = template[i].split(keyspaceHole).join(keyspace).split(shardHole).join(shard);
    return args;
  };
}

/** Canonical (underscore) form of a flag key, for collision checks. */
export function canonicalFlag(key: string): string {
  return key.replace(/^-+/, '').replace(/-/g, '_');
}

/** Renders `--key=value` args sorted by key, in the chosen spelling. */
export function renderFlags(flags: Record<string, string>, style: 'underscore' | 'dashed'): string[] {
  const spelled = Object.entries(flags).map(([k, v]) => [style === 'dashed' ? k.replace(/_/g, '-') : k, v] as const);
  return spelled.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => `--${k}=${v}`);
}
