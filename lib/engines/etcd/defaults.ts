/** etcd defaults, defined once. The schema, the renderer and the README read these. */
export const ETCD_DEFAULTS = {
  mode: 'cluster',
  nodeRole: 'control-plane',
  tolerateAllTaints: false,
  endpoint: 'https://127.0.0.1:2379',
  hostNetwork: true,
  /** kubeadm: `<certificatesDir>/etcd` with the healthcheck client (CN kube-etcd-healthcheck-client). */
  certHostPath: '/etc/kubernetes/pki/etcd',
  caFile: 'ca.crt',
  certFile: 'healthcheck-client.crt',
  keyFile: 'healthcheck-client.key',
  hostPath: '/var/lib/etcd-backup',
  retentionScope: 'node',
  restoreCheck: true,
  /** kubeadm's default etcd image (`DefaultEtcdVersion`); distroless since 3.5.7. */
  etcdImage: 'registry.k8s.io/etcd:3.5.16-0',
  /** docker-library's musl variant: CONFIG_STATIC=y, so it runs inside the distroless etcd image. */
  busyboxImage: 'busybox:1.36.1-musl',
  /** Amazon Linux 2 with aws CLI v2, bash, coreutils, gawk, tzdata. */
  awsCliImage: 'amazon/aws-cli:2.17.64',
  /** OpenShift's backup Job deadline and druid's snapshot timeout: `snapshot save` can hang. */
  timeout: '15m',
  /** Deadline of a retention-prune run (`spec.retention.schedule`): a listing and some deletions. */
  pruneTimeout: '15m',
  /** uid/gid of the S3 retention-prune pod (any non-root uid works for the aws CLI; `nobody`). */
  s3PruneUid: 65534,
  /** Deadline of a restore drill: a download, a decryption, a restore and a member's start, each of the whole database. */
  drillTimeout: '30m',
  /** Seconds a drill's temporary member may take to answer after the restore (it opens the database and rebuilds its index). */
  drillStartTimeoutSeconds: 300,
  /** uid/gid of an S3 restore-drill pod (its files are in its own emptyDir; `nobody`). */
  s3DrillUid: 65534,
  /** perNode schedules are spread over this window unless the policy sets `stagger` or hashed fields. */
  perNodeStaggerWindow: '15m',
  /** Every etcd backup pod of a namespace is in this group: at most one snapshot at a time in the cluster. */
  serializationGroup: 'etcd-snapshot',
  priorityClassName: 'system-node-critical',
  /** `<namePrefix><UTC RFC3339>_<node><extension>` */
  namePrefixBase: 'etcd-snapshot_',
  extension: '.db',
  metadataSuffix: '.json',
  /** Snapshot save plus the restore check need this many times the database size free. */
  freeSpaceFactor: 2,
  restoreHostPath: '/var/lib/etcd-restore',
  /** Metric names start with this (see push_metrics in common.sh). */
  metricsPrefix: 'etcd_backup',
  restorePeerUrl: 'https://$(ETCD_RESTORE_HOST_IP):2380',
  /** The etcd client flags' timeouts for `endpoint status` (the snapshot itself has only the Job deadline). */
  dialTimeout: '10s',
  commandTimeout: '15s',
} as const;

/** Paths inside the pods. Scripts receive every one of them through env vars. */
export const ETCD_PATHS = {
  scratch: '/scratch',
  tools: '/scratch/tools',
  certs: '/etc/etcd-backup/pki',
  backup: '/backup',
  restore: '/restore',
  /** What the steps of a restore drill hand on to each other. */
  drill: '/scratch/drill',
} as const;

/** Role label and the taints its nodes carry, per node role. */
export const NODE_ROLES = {
  'control-plane': {
    label: 'node-role.kubernetes.io/control-plane',
    taints: [
      { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' },
      { key: 'node-role.kubernetes.io/master', effect: 'NoSchedule' },
    ],
  },
  master: {
    label: 'node-role.kubernetes.io/master',
    taints: [
      { key: 'node-role.kubernetes.io/master', effect: 'NoSchedule' },
      { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' },
    ],
  },
  etcd: {
    label: 'node-role.kubernetes.io/etcd',
    taints: [
      { key: 'node-role.kubernetes.io/etcd', effect: 'NoExecute' },
      { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' },
      { key: 'CriticalAddonsOnly', effect: 'NoExecute' },
    ],
  },
} as const;
