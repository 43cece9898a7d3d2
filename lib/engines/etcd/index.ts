/**
 * etcd control-plane snapshots: one CronJob (`cluster` mode) or one per
 * control-plane node (`perNode`). Each run's pod works with distroless etcd
 * images (no shell) and runs three steps in order, sharing an emptyDir (few
 * containers: each costs a start, and between init containers the kubelet
 * takes up to a second to notice that the previous one ended):
 *  1. init `tools` (busybox image): copies its static busybox into the scratch
 *     volume, with a link for each applet the next steps use;
 *  2. init `snapshot` (etcd image, that busybox's sh): asks the local member
 *     for its database size (`etcdctl endpoint status`), refuses when the work
 *     directory has less than 2 x that free, clears this series' leftovers;
 *     `etcdctl snapshot save` to a hidden temporary name; then its size and
 *     sha256 trailer, `etcdutl`/`etcdctl snapshot status -w json`, and a
 *     restore into a scratch directory, which checks that sha256 (without
 *     `restoreCheck`, sha256sum does);
 *  3. `finalize` (shell or aws CLI image): metadata file, then the atomic
 *     rename to the final name (or the upload and its size check), then
 *     retention, then metrics.
 * Any failing step fails the pod; nothing gets a final name before step 3.
 *
 * With `spec.retention.schedule`, step 3 applies no rules; retention-prune
 * CronJobs do (etcd-prune.sh, the same etcd_prune), in the same serialization
 * group: for a hostPath destination one per `perNode` node, pinned to it and
 * mounting only its directory (cluster mode names no nodes: refused); for a
 * PVC or S3 destination one for the policy, honouring `retentionScope`.
 */
import type { Container, EnvVar, Manifest, Volume, VolumeMount } from '../../k8s';
import { compact, nonEmpty } from '../../k8s';
import { restrictedContainerSecurity, restrictedPodSecurity } from '../../cronjob';
import { joinName, labelValue } from '../../names';
import { mergePlacement, renderPlacement } from '../../placement';
import { JOB_DEFAULTS } from '../../policy/defaults';
import { IssueList, childPath, show } from '../../policy/errors';
import { pruneEnv, prunesAfterBackup, retentionRules } from '../../policy/retention-options';
import type { RetentionOptions } from '../../policy/retention-options';
import type { BackupPolicy, JobSettings, Placement } from '../../policy/types';
import { BUCKET_RULES, retentionDestinationEnv } from '../../retention';
import type { RetentionDestination } from '../../retention';
import { containsHash, parseDuration } from '../../schedule';
import { ScriptFeatures, shellCommand } from '../../scripts';
import type { EnginePod, PodContext, Target } from '../../target';
import { mergeSettings } from '../../target';
import { ETCD_DEFAULTS, ETCD_PATHS, NODE_ROLES } from './defaults';
import { namedEntry, validateNamedEntries } from '../named-entries';
import { awsEnv, s3RetentionDestination, s3UploadEnv, validateS3 } from '../s3';
import type { EtcdNodeSpec, EtcdRestoreSpec, EtcdSpec } from './types';

export * from './types';
export { ETCD_DEFAULTS, ETCD_PATHS, NODE_ROLES } from './defaults';

const LABEL_PREFIX = 'backup-cronjobs.io';
const P = ETCD_PATHS;

/** A `nodes` entry as a name plus its own settings (none for a plain name). */
export const nodeEntry: (entry: string | EtcdNodeSpec) => { name: string; settings?: JobSettings } = namedEntry;

/** The file name prefix of a policy's snapshots: `spec.etcd.namePrefix`, else `etcd-snapshot_<policy>_`. */
export function etcdNamePrefix(policy: BackupPolicy): string {
  return policy.spec.etcd?.namePrefix ?? `${ETCD_DEFAULTS.namePrefixBase}${policy.metadata.name}_`;
}

type DestinationKind = 'hostPath' | 'persistentVolumeClaim' | 's3';

function destinationKind(spec: EtcdSpec): DestinationKind {
  const d = spec.destination;
  if (d?.s3) return 's3';
  if (d?.persistentVolumeClaim) return 'persistentVolumeClaim';
  return 'hostPath';
}

