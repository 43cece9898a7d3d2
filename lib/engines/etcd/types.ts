import type { JobSettings } from '../../policy/types';
import type { S3Destination } from '../s3';
import type { S3Copy } from '../s3-copies';

/**
 * Which nodes run the backups, by their role label (the matching taints are
 * tolerated):
 * - `control-plane`: kubeadm, `node-role.kubernetes.io/control-plane`
 * - `master`: OpenShift (and legacy kubeadm), `node-role.kubernetes.io/master`
 * - `etcd`: k3s and RKE2, `node-role.kubernetes.io/etcd`
 */
export type EtcdNodeRole = 'control-plane' | 'master' | 'etcd';

/**
 * The cluster's distribution: where its etcd client certificates are, which
 * nodes run etcd, and (OpenShift) the objects its pods need. Fields set in the
 * spec win over the distribution's values, field by field.
 * - `kubeadm`: `/etc/kubernetes/pki/etcd` (`ca.crt`, `healthcheck-client.crt`,
 *   `healthcheck-client.key`), `nodeRole: control-plane`;
 * - `openshift`: the files OpenShift's own `cluster-backup.sh` uses, under
 *   `/etc/kubernetes/static-pod-resources/etcd-certs` (the CA bundle
 *   `configmaps/etcd-all-bundles/server-ca-bundle.crt`, the node's own
 *   `secrets/etcd-all-certs/etcd-peer-<node>.crt|.key`), `nodeRole: master`;
 *   and the pods run under a ServiceAccount `<policy>-sa` that may use a
 *   SecurityContextConstraints admitting exactly them (rendered with the
 *   CronJobs: ServiceAccount, SecurityContextConstraints, Role, RoleBinding);
 * - `k3s`, `rke2`: `/var/lib/rancher/<k3s|rke2>/server/tls/etcd` (`server-ca.crt`,
 *   `client.crt`, `client.key`), `nodeRole: etcd`.
 */
export type EtcdDistribution = 'kubeadm' | 'openshift' | 'k3s' | 'rke2';

/** One control-plane node of `perNode` mode, with its own job settings (overriding `spec.defaults` field by field). */
export interface EtcdNodeSpec extends JobSettings {
  /** The node's `kubernetes.io/hostname` label (usually the node name). */
  readonly name: string;
}

/**
 * Client certificates on every control-plane node, mounted read-only from the
 * host. The files are paths relative to `hostPath`; `$(ETCD_BACKUP_NODE)` in
 * them is the node's name (OpenShift's per-node certificates).
 */
export interface EtcdCertificates {
  /** Host directory holding the three files. @default - the distribution's (kubeadm: '/etc/kubernetes/pki/etcd') */
  readonly hostPath?: string;
  /** CA bundle that signed etcd's serving certificate. @default - the distribution's (kubeadm: 'ca.crt') */
  readonly caFile?: string;
  /** Client certificate. @default - the distribution's (kubeadm: 'healthcheck-client.crt') */
  readonly certFile?: string;
  /** Client key. @default - the distribution's (kubeadm: 'healthcheck-client.key') */
  readonly keyFile?: string;
}

/** A directory on each node: readable there even when the cluster is down. */
export interface EtcdHostPathDestination {
  /** @default '/var/lib/etcd-backup' */
  readonly path?: string;
}

/** A PersistentVolumeClaim (ReadWriteMany when several nodes write to it). */
export interface EtcdPvcDestination {
  readonly claimName: string;
  /** @default - the volume's root */
  readonly subPath?: string;
  /**
   * The volume honours `fsGroup` (its CSI driver's `fsGroupPolicy` is `File`, or
   * `ReadWriteOnceWithFSType` for a ReadWriteOnce volume with an fsType): the backup and prune pods get
   * this `fsGroup`, the kubelet makes the volume group-writable, and the retention-prune pod runs as
   * non-root (uid 65534 in this group). Leave it unset for a volume that ignores fsGroup (NFS and most
   * ReadWriteMany volumes): the prune pod then runs as uid 0, without capabilities, as the snapshots'
   * owner.
   * @default - unset: the prune pod runs as uid 0
   */
  readonly fsGroup?: number;
}

