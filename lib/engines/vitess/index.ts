/** The Vitess engine: vtbackup per (schedule, keyspace, shard), the backup type decided at run time. */
import type { EngineDefinition } from '../engine';
import { JOB_DEFAULTS } from '../../policy/defaults';
import { resolveVitess } from './resolve';
import { vitessSchema } from './schema';
import { vitessTargets } from './targets';
import type { VitessSpec } from './types';
import type { VitessScheduleProps } from './props';
import { VITESS_PROPS } from './props';
import { validateVitess } from './validate';
import { vitessPointInTime } from './restore';
import { vitessConverter } from './convert';
import { vitessDiscover } from './discover';
import { VITESS_RETENTION_DESTINATION } from './retention';

export * from './types';
export { VITESS_DEFAULTS } from './defaults';
export { renderFlags, storageRoot, goDuration, mysqlServerVersion } from './flags';
export { vitessSchedulePolicy } from './props';
export type { VitessScheduleProps } from './props';

export const vitessEngine: EngineDefinition<VitessSpec, VitessScheduleProps> = {
  props: VITESS_PROPS,
  schema: vitessSchema,
  metricsPrefix: JOB_DEFAULTS.metricsPrefix,
  converters: [vitessConverter],
  discover: vitessDiscover,
  extraCronJobs: { 'incremental-backup': "a schedule's `incremental`, by the key of the shard's backup CronJob" },
  retentionDestinations: [VITESS_RETENTION_DESTINATION],
  retentionDestination: () => VITESS_RETENTION_DESTINATION.kind,
  reportsCoverage: true,
  validate: (spec, policy, issues, accepted) => validateVitess(spec, policy.path, issues, accepted),
  targets: (spec, policy) => vitessTargets(resolveVitess(spec), policy),
  listHelp:
    'Vitess backups are listed by vtctld: vtctldclient --server <vtctld> GetBackups <keyspace>/<shard> (list does not read them)',
  pointInTime: (spec, policy, request) => vitessPointInTime(spec, policy, request),
  restoreHelp:
    'Vitess restores its own backups, so there is no restore Job: a vttablet started with --restore_from_backup ' +
    'restores the newest complete backup of its shard when it starts (with --restore_from_backup_ts, the newest taken at or before that time), ' +
    'and vtbackup restores the newest backup before taking each new one. ' +
    'With incremental backups (schedules[].incremental), backup-cronjobs restore --time <RFC 3339> prints the point-in-time procedure. ' +
    'See https://vitess.io/docs/user-guides/operating-vitess/backup-and-restore/bootstrap-and-restore/',
  drill: {
    refused:
      'every normal vtbackup run restores the newest backup first and pushes the restore-drill metrics (restore_drill_*), so no drill schedule is needed',
  },
  contentChecks: {
    refused:
      'vtctld lists a backup by name only (GetBackups: no size, no row count; its status is UNKNOWN), so there is no fact to compare with the ' +
      'newest earlier backup; vtbackup checks each backup itself, restoring the newest one before it takes the next (the restore drill metrics say so)',
  },
  encryption: {
    refused:
      'vtbackup writes its backups itself through its backup storage; encrypt them there, with extraFlags: ' +
      's3_backup_server_side_encryption (AES256, aws:kms or sse_c:<key file>), an encrypting external-compressor with its ' +
      "external-decompressor, or xtrabackup's --encrypt/--decrypt in xtrabackup_backup_flags and xbstream_restore_flags",
  },
};
