/** Vitess defaults, defined once. */
export const VITESS_DEFAULTS = {
  image: 'vitess/lite:v21.0.4',
  mysqlFlavor: 'MySQL80',
  backupEngine: 'builtin',
  topologyImplementation: 'etcd2',
  flagStyle: 'underscore',
  allowFirstBackup: false,
  minBackupInterval: '0s',
  minRetentionTime: '0s',
  minRetentionCount: 1,
  scratchAccessModes: ['ReadWriteOnce'] as readonly string[],
  timeout: '2h',
  pruneTimeout: '30m',
  /** Deadline of one incremental backup run (spec.vitess.schedules[].incremental.timeout). */
  incrementalTimeout: '10m',
  incrementalAllowPrimary: false,
  forcePathStyle: false,
  /** Where the images keep their system CA certificates (Go's default directory), kept in SSL_CERT_DIR next to an S3 CA bundle. */
  systemCertDir: '/etc/ssl/certs',
  /** vitess-operator's fsGroup / runAsUser for vitess images. */
  vitessUid: 999,
  concurrency: 10,
  /**
   * TERM to KILL: vitess-backup.sh waits up to 120 s (VITESS_STOP_WAIT_SECONDS) for
   * vtbackup to stop, or 30 s for a vtctldclient call, then pushes the failure
   * (2 x curl --max-time 10), plus a margin.
   */
  terminationGracePeriodSeconds: 150,
} as const;

/** `spec.vitess.backupEngine` with its default: the resolve and the check of incremental backups read it here. */
export function vitessBackupEngine<E extends string>(spec: {
  readonly backupEngine?: E;
}): E | typeof VITESS_DEFAULTS.backupEngine {
  return spec.backupEngine ?? VITESS_DEFAULTS.backupEngine;
}