/** Where snapshots go: exactly one. @default - hostPath `/var/lib/etcd-backup` */
export interface EtcdDestination {
  readonly hostPath?: EtcdHostPathDestination;
  readonly persistentVolumeClaim?: EtcdPvcDestination;
  /**
   * S3 or any S3-compatible store. The pods use the host network (see
   * `hostNetwork`), so an `endpoint` must resolve from the node (not a `*.svc` name).
   */
  readonly s3?: S3Destination;
}

export interface EtcdImages {
  /**
   * The etcd image (the cluster's own version): `etcdctl` for the snapshot,
   * `etcdutl` (3.5+) or `etcdctl` (3.4) for the checks. Distroless images work.
   * @default 'registry.k8s.io/etcd:3.5.16-0'
   */
  readonly etcd?: string;
  /**
   * An image with a STATICALLY linked `busybox` on PATH. It is copied into the
   * pod's scratch volume so that the checks can run in the (shell-less) etcd image.
   * @default 'busybox:1.36.1-musl'
   */
  readonly busybox?: string;
  /**
   * Rename, metadata and retention for hostPath/PVC destinations: sh, awk,
   * sort, date, mktemp, wc, mv, chmod (and zoneinfo for bucket rules outside UTC).
   * @default - the busybox image
   */
  readonly shell?: string;
  /** Upload, size check and retention for S3: sh, aws (CLI v2), awk, sort, date, mktemp, wc. @default 'amazon/aws-cli:2.17.64' */
  readonly awsCli?: string;
}

/**
 * Defaults of the restore Jobs that `backup-cronjobs restore` prints: each
 * restores one snapshot into a new data directory on one node (it does not
 * touch the running etcd). See docs/operations/restore.md.
 */
export interface EtcdRestoreSpec {
  /**
   * `--initial-cluster` of the restored cluster: `name=peerURL,...` for every member.
   * Every member of a multi-member cluster must restore the same snapshot.
   * @default - a one-member cluster: `<node>=https://<node IP>:2380`
   */
  readonly initialCluster?: string;
  /** `--initial-advertise-peer-urls` of the member. @default 'https://$(ETCD_RESTORE_HOST_IP):2380' (the node's IP) */
  readonly peerUrl?: string;
  /** Host directory receiving `<snapshot name>.restored/`. @default '/var/lib/etcd-restore' */
  readonly hostPath?: string;
  /**
   * Add this to every revision and mark them compacted: watchers such as the
   * API server's caches restart instead of missing changes. Needs an etcdutl
   * with `--bump-revision` (etcd 3.6; `etcdutl snapshot restore --help` tells
   * for a 3.5 release); etcdctl 3.4 has none and the restore fails.
   * @default - not bumped
   */
  readonly bumpRevision?: number;
}

/**
 * Control-plane host files archived with each snapshot: a second artifact,
 * `<snapshot name>.control-plane-files.tar.gz` (`.age` after it when
 * encrypted), deleted by retention with its snapshot. The directories are
 * mounted read-only; their regular files and symlinks are archived under
 * their host paths (extract with `tar -xzf <archive> -C /`), listed back and
 * compared, and the archive's sha256 goes into the snapshot's metadata.
 * It holds the cluster's private keys: refused without `spec.encryption`
 * unless `allowUnencrypted` is true.
 */
export interface EtcdControlPlaneFiles {
  /**
   * Host directories to archive (absolute, no whitespace, none inside another).
   * OpenShift: `/etc/kubernetes/static-pod-resources` and `/etc/kubernetes/manifests`.
   * @default ['/etc/kubernetes/pki', '/etc/kubernetes/manifests'] (kubeadm)
   */
  readonly paths?: readonly string[];
  /** Store the archive in the clear when the policy has no `spec.encryption`. @default false */
  readonly allowUnencrypted?: boolean;
}

/**
 * Scheduled defragmentation of the cluster's members (opt-in): one CronJob
 * `<policy>-defrag` for the cluster (in `perNode` mode too), on the role's
 * nodes with the host network and the client certificates of the backups, in
 * the snapshots' serialization group (it never runs beside a snapshot). From
 * the local member it lists every member; it refuses to defragment anything
 * while a member is unhealthy or an alarm is raised (the run then succeeds
 * with the outcome `skipped`: the member or the alarm is alerted on its own);
 * else it defragments, one member at a time and the leader last, each member
 * whose fragmentation, `(dbSize - dbSizeInUse) / dbSize`, is above
 * `thresholdPercent`, and checks the member's health after each. Job settings
 * here are laid over `spec.defaults`, field by field.
 * See docs/engines/etcd.md#defragmentation.
 */
