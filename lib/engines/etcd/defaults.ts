/** etcd defaults, defined once. The schema, the renderer and the field reference read these. */
export const ETCD_DEFAULTS = {
  mode: 'cluster',
  /** Certificates and node role come from the distribution (DISTRIBUTIONS). */
  distribution: 'kubeadm',
  tolerateAllTaints: false,
  endpoint: 'https://127.0.0.1:2379',
  hostNetwork: true,
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
  /** uid of the retention-prune pod of a PVC that honours fsGroup (`nobody`, in the policy's fsGroup). */
  pvcPruneUid: 65534,
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
  /** The control-plane files archive: `<snapshot name><this>` (`.age` after it when encrypted), a sidecar of the snapshot. */
  controlPlaneFilesSuffix: '.control-plane-files.tar.gz',
  /** The archive holds private keys: only encrypted, unless the policy allows it in the clear. */
  controlPlaneFilesAllowUnencrypted: false,
  /** Snapshot save plus the restore check need this many times the database size free. */
  freeSpaceFactor: 2,
  restoreHostPath: '/var/lib/etcd-restore',
  /** Metric names start with this (see push_metrics in common.sh). */
  metricsPrefix: 'etcd_backup',
  restorePeerUrl: 'https://$(ETCD_RESTORE_HOST_IP):2380',
  /** spec.etcd.defragmentation: members whose fragmentation is above this percentage are defragmented (etcd-mixin's etcdDatabaseHighFragmentationRatio point). */
  defragThresholdPercent: 50,
  /** spec.etcd.defragmentation: `etcdctl --command-timeout` of one member's defragmentation. */
  defragMemberTimeout: '5m',
  /** EtcdFragmentationHigh fires only for a member whose database file is over this after the run (etcd's own mixin floor: etcd-io/etcd#14221): a small file's free pages cost little. */
  defragAlertMinBytes: 104857600,
  /** Deadline of a defragmentation run: a few members, each within its memberTimeout, and the checks between them. */
  defragTimeout: '30m',
  /** The etcd client flags' timeouts for `endpoint status` (the snapshot itself has only the Job deadline). */
  dialTimeout: '10s',
  commandTimeout: '15s',
} as const;

/**
 * The alarms an etcd cluster raises (etcd's `AlarmType`: api/etcdserverpb/rpc.proto), with what each
 * means for the cluster: the backup runs push `<prefix>_source_alarm{alarm}` for each, and the
 * PrometheusRule's BackupSourceAlarm says this.
 */
export const ETCD_ALARMS = {
  NOSPACE:
    'its database reached the backend quota (--quota-backend-bytes) and the cluster refuses writes until it is compacted, defragmented and the alarm disarmed (etcdctl alarm disarm)',
  CORRUPT:
    'a member found its data to differ from the other members (corruption check): the cluster refuses writes; restore the corrupt member from a snapshot',
} as const;

/**
 * The variable that names the node in certificate paths: the pods' own
 * `ETCD_BACKUP_NODE` (the downward API's `spec.nodeName`), expanded by the kubelet.
 */
export const NODE_VARIABLE = 'ETCD_BACKUP_NODE';