/** Checks beyond the schema (the per-node settings levels included). */
export function validateEtcd(policy: BackupPolicy, spec: EtcdSpec, path: string, issues: IssueList): void {
  const at = (field: string) => childPath(path, field);
  const mode = spec.mode ?? ETCD_DEFAULTS.mode;
  const nodes = (spec.nodes ?? []).map(nodeEntry);
  if (mode === 'perNode' && nodes.length === 0) {
    issues.add(at('nodes'), 'perNode mode needs the control-plane nodes to back up (one CronJob each)');
  }
  if (mode === 'cluster' && spec.nodes !== undefined) {
    issues.add(at('nodes'), 'only valid with mode: perNode (cluster mode runs on any node with the control-plane role)');
  }
  validateNamedEntries(spec.nodes ?? [], path, 'nodes', 'node', issues);

  const kind = destinationKind(spec);
  if ((spec.retentionScope ?? ETCD_DEFAULTS.retentionScope) === 'cluster' && kind === 'hostPath') {
    issues.add(at('retentionScope'), 'received "cluster"; a hostPath destination holds only its own node\'s snapshots, so retention can only count per node: use "node", or a PVC or S3 destination');
  }
  const s3 = spec.destination?.s3;
  if (s3) validateS3(s3, childPath(at('destination'), 's3'), issues);
  if (spec.certificates !== undefined && !isTls(spec)) {
    issues.add(at('certificates'), `only used with an https endpoint; the endpoint is ${show(spec.endpoint)}`);
  }

  const retention = policy.spec.retention as RetentionOptions | undefined;
  if (retention?.schedule !== undefined && kind === 'hostPath' && mode === 'cluster') {
    issues.add('spec.retention.schedule', 'a hostPath destination is pruned by one retention-prune CronJob per control-plane node (each node\'s directory is visible only there), and cluster mode names no nodes: use mode: perNode and list the control-plane nodes in spec.etcd.nodes, or a persistentVolumeClaim or s3 destination, or drop retention.schedule (each backup then prunes its own node\'s snapshots)');
  }
  const rules = retentionRules(retention);
  const usesBuckets = BUCKET_RULES.some((r) => rules?.[r] !== undefined);
  if (usesBuckets && kind !== 's3' && spec.images?.shell === undefined) {
    const zones = [policy.spec.defaults?.timeZone, ...nodes.map((n) => n.settings?.timeZone)].filter((z): z is string => z !== undefined && !/^(Etc\/)?UTC$/.test(z));
    if (zones.length > 0) {
      issues.add(at('images'), `bucket retention rules in time zone ${show(zones[0])} need zoneinfo, which the default busybox image lacks: set images.shell to an image with tzdata (e.g. alpine) or use timeZone UTC`);
    }
  }

  if (policy.spec.metrics?.pushgatewayUrl !== undefined && kind !== 's3' && spec.images?.shell === undefined) {
    issues.add(at('images'), 'metrics are pushed with curl, which the default busybox image lacks: set images.shell to an image with sh, curl and awk (e.g. curlimages/curl)');
  }

  const restore = spec.restore;
  if (restore) {
    const rPath = at('restore');
    const restoreNodes = restore.nodes ?? (mode === 'perNode' ? nodes.map((n) => n.name) : []);
    if (restoreNodes.length === 0) issues.add(childPath(rPath, 'nodes'), 'cluster mode names no nodes: list the nodes that get a restore Job');
    if (restoreNodes.length > 1 && restore.snapshot === undefined) {
      issues.add(childPath(rPath, 'snapshot'), `${restoreNodes.length} nodes restore: every member must restore the same snapshot, so name it (a file name of this policy)`);
    }
    if (restoreNodes.length > 1 && restore.initialCluster === undefined) {
      issues.add(childPath(rPath, 'initialCluster'), `${restoreNodes.length} nodes restore into one cluster: list every member as name=peerURL,...`);
    }
    const dup = restoreNodes.find((n, i) => restoreNodes.indexOf(n) !== i);
    if (dup !== undefined) issues.add(childPath(rPath, 'nodes'), `received ${show(dup)} twice; node names must be unique`);
    if (restore.snapshot !== undefined && !restore.snapshot.startsWith(etcdNamePrefix(policy))) {
      issues.add(childPath(rPath, 'snapshot'), `received ${show(restore.snapshot)}; a snapshot of this policy is named ${etcdNamePrefix(policy)}<time>_<node>${ETCD_DEFAULTS.extension}`);
    }
  }
}

