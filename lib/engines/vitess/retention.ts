/**
 * Vitess's own retention destination: a shard's backups as vtctld lists them (`GetBackups`), deleted
 * with `RemoveBackup` by `scripts/retention-vitess.sh`, and the names vtbackup and vttablet give them.
 * It reaches the core through the registry (`retentionDestinations` of the engine).
 */
import { civilToEpoch, retentionDestinationEnv } from '../../retention';
import type { DestinationEnvVar, RetentionDestinationDefinition } from '../../retention';

/** The env names retention-vitess.sh reads besides the rules' and `BACKUP_DEST_KIND`. */
export const VITESS_RETENTION_ENV = {
  /** vtctld gRPC address host:port. */
  server: 'VTCTLD_SERVER',
  keyspace: 'VITESS_KEYSPACE',
  shard: 'VITESS_SHARD',
  /**
   * `true` when the shard takes incremental backups: the rules count its full (vtbackup)
   * backups, and each full one is deleted together with the incremental backups that follow it.
   */
  incrementalChains: 'VITESS_INCREMENTAL_CHAINS',
} as const;

/** Where a shard's backups are pruned: vtctld's listing of the shard. */
export interface VitessRetentionDestination {
  readonly kind: 'vitess';
  readonly server: string;
  readonly keyspace: string;
  readonly shard: string;
  /** The shard takes incremental backups (VITESS_INCREMENTAL_CHAINS). @default false */
  readonly incrementalChains?: boolean;
}

/** The `vitess` destination kind (`BACKUP_DEST_KIND=vitess`). */
export const VITESS_RETENTION_DESTINATION: RetentionDestinationDefinition<VitessRetentionDestination> = {
  kind: 'vitess',
  script: 'retention-vitess.sh',
  envNames: VITESS_RETENTION_ENV,
  unsupported: { maxTotalSize: 'vtctldclient GetBackups reports no backup sizes' },
  check: (dest, _path, req) => {
    req('server', dest.server);
    req('keyspace', dest.keyspace);
    req('shard', dest.shard);
  },
  env: (dest, add) => {
    add(VITESS_RETENTION_ENV.server, dest.server);
    add(VITESS_RETENTION_ENV.keyspace, dest.keyspace);
    add(VITESS_RETENTION_ENV.shard, dest.shard);
    if (dest.incrementalChains) add(VITESS_RETENTION_ENV.incrementalChains, 'true');
  },
};

/** The retention env of a shard's backups, sorted by name. Throws on an invalid destination. */
export function vitessRetentionEnv(dest: Omit<VitessRetentionDestination, 'kind'>): DestinationEnvVar[] {
  return retentionDestinationEnv({ kind: 'vitess', ...dest }, VITESS_RETENTION_DESTINATION);
}

/**
 * The time of a Vitess backup named `YYYY-MM-DD.HHMMSS.<tablet alias>`
 * (UTC, as vtbackup/vttablet name them), or undefined.
 */
export function parseVitessBackupName(name: string): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})\.(\d{2})(\d{2})(\d{2})\.[^\s/]+$/.exec(name);
  if (!m) return undefined;
  return civilToEpoch(+m[1], +m[2], +m[3], +m[4], +m[5], +m[6]);
}