/** What each distribution sets when the spec does not (explicit fields win, field by field). */
export const DISTRIBUTIONS = {
  /** kubeadm: `<certificatesDir>/etcd` with the healthcheck client (CN kube-etcd-healthcheck-client). */
  kubeadm: {
    nodeRole: 'control-plane',
    certificates: {
      hostPath: '/etc/kubernetes/pki/etcd',
      caFile: 'ca.crt',
      certFile: 'healthcheck-client.crt',
      keyFile: 'healthcheck-client.key',
    },
    /** `controlPlaneFiles.paths`: the certificates and keys, and the static pod manifests. */
    controlPlaneFiles: ['/etc/kubernetes/pki', '/etc/kubernetes/manifests'],
    openshiftSecurity: false,
  },
  /**
   * OpenShift: what its `cluster-backup.sh` hands etcdctl on a master
   * (openshift/cluster-etcd-operator bindata/etcd/cluster-backup.sh sources
   * etcd.env, whose ETCDCTL_CACERT/CERT/KEY come from pkg/etcdenvvar/etcd_env.go
   * getEtcdctlEnvVars, with static-pod-certs replaced by
   * static-pod-resources/etcd-certs, the host directory of the etcd static pod's
   * cert-dir volume in bindata/etcd/pod.gotpl.yaml). The installer writes
   * NODE_NAME as the node's name (library-go staticpod/installerpod
   * substituteSecret), so the client is the node's own peer certificate. Masters
   * carry `node-role.kubernetes.io/master`; the pods need a SecurityContextConstraints.
   */
  openshift: {
    nodeRole: 'master',
    certificates: {
      hostPath: '/etc/kubernetes/static-pod-resources/etcd-certs',
      caFile: 'configmaps/etcd-all-bundles/server-ca-bundle.crt',
      certFile: `secrets/etcd-all-certs/etcd-peer-$(${NODE_VARIABLE}).crt`,
      keyFile: `secrets/etcd-all-certs/etcd-peer-$(${NODE_VARIABLE}).key`,
    },
    /**
     * The static pod resources (every revision kept on the node; cluster-backup.sh
     * archives the newest of kube-apiserver, kube-controller-manager, kube-scheduler
     * and etcd into static_kuberesources_*.tar.gz), with the encryption config and keys.
     */
    controlPlaneFiles: ['/etc/kubernetes/static-pod-resources'],
    openshiftSecurity: true,
  },
  /** k3s: `<data-dir>/server/tls/etcd`, the ClientAuth-only `client.crt` (k3s pkg/daemons/control/deps/deps.go). */
  k3s: {
    nodeRole: 'etcd',
    certificates: {
      hostPath: '/var/lib/rancher/k3s/server/tls/etcd',
      caFile: 'server-ca.crt',
      certFile: 'client.crt',
      keyFile: 'client.key',
    },
    /** The server's certificates and keys (the cluster token is a file: not archived). */
    controlPlaneFiles: ['/var/lib/rancher/k3s/server/tls'],
    openshiftSecurity: false,
  },
  /** RKE2: k3s's layout under its own data-dir, /var/lib/rancher/rke2. */
  rke2: {
    nodeRole: 'etcd',
    certificates: {
      hostPath: '/var/lib/rancher/rke2/server/tls/etcd',
      caFile: 'server-ca.crt',
      certFile: 'client.crt',
      keyFile: 'client.key',
    },
    /** The server's certificates and keys, and the static pod manifests. */
    controlPlaneFiles: ['/var/lib/rancher/rke2/server/tls', '/var/lib/rancher/rke2/agent/pod-manifests'],
    openshiftSecurity: false,
  },
} as const;

/** Paths inside the pods. Scripts receive every one of them through env vars. */
export const ETCD_PATHS = {
  scratch: '/scratch',
  tools: '/scratch/tools',
  certs: '/etc/etcd-backup/pki',
  backup: '/backup',
  restore: '/restore',
  /** `controlPlaneFiles.paths` are mounted read-only at this prefix followed by their host path. */
  hostFiles: '/host',
  /** What the defragmentation's steps hand on to each other. */
  defrag: '/scratch/defrag',
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

/*
 * The defaults the checks of spec.etcd need (a combination of fields, a default's own limit): the resolve
 * (resolve.ts) applies them through the same helpers.
 */

/** `spec.etcd.mode` with its default. */
export function etcdMode<M extends string>(spec: { readonly mode?: M }): M | typeof ETCD_DEFAULTS.mode {
  return spec.mode ?? ETCD_DEFAULTS.mode;
}

/** `spec.etcd.distribution` with its default. */
export function etcdDistribution<D extends keyof typeof DISTRIBUTIONS>(spec: {
  readonly distribution?: D;
}): D | typeof ETCD_DEFAULTS.distribution {
  return spec.distribution ?? ETCD_DEFAULTS.distribution;
}

/** `spec.etcd.retentionScope` with its default. */
export function etcdRetentionScope<S extends string>(spec: {
  readonly retentionScope?: S;
}): S | typeof ETCD_DEFAULTS.retentionScope {
  return spec.retentionScope ?? ETCD_DEFAULTS.retentionScope;
}

/** `spec.etcd.defragmentation.memberTimeout` with its default. */
export function defragMemberTimeout(defrag: { readonly memberTimeout?: string }): string {
  return defrag.memberTimeout ?? ETCD_DEFAULTS.defragMemberTimeout;
}