function isTls(spec: EtcdSpec): boolean {
  return (spec.endpoint ?? ETCD_DEFAULTS.endpoint).startsWith('https://');
}

/**
 * One target per CronJob: the cluster-mode target, or one per node; then, when
 * retention has its own schedule, the retention-prune targets (one per node for
 * a hostPath destination, else one).
 */
export function etcdTargets(policy: BackupPolicy, spec: EtcdSpec, path: string): Target[] {
  const mode = spec.mode ?? ETCD_DEFAULTS.mode;
  const restores = restoreJobs(policy, spec);
  const nodes = (spec.nodes ?? []).map(nodeEntry);
  const backups = mode === 'cluster'
    ? [target(policy, spec, undefined, 'spec.defaults', restores)]
    : nodes.map((node, i) => {
      // Each node's restore Job follows its CronJob; those of other nodes follow the last one.
      const others = restores.filter((r) => !nodes.some((n) => n.name === r.node));
      const own = [...restores.filter((r) => r.node === node.name), ...(i === nodes.length - 1 ? others : [])];
      return target(policy, spec, node, node.settings ? childPath(childPath(path, 'nodes'), i) : 'spec.defaults', own);
    });
  const pruneSchedule = (policy.spec.retention as RetentionOptions | undefined)?.schedule;
  if (pruneSchedule === undefined) return backups;
  // Validation refuses hostPath in cluster mode: its prune jobs need the node names.
  const prunes = destinationKind(spec) === 'hostPath'
    ? nodes.map((node) => pruneTarget(policy, spec, mode, node, pruneSchedule))
    : [pruneTarget(policy, spec, mode, undefined, pruneSchedule)];
  return [...backups, ...prunes];
}

function target(
  policy: BackupPolicy,
  spec: EtcdSpec,
  node: { name: string; settings?: JobSettings } | undefined,
  settingsPath: string,
  restores: readonly { node: string; job: Manifest }[],
): Target {
  const mode = node ? 'perNode' : 'cluster';
  const user = mergeSettings(policy.spec.defaults, node?.settings);
  const staggered = node !== undefined && user.stagger === undefined && !containsHash(user.schedule ?? JOB_DEFAULTS.schedule);
  const settings: JobSettings = staggered ? { ...user, stagger: { window: ETCD_DEFAULTS.perNodeStaggerWindow } } : user;
  return {
    id: node ? `etcd|${policy.metadata.name}|${node.name}` : `etcd|${policy.metadata.name}`,
    nameParts: node ? [node.name] : [],
    component: 'backup',
    labels: {
      [`${LABEL_PREFIX}/etcd-mode`]: mode,
      ...(node ? { [`${LABEL_PREFIX}/node`]: labelValue(node.name) } : {}),
    },
    settings,
    settingsPath,
    defaultTimeout: ETCD_DEFAULTS.timeout,
    pod: (ctx) => backupPod(policy, spec, node?.name, settings, ctx),
    extraObjects: restores.map((r) => r.job),
  };
}

/**
 * A retention-prune CronJob: `<policy>-prune-<node>` for one node's hostPath
 * directory (that node's settings apply), or `<policy>-prune` for a PVC or S3
 * destination (`spec.defaults` apply).
 */
