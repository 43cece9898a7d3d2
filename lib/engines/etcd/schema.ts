import { DISTRIBUTIONS, ETCD_DEFAULTS, NODE_VARIABLE } from './defaults';
import {
  PATTERNS,
  Schema,
  arr,
  bool,
  cron,
  duration,
  image,
  int,
  named,
  nonEmptyStr,
  obj,
  objectName,
  str,
  strEnum,
  withMeta,
} from '../../policy/schema-builders';
import { jobSettingsProperties } from '../../policy/schema-settings';
import { s3DestinationSchema } from '../s3';
import { s3CopiesSchema } from '../s3-copies';

const DISTRIBUTION_NAMES = Object.keys(DISTRIBUTIONS);

/** A node name as Kubernetes allows it (a DNS-1123 subdomain). */
const nodeName = (description: string): Schema => str(description, { pattern: PATTERNS.dnsSubdomain, maxLength: 253 });

/** A file under the certificates' host directory: a relative path without whitespace ("." and ".." segments are refused by validate). */
const certFile = (description: string): Schema =>
  nonEmptyStr(description, { pattern: '^[^/\\s]+(/[^/\\s]+)*$', maxLength: 1024 });

/**
 * A node: its name, or an object with the name and per-node job settings.
 * One schema for both (type-specific keywords apply to their type only).
 */
const node: Schema = named('EtcdNodeSpec', {
  type: ['string', 'object'],
  description:
    'A control-plane node (its kubernetes.io/hostname label), or {name, ...job settings} to override settings for this node.',
  pattern: PATTERNS.dnsSubdomain,
  maxLength: 253,
  additionalProperties: false,
  properties: { name: nodeName('The node (its kubernetes.io/hostname label).'), ...jobSettingsProperties },
  required: ['name'],
});