export interface EtcdDefragmentation extends JobSettings {
  /** When the defragmentation runs (5 fields or a macro, `H` fields hashed; the cron rules of every schedule). */
  readonly schedule: string;
  /**
   * Defragment only the members whose fragmentation is above this percentage
   * of their database file (1-99). 50 is where etcd's own Prometheus mixin
   * alerts (`etcdDatabaseHighFragmentationRatio`: in use / total below 0.5,
   * etcd-io/etcd#14221) and close to OpenShift's defragmentation controller
   * (`maxFragmentedPercentage` 45): a defragmentation blocks the member's reads
   * and writes while it copies the live data, and below that the freed pages
   * are mostly reused by the next writes anyway.
   * @default 50
   */
  readonly thresholdPercent?: number;
  /**
   * How long one member's defragmentation may take
   * (`etcdctl --command-timeout`); etcdctl's own default, 5s, is short for a
   * large database. Must be shorter than the run's `timeout`.
   * @default '5m'
   */
  readonly memberTimeout?: string;
}

export interface EtcdSpec {
  /**
   * `cluster`: one CronJob on any control-plane node, snapshotting its local
   * member. `perNode`: one CronJob per node in `nodes`, pinned by hostname,
   * staggered, and serialized so that two snapshots never run at once.
   * @default 'cluster'
   */
  readonly mode?: 'cluster' | 'perNode';
  /** `perNode` only: the control-plane nodes, by name or with their own job settings. */
  readonly nodes?: readonly (string | EtcdNodeSpec)[];
  /**
   * The cluster's distribution: certificate paths, node role and, for
   * OpenShift, the ServiceAccount and SecurityContextConstraints of the pods.
   * @default 'kubeadm'
   */
  readonly distribution?: EtcdDistribution;
  /** @default - the distribution's (kubeadm: 'control-plane'; openshift: 'master'; k3s, rke2: 'etcd') */
  readonly nodeRole?: EtcdNodeRole;
  /** Tolerate every taint (`operator: Exists`) instead of the role's taints. @default false */
  readonly tolerateAllTaints?: boolean;
  /** The local member's client URL (one endpoint: a snapshot comes from one member). @default 'https://127.0.0.1:2379' */
  readonly endpoint?: string;
  /** Use the node's network namespace (kubeadm's etcd listens on 127.0.0.1). @default true */
  readonly hostNetwork?: boolean;
  /** @default - the distribution's (kubeadm: the healthcheck client under /etc/kubernetes/pki/etcd) */
  readonly certificates?: EtcdCertificates;
  /** @default - hostPath /var/lib/etcd-backup */
  readonly destination?: EtcdDestination;
  /**
   * Further copies of every verified snapshot (with its metadata and control-plane files archive), each
   * in its own S3 bucket, endpoint or region, checked after the copy, with its own retention rules; a
   * failed copy is reported and never fails the backup. The finalize step then runs in the aws CLI
   * image, whatever the destination.
   * @default - none
   */
  readonly copies?: readonly S3Copy[];
  /**
   * File names are `<namePrefix><UTC RFC3339>_<node>.db` plus `<name>.json`.
   * Retention only ever touches names with this prefix.
   * @default `'etcd-snapshot_<policy name>_'`
   */
  readonly namePrefix?: string;
  /**
   * Which backups retention counts together: `node` = each node's own
   * snapshots; `cluster` = every snapshot of this policy (PVC and S3 only).
   * @default 'node'
   */
  readonly retentionScope?: 'node' | 'cluster';
  /**
   * Besides the checksum and `snapshot status`, restore each snapshot into a
   * scratch directory (proves it is restorable; needs about the database size
   * again, temporarily).
   * @default true
   */
  readonly restoreCheck?: boolean;
  /** Archive control-plane host files with each snapshot. @default - none */
  readonly controlPlaneFiles?: EtcdControlPlaneFiles;
  readonly images?: EtcdImages;
  /** Defaults of the restore Jobs that `backup-cronjobs restore` prints. @default - every field's default */
  readonly restore?: EtcdRestoreSpec;
  /** Scheduled defragmentation of the members (a maintenance CronJob). @default - none */
  readonly defragmentation?: EtcdDefragmentation;
}