function pruneTarget(
  policy: BackupPolicy,
  spec: EtcdSpec,
  mode: 'cluster' | 'perNode',
  node: { name: string; settings?: JobSettings } | undefined,
  schedule: string,
): Target {
  const settings = mergeSettings(policy.spec.defaults, node?.settings);
  return {
    id: node ? `etcd|${policy.metadata.name}|prune|${node.name}` : `etcd|${policy.metadata.name}|prune`,
    nameParts: node ? ['prune', node.name] : ['prune'],
    component: 'retention-prune',
    labels: {
      [`${LABEL_PREFIX}/etcd-mode`]: mode,
      ...(node ? { [`${LABEL_PREFIX}/node`]: labelValue(node.name) } : {}),
    },
    settings,
    settingsPath: 'spec.retention',
    schedule,
    defaultTimeout: ETCD_DEFAULTS.pruneTimeout,
    pod: (ctx) => prunePod(policy, spec, node?.name, settings, ctx),
  };
}

// ---------------------------------------------------------------------------------------------
// pod pieces

const fieldEnv = (name: string, fieldPath: string): EnvVar => ({ name, valueFrom: { fieldRef: { fieldPath } } });

/** The engine's placement: role affinity, role tolerations (or all), pinning, serialization. */
function enginePlacement(spec: EtcdSpec, node: string | undefined, serialize: boolean): Placement {
  const role = NODE_ROLES[spec.nodeRole ?? ETCD_DEFAULTS.nodeRole];
  return {
    nodeSelector: node ? { 'kubernetes.io/hostname': node } : undefined,
    nodeAffinity: [{ key: role.label, operator: 'Exists' }],
    tolerations: spec.tolerateAllTaints ?? ETCD_DEFAULTS.tolerateAllTaints
      ? [{ operator: 'Exists' }]
      : role.taints.map((t) => ({ key: t.key, operator: 'Exists' as const, effect: t.effect })),
    serializationGroup: serialize ? { name: ETCD_DEFAULTS.serializationGroup, scope: 'cluster' } : undefined,
  };
}

/** uid 0 (kubeadm's client key is root:root 0600), no capabilities, RuntimeDefault seccomp. */
function podSecurity(): Record<string, unknown> {
  return { runAsUser: 0, runAsGroup: 0, runAsNonRoot: false, seccompProfile: { type: 'RuntimeDefault' } };
}

/** Paths and volumes of the destination. */
interface Layout {
  readonly dest: DestinationKind;
  /** Where the snapshot is written and verified: the destination directory (same filesystem as the final name) or scratch. */
  readonly workDir: string;
  readonly volumes: Volume[];
  /** Mount of the destination (none for S3). */
  readonly mount?: VolumeMount;
}

function layout(spec: EtcdSpec): Layout {
  const d = spec.destination;
  const dest = destinationKind(spec);
  if (dest === 's3') return { dest, workDir: P.scratch, volumes: [] };
  if (dest === 'persistentVolumeClaim') {
    return {
      dest,
      workDir: P.backup,
      volumes: [{ name: 'backup', persistentVolumeClaim: { claimName: d!.persistentVolumeClaim!.claimName } }],
      mount: { name: 'backup', mountPath: P.backup, subPath: d!.persistentVolumeClaim!.subPath },
    };
  }
  return {
    dest,
    workDir: P.backup,
    volumes: [{ name: 'backup', hostPath: { path: d?.hostPath?.path ?? ETCD_DEFAULTS.hostPath, type: 'DirectoryOrCreate' } }],
    mount: { name: 'backup', mountPath: P.backup },
  };
}

/**
 * Where the snapshots of this policy live, in the retention contract's
 * variables: those of the node in `ETCD_BACKUP_NODE` (an env var set before
 * these), or with `allNodes` no name suffix (etcd-prune.sh sets one per node).
 */
function destinationEnv(policy: BackupPolicy, spec: EtcdSpec, l: Layout, allNodes = false): EnvVar[] {
  const namePrefix = etcdNamePrefix(policy);
  const nameSuffix = allNodes ? '' : `_$(ETCD_BACKUP_NODE)${ETCD_DEFAULTS.extension}`;
  const sidecarSuffixes = [ETCD_DEFAULTS.metadataSuffix];
  const s3 = spec.destination?.s3;
  const dest: RetentionDestination = s3
    ? s3RetentionDestination(s3, { namePrefix, nameSuffix, sidecarSuffixes })
    : { kind: 'dir', dir: l.workDir, namePrefix, nameSuffix, sidecarSuffixes };
  return [
    ...retentionDestinationEnv(dest),
    { name: 'ETCD_BACKUP_EXTENSION', value: ETCD_DEFAULTS.extension },
    { name: 'ETCD_BACKUP_RETENTION_SCOPE', value: spec.retentionScope ?? ETCD_DEFAULTS.retentionScope },
  ];
}