/** Schema of `spec.etcd`. */
export const etcdSchema = named(
  'EtcdSpec',
  obj('etcd control-plane snapshots.', {
    mode: strEnum(
      'cluster: one CronJob on any control-plane node; perNode: one CronJob per node in nodes.',
      ['cluster', 'perNode'],
      { default: ETCD_DEFAULTS.mode },
    ),
    nodes: arr('perNode: the control-plane nodes, by name or with their own job settings.', node, { minItems: 1 }),
    distribution: strEnum(
      "The cluster's distribution: certificate paths and node role (explicit fields win); openshift also renders the pods' ServiceAccount, SecurityContextConstraints, Role and RoleBinding.",
      DISTRIBUTION_NAMES,
      { default: ETCD_DEFAULTS.distribution },
    ),
    nodeRole: withMeta(
      strEnum(
        "Role label of the nodes (control-plane: kubeadm; master: OpenShift; etcd: k3s/RKE2). Default: the distribution's.",
        ['control-plane', 'master', 'etcd'],
      ),
      { defaultText: "the distribution's (kubeadm: 'control-plane'; openshift: 'master'; k3s, rke2: 'etcd')" },
    ),
    tolerateAllTaints: bool('Tolerate every taint instead of the role taints.', {
      default: ETCD_DEFAULTS.tolerateAllTaints,
    }),
    endpoint: str("The local member's client URL.", {
      pattern: '^https?://[^\\s/",]+$',
      default: ETCD_DEFAULTS.endpoint,
    }),
    hostNetwork: bool('Use the node network (etcd listens on 127.0.0.1).', { default: ETCD_DEFAULTS.hostNetwork }),
    certificates: withMeta(
      named(
        'EtcdCertificates',
        obj(
          "Client certificates in a host directory (mounted read-only). Default: the distribution's, field by field.",
          {
            hostPath: withMeta(
              str(`Host directory (kubeadm: ${DISTRIBUTIONS.kubeadm.certificates.hostPath}).`, {
                pattern: PATTERNS.absolutePath,
              }),
              { defaultText: "the distribution's (kubeadm: '/etc/kubernetes/pki/etcd')" },
            ),
            caFile: withMeta(
              certFile(`CA bundle, relative to hostPath (kubeadm: ${DISTRIBUTIONS.kubeadm.certificates.caFile}).`),
              { defaultText: "the distribution's (kubeadm: 'ca.crt')" },
            ),
            certFile: withMeta(
              certFile(
                `Client certificate, relative to hostPath; $(${NODE_VARIABLE}) is the node's name (kubeadm: ${DISTRIBUTIONS.kubeadm.certificates.certFile}).`,
              ),
              { defaultText: "the distribution's (kubeadm: 'healthcheck-client.crt')" },
            ),
            keyFile: withMeta(
              certFile(
                `Client key, relative to hostPath; $(${NODE_VARIABLE}) is the node's name (kubeadm: ${DISTRIBUTIONS.kubeadm.certificates.keyFile}).`,
              ),
              { defaultText: "the distribution's (kubeadm: 'healthcheck-client.key')" },
            ),
          },
        ),
      ),
      { defaultText: "the distribution's (kubeadm: the healthcheck client under /etc/kubernetes/pki/etcd)" },
    ),
    destination: withMeta(
      named(
        'EtcdDestination',
        obj(
          'Where snapshots go: exactly one (default hostPath /var/lib/etcd-backup).',
          {
            hostPath: named(
              'EtcdHostPathDestination',
              obj('A directory on each node.', {
                path: str('Host directory.', { pattern: '^/.*[^/]$', default: ETCD_DEFAULTS.hostPath }),
              }),
            ),
            persistentVolumeClaim: named(
              'EtcdPvcDestination',
              obj(
                'A PersistentVolumeClaim.',
                {
                  claimName: objectName('PersistentVolumeClaim', 'Claim name.'),
                  subPath: withMeta(nonEmptyStr('Sub-path in the volume.', { pattern: '^[^/](.*[^/])?$' }), {
                    defaultText: "the volume's root",
                  }),
                  fsGroup: withMeta(
                    int(
                      'The volume honours fsGroup (CSI fsGroupPolicy File, or ReadWriteOnceWithFSType for a ReadWriteOnce volume with an fsType): the backup and prune pods get this fsGroup and the retention-prune pod runs as non-root (uid 65534). Unset: the prune pod runs as uid 0 without capabilities.',
                      1,
                      2147483647,
                    ),
                    { defaultText: 'unset: the prune pod runs as uid 0' },
                  ),
                },
                ['claimName'],
              ),
            ),
            s3: s3DestinationSchema(
              'S3 or an S3-compatible store.',
              'S3-compatible endpoint URL (must resolve from the node).',
            ),
          },
          [],
          { minProperties: 1, maxProperties: 1 },
        ),
      ),
      { defaultText: 'hostPath /var/lib/etcd-backup' },
    ),
    copies: withMeta(s3CopiesSchema('S3-compatible endpoint URL (must resolve from the node).'), {
      defaultText: 'none',
    }),
    namePrefix: nonEmptyStr('File name prefix (default etcd-snapshot_<policy>_).', {
      pattern: '^[A-Za-z0-9][-A-Za-z0-9._]*$',
      maxLength: 100,
    }),
    retentionScope: strEnum(
      "node: each node's snapshots count on their own; cluster: all snapshots of the policy (PVC, S3).",
      ['node', 'cluster'],
      { default: ETCD_DEFAULTS.retentionScope },
    ),
    restoreCheck: bool('Restore each snapshot into a scratch directory as part of the check.', {
      default: ETCD_DEFAULTS.restoreCheck,
    }),
    controlPlaneFiles: withMeta(
      named(
        'EtcdControlPlaneFiles',
        obj(
          `Archive control-plane host files with each snapshot (<snapshot name>${ETCD_DEFAULTS.controlPlaneFilesSuffix}, .age after it when encrypted); it holds private keys: needs spec.encryption unless allowUnencrypted.`,
          {
            paths: arr(
              'Host directories (read-only; regular files and symlinks, recursively). Default per distribution: kubeadm /etc/kubernetes/pki and /etc/kubernetes/manifests; openshift /etc/kubernetes/static-pod-resources; k3s /var/lib/rancher/k3s/server/tls; rke2 /var/lib/rancher/rke2/server/tls and /var/lib/rancher/rke2/agent/pod-manifests.',
              str('A host directory.', { pattern: '^/[^\\s]*[^/\\s]$' }),
              {
                minItems: 1,
                uniqueItems: true,
              },
            ),
            allowUnencrypted: bool('Store the archive in the clear without spec.encryption.', {
              default: ETCD_DEFAULTS.controlPlaneFilesAllowUnencrypted,
            }),
          },
        ),
      ),
      { defaultText: 'none' },
    ),
    images: withMeta(
      named(
        'EtcdImages',
        obj('Images.', {
          etcd: image('etcd image (etcdctl; etcdutl for 3.5+).', { default: ETCD_DEFAULTS.etcdImage }),
          busybox: image('Image with a statically linked busybox.', { default: ETCD_DEFAULTS.busyboxImage }),
          shell: withMeta(image('Shell image for hostPath/PVC (default: the busybox image).'), {
            defaultText: 'the busybox image',
          }),
          awsCli: image('aws CLI v2 image for S3.', { default: ETCD_DEFAULTS.awsCliImage }),
        }),
      ),
      { passThroughFields: 'name' },
    ),
    restore: withMeta(
      named(
        'EtcdRestoreSpec',
        obj('Defaults of the restore Jobs that `backup-cronjobs restore` prints.', {
          initialCluster: withMeta(
            nonEmptyStr('--initial-cluster: name=peerURL,... (default: a one-member cluster).', {
              pattern: '^[^=,\\s]+=[^=,\\s]+(,[^=,\\s]+=[^=,\\s]+)*$',
            }),
            { defaultText: 'a one-member cluster: `<node>=https://<node IP>:2380`' },
          ),
          peerUrl: nonEmptyStr('--initial-advertise-peer-urls.', {
            pattern: '^https?://\\S+$',
            default: ETCD_DEFAULTS.restorePeerUrl,
          }),
          hostPath: str('Host directory receiving the restored data directory.', {
            pattern: '^/.*[^/]$',
            default: ETCD_DEFAULTS.restoreHostPath,
          }),
          bumpRevision: withMeta(
            int(
              'Bump revisions by this much and mark them compacted (needs an etcdutl with --bump-revision, e.g. 3.6).',
              1,
              Number.MAX_SAFE_INTEGER,
            ),
            { defaultText: 'not bumped' },
          ),
        }),
      ),
      { defaultText: "every field's default" },
    ),
    defragmentation: withMeta(
      named(
        'EtcdDefragmentation',
        obj(
          "Scheduled defragmentation of the members: one CronJob <policy>-defrag for the cluster, in the snapshots' serialization group; one member at a time, the leader last, only those above thresholdPercent, nothing while a member is unhealthy or an alarm is raised. Job settings over spec.defaults.",
          {
            ...jobSettingsProperties,
            schedule: cron('When the defragmentation runs (5 fields or a macro; H fields are hashed).', {
              minLength: 1,
            }),
            thresholdPercent: int(
              'Defragment only members whose fragmentation, (dbSize - dbSizeInUse) / dbSize, is above this percentage.',
              1,
              99,
              { default: ETCD_DEFAULTS.defragThresholdPercent },
            ),
            memberTimeout: duration("One member's defragmentation may take this long (etcdctl --command-timeout).", {
              default: ETCD_DEFAULTS.defragMemberTimeout,
            }),
          },
          ['schedule'],
        ),
      ),
      { defaultText: 'none' },
    ),
  }),
);