/** Region, credentials and upload options for the aws CLI (none without an S3 destination). */
function s3Env(spec: EtcdSpec): EnvVar[] {
  const s3 = spec.destination?.s3;
  return s3 ? [...awsEnv(s3), ...s3UploadEnv(s3)] : [];
}

/** The etcd client's env (etcdctl reads ETCDCTL_<FLAG>): one endpoint, the client certificate. */
function etcdctlEnv(spec: EtcdSpec): EnvVar[] {
  const c = spec.certificates ?? {};
  return [
    { name: 'ETCDCTL_API', value: '3' },
    { name: 'ETCDCTL_ENDPOINTS', value: spec.endpoint ?? ETCD_DEFAULTS.endpoint },
    { name: 'ETCDCTL_DIAL_TIMEOUT', value: ETCD_DEFAULTS.dialTimeout },
    ...(isTls(spec)
      ? [
        { name: 'ETCDCTL_CACERT', value: `${P.certs}/${c.caFile ?? ETCD_DEFAULTS.caFile}` },
        { name: 'ETCDCTL_CERT', value: `${P.certs}/${c.certFile ?? ETCD_DEFAULTS.certFile}` },
        { name: 'ETCDCTL_KEY', value: `${P.certs}/${c.keyFile ?? ETCD_DEFAULTS.keyFile}` },
      ]
      : []),
  ];
}

function certVolumes(spec: EtcdSpec): { volumes: Volume[]; mounts: VolumeMount[] } {
  if (!isTls(spec)) return { volumes: [], mounts: [] };
  return {
    volumes: [{ name: 'etcd-certs', hostPath: { path: spec.certificates?.hostPath ?? ETCD_DEFAULTS.certHostPath, type: 'Directory' } }],
    mounts: [{ name: 'etcd-certs', mountPath: P.certs, readOnly: true }],
  };
}

/** Env of the steps that run busybox's sh inside the etcd image. */
const toolsEnv: EnvVar[] = [
  { name: 'ETCD_BACKUP_TOOLS', value: P.tools },
  { name: 'PATH', value: `${P.tools}:/usr/local/bin:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin` },
  { name: 'HOME', value: P.scratch },
  { name: 'TMPDIR', value: P.scratch },
];

const scratchMount: VolumeMount = { name: 'scratch', mountPath: P.scratch };

/** The `tools` init container: static busybox and its applet links into the scratch volume. */
function toolsContainer(spec: EtcdSpec, commonEnv: readonly EnvVar[]): Container {
  return {
    name: 'tools',
    image: spec.images?.busybox ?? ETCD_DEFAULTS.busyboxImage,
    command: shellCommand('etcd-tools.sh'),
    env: [...commonEnv, { name: 'ETCD_BACKUP_TOOLS', value: P.tools }],
    volumeMounts: [scratchMount],
    securityContext: restrictedContainerSecurity(),
  };
}

/** A step that runs `entry` with busybox's sh (copied by `tools`) inside the etcd image. */
function etcdShellCommand(entry: string, features: ScriptFeatures = {}): string[] {
  const [, ...rest] = shellCommand(entry, features);
  return ['$(ETCD_BACKUP_TOOLS)/sh', ...rest];
}

function backupPod(policy: BackupPolicy, spec: EtcdSpec, pinned: string | undefined, settings: JobSettings, ctx: PodContext): EnginePod {
  const commonEnv = ctx.env;
  const l = layout(spec);
  const certs = certVolumes(spec);
  const etcdImage = spec.images?.etcd ?? ETCD_DEFAULTS.etcdImage;
  const prefix = etcdNamePrefix(policy);
  const nodeEnv = fieldEnv('ETCD_BACKUP_NODE', 'spec.nodeName');
  const workMounts = l.mount ? [l.mount, scratchMount] : [scratchMount];
  const partialEnv: EnvVar = { name: 'ETCD_BACKUP_PARTIAL', value: `${l.workDir}/.${prefix}$(ETCD_BACKUP_NODE).partial` };
  const pathEnv: EnvVar[] = [
    { name: 'ETCD_BACKUP_SCRATCH', value: P.scratch },
    { name: 'ETCD_BACKUP_WORK_DIR', value: l.workDir },
    partialEnv,
    { name: 'ETCD_BACKUP_RESTORE_CHECK_DIR', value: `${l.workDir}/.${prefix}$(ETCD_BACKUP_NODE).restore-check` },
  ];

  const snapshot: Container = {
    name: 'snapshot',
    image: etcdImage,
    command: etcdShellCommand('etcd-snapshot.sh'),
    env: [
      ...commonEnv,
      nodeEnv,
      ...toolsEnv,
      ...pathEnv,
      ...etcdctlEnv(spec),
      // for `endpoint status` only: in the env, ETCDCTL_COMMAND_TIMEOUT would also bound `snapshot save`
      { name: 'ETCD_BACKUP_STATUS_TIMEOUT', value: ETCD_DEFAULTS.commandTimeout },
      { name: 'ETCD_BACKUP_FREE_SPACE_FACTOR', value: String(ETCD_DEFAULTS.freeSpaceFactor) },
      { name: 'ETCD_BACKUP_RESTORE_CHECK', value: String(spec.restoreCheck ?? ETCD_DEFAULTS.restoreCheck) },
    ],
    volumeMounts: [...certs.mounts, ...workMounts],
    securityContext: restrictedContainerSecurity(),
  };
  const retention = policy.spec.retention as RetentionOptions | undefined;
  const finalize: Container = {
    name: 'finalize',
    image: l.dest === 's3' ? spec.images?.awsCli ?? ETCD_DEFAULTS.awsCliImage : spec.images?.shell ?? spec.images?.busybox ?? ETCD_DEFAULTS.busyboxImage,
    command: shellCommand('etcd-finalize.sh', { metrics: ctx.metrics }),
    env: [
      ...commonEnv,
      nodeEnv,
      { name: 'HOME', value: P.scratch },
      { name: 'TMPDIR', value: P.scratch },
      ...pathEnv,
      { name: 'ETCD_BACKUP_ENDPOINT', value: spec.endpoint ?? ETCD_DEFAULTS.endpoint },
      ...destinationEnv(policy, spec, l),
      // A separate retention-prune CronJob replaces pruning after each backup.
      ...(prunesAfterBackup(retention) ? pruneEnv(retention, settings.timeZone) : []),
      ...s3Env(spec),
    ],
    volumeMounts: workMounts,
    securityContext: restrictedContainerSecurity(),
  };
  return {
    initContainers: [toolsContainer(spec, commonEnv), snapshot],
    containers: [finalize],
    mainContainers: ['snapshot', 'finalize'],
    volumes: [...certs.volumes, ...l.volumes, { name: 'scratch', emptyDir: {} }],
    securityContext: podSecurity(),
    hostNetwork: (spec.hostNetwork ?? ETCD_DEFAULTS.hostNetwork) || undefined,
    placement: enginePlacement(spec, pinned, true),
    priorityClassName: ETCD_DEFAULTS.priorityClassName,
  };
}

/**
 * The retention-prune pod: one `retention-prune` container running
 * etcd-prune.sh in the finalize step's image. Least privilege per destination:
 * - hostPath (`node` set): pinned to the node, that one directory mounted,
 *   uid 0 (the snapshots are root's, mode 0600), no host network;
 * - PVC: on the control-plane role's nodes (where the backups mount the
 *   volume), uid 0 for the same reason, no host network;
 * - S3: on the same nodes and network as the backups (so the endpoint and the
 *   ambient credentials are the ones the uploads used), non-root, no volume
 *   besides scratch.
 * Every variant: no capabilities, read-only root filesystem, no API token,
 * serialization group `etcd-snapshot` (never next to a snapshot).
 */
function prunePod(policy: BackupPolicy, spec: EtcdSpec, node: string | undefined, settings: JobSettings, ctx: PodContext): EnginePod {
  const l = layout(spec);
  const s3 = spec.destination?.s3;
  const retention = policy.spec.retention as RetentionOptions | undefined;
  const prune: Container = {
    name: 'retention-prune',
    image: s3 ? spec.images?.awsCli ?? ETCD_DEFAULTS.awsCliImage : spec.images?.shell ?? spec.images?.busybox ?? ETCD_DEFAULTS.busyboxImage,
    command: shellCommand('etcd-prune.sh'),
    env: [
      ...ctx.env,
      ...(node ? [fieldEnv('ETCD_BACKUP_NODE', 'spec.nodeName')] : []),
      { name: 'HOME', value: P.scratch },
      { name: 'TMPDIR', value: P.scratch },
      ...destinationEnv(policy, spec, l, node === undefined),
      ...pruneEnv(retention, settings.timeZone),
      ...(s3 ? awsEnv(s3) : []),
    ],
    volumeMounts: l.mount ? [l.mount, scratchMount] : [scratchMount],
    securityContext: restrictedContainerSecurity(),
  };
  return {
    containers: [prune],
    mainContainers: ['retention-prune'],
    volumes: [...l.volumes, { name: 'scratch', emptyDir: {} }],
    securityContext: s3 ? restrictedPodSecurity(ETCD_DEFAULTS.s3PruneUid) : podSecurity(),
    hostNetwork: s3 ? (spec.hostNetwork ?? ETCD_DEFAULTS.hostNetwork) || undefined : undefined,
    placement: enginePlacement(spec, node, true),
  };
}

// ---------------------------------------------------------------------------------------------
// restore Jobs

/** The suspended restore Job of each restore node (validated policies only). */
export function restoreJobs(policy: BackupPolicy, spec: EtcdSpec): { node: string; job: Manifest }[] {
  const restore = spec.restore;
  if (!restore) return [];
  const nodes = restore.nodes ?? ((spec.mode ?? ETCD_DEFAULTS.mode) === 'perNode' ? (spec.nodes ?? []).map((n) => nodeEntry(n).name) : []);
  return nodes.map((node) => ({ node, job: restoreJob(policy, spec, restore, node) }));
}

function restoreJob(policy: BackupPolicy, spec: EtcdSpec, restore: EtcdRestoreSpec, node: string): Manifest {
  const l = layout(spec);
  const name = joinName([policy.metadata.name, 'restore', node], 63);
  const namespace = policy.metadata.namespace ?? JOB_DEFAULTS.namespace;
  const settings = mergeSettings(policy.spec.defaults);
  const labels = {
    ...policy.metadata.labels,
    'app.kubernetes.io/name': 'backup-cronjobs',
    'app.kubernetes.io/instance': policy.metadata.name,
    'app.kubernetes.io/component': 'restore',
    'app.kubernetes.io/managed-by': 'backup-cronjobs',
    'backup-cronjobs.io/policy': policy.metadata.name,
    'backup-cronjobs.io/engine': 'etcd',
    [`${LABEL_PREFIX}/node`]: labelValue(node),
  };
  const placement = renderPlacement(mergePlacement(enginePlacement(spec, node, false), settings.placement), namespace);
  const etcdImage = spec.images?.etcd ?? ETCD_DEFAULTS.etcdImage;
  const commonEnv: EnvVar[] = [
    { name: 'BACKUP_JOB', value: name },
    { name: 'BACKUP_POLICY', value: policy.metadata.name },
    { name: 'BACKUP_ENGINE', value: 'etcd' },
  ];
  const sourceDir = l.dest === 's3' ? P.scratch : P.backup;
  const sourceMounts: VolumeMount[] = l.mount ? [{ ...l.mount, readOnly: true }] : [];
  const restoreEnv: EnvVar[] = [
    fieldEnv('ETCD_BACKUP_NODE', 'spec.nodeName'),
    fieldEnv('ETCD_RESTORE_NODE', 'spec.nodeName'),
    fieldEnv('ETCD_RESTORE_HOST_IP', 'status.hostIP'),
    { name: 'ETCD_RESTORE_SNAPSHOT', value: restore.snapshot ?? '' },
    { name: 'ETCD_RESTORE_SOURCE_DIR', value: sourceDir },
    { name: 'ETCD_BACKUP_SCRATCH', value: P.scratch },
    ...destinationEnv(policy, spec, l),
  ];
  const fetch: Container | undefined = l.dest === 's3'
    ? {
      name: 'fetch',
      image: spec.images?.awsCli ?? ETCD_DEFAULTS.awsCliImage,
      command: shellCommand('etcd-fetch.sh'),
      env: [...commonEnv, { name: 'HOME', value: P.scratch }, { name: 'TMPDIR', value: P.scratch }, ...restoreEnv, ...s3Env(spec)],
      volumeMounts: [scratchMount],
      securityContext: restrictedContainerSecurity(),
    }
    : undefined;
  const peerUrl = restore.peerUrl ?? ETCD_DEFAULTS.restorePeerUrl;
  const main: Container = {
    name: 'restore',
    image: etcdImage,
    command: etcdShellCommand('etcd-restore.sh'),
    env: [
      ...commonEnv,
      ...toolsEnv,
      ...restoreEnv,
      { name: 'ETCD_RESTORE_PEER_URL', value: peerUrl },
      { name: 'ETCD_RESTORE_INITIAL_CLUSTER', value: restore.initialCluster ?? '$(ETCD_RESTORE_NODE)=$(ETCD_RESTORE_PEER_URL)' },
      { name: 'ETCD_RESTORE_TARGET_ROOT', value: P.restore },
      { name: 'ETCD_RESTORE_HOST_DIR', value: restore.hostPath ?? ETCD_DEFAULTS.restoreHostPath },
      ...(restore.bumpRevision !== undefined ? [{ name: 'ETCD_RESTORE_BUMP_REVISION', value: String(restore.bumpRevision) }] : []),
    ],
    volumeMounts: [...sourceMounts, scratchMount, { name: 'restore', mountPath: P.restore }],
    securityContext: restrictedContainerSecurity(),
  };
  const pod = settings.pod ?? {};
  const pullPolicy = pod.imagePullPolicy ?? JOB_DEFAULTS.imagePullPolicy;
  const containers = (list: (Container | undefined)[]) => list.filter((c): c is Container => c !== undefined).map((c) => ({ ...c, imagePullPolicy: pullPolicy }));
  const suspend = restore.suspend ?? ETCD_DEFAULTS.restoreSuspend;
  // Pulumi's Job await logic waits for completion: a suspended Job would time out `pulumi up`.
  const annotations = nonEmpty({ ...policy.metadata.annotations, ...(suspend ? { 'pulumi.com/skipAwait': 'true' } : {}) });
  return compact({
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, namespace, labels, annotations },
    spec: {
      suspend,
      backoffLimit: 0,
      activeDeadlineSeconds: parseDuration(settings.timeout ?? ETCD_DEFAULTS.timeout),
      template: {
        metadata: { labels },
        spec: {
          restartPolicy: 'Never',
          automountServiceAccountToken: false,
          priorityClassName: pod.priorityClassName ?? ETCD_DEFAULTS.priorityClassName,
          imagePullSecrets: pod.imagePullSecrets?.map((s) => ({ name: s })),
          nodeSelector: placement.nodeSelector,
          affinity: placement.affinity,
          tolerations: placement.tolerations,
          securityContext: podSecurity(),
          initContainers: containers([toolsContainer(spec, commonEnv), fetch]),
          containers: containers([main]),
          volumes: [
            ...l.volumes,
            { name: 'scratch', emptyDir: {} },
            { name: 'restore', hostPath: { path: restore.hostPath ?? ETCD_DEFAULTS.restoreHostPath, type: 'DirectoryOrCreate' } },
          ],
        },
      },
    },
  });
}
