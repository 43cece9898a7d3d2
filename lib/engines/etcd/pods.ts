/**
 * The etcd pods. A backup run works with distroless etcd images (no shell)
 * and runs its steps in order, sharing an emptyDir (few containers: each
 * costs a start, and between init containers the kubelet takes up to a second
 * to notice that the previous one ended):
 *  1. init `tools` (busybox image): copies its static busybox into the scratch
 *     volume, with a link for each applet the next steps use;
 *  2. init `snapshot` (etcd image, that busybox's sh): asks the local member
 *     for its database size (`etcdctl endpoint status`), refuses when the work
 *     directory has less than 2 x that free, clears this series' leftovers;
 *     archives the control-plane files (`controlPlaneFiles`) and lists them
 *     back; `etcdctl snapshot save` to a hidden temporary name; then its size
 *     and sha256 trailer, `etcdutl`/`etcdctl snapshot status -w json`, and a
 *     restore into a scratch directory, which checks that sha256 (without
 *     `restoreCheck`, sha256sum does);
 *  3. with `spec.encryption`, init `encrypt` (the age image): age streams the
 *     verified snapshot (and archive) into hidden temporary names in the
 *     destination (S3: in scratch), counting the ciphertext and its sha256;
 *     the clear snapshot never leaves scratch (the work directory is scratch);
 *  4. `finalize` (shell or aws CLI image): metadata file, then the atomic
 *     renames to the final names (or the uploads and their size checks), then
 *     retention, then metrics.
 * Any failing step fails the pod; nothing gets a final name before the last step.
 */
import type { EngineContainer, EngineEnvVar, EnvVar, Volume, VolumeMount } from '../../kubernetes/objects';
import { expand, expandOnly, literal } from '../../kubernetes/expansion';
import { pruneEnv, prunesAfterBackup } from '../../policy/retention-options';
import type { Placement } from '../../policy/types';
import { retentionDestinationEnv } from '../../retention';
import type { RetentionDestination } from '../../retention';
import { ScriptCommand, ScriptFeatures, shellCommand } from '../../scripts';
import { STEP_RESOURCES } from '../../workload/resources';
import { restrictedContainerSecurity, rootPodSecurity } from '../../workload/security';
import type { EnginePod, PodContext, PolicyContext } from '../engine';
import { ENCRYPTED_SUFFIX, ageContainer, ageRecipientsParts } from '../../workload/encryption';
import { awsEnv, s3CaMounts, s3CaVolumes, s3RetentionDestination, s3UploadEnv } from '../s3';
import { s3CopiesEnv } from '../s3-copies';
import { contentCheckEnv } from '../../workload/content-checks';
import { ETCD_ALARMS, ETCD_DEFAULTS, ETCD_PATHS as P, NODE_VARIABLE } from './defaults';
import { snapshotGroup, stepsInAwsCli } from './resolve';
import type { ResolvedEtcd } from './resolve';
import { destinationKind } from './destinations';
import type { Layout } from './destinations';

export type { Layout } from './destinations';

export const fieldEnv = (name: string, fieldPath: string): EnvVar => ({ name, valueFrom: { fieldRef: { fieldPath } } });

/** The engine's placement: role affinity, role tolerations (or all), pinning, serialization. */
export function enginePlacement(spec: ResolvedEtcd, node: string | undefined, serialize: boolean): Placement {
  return {
    nodeSelector: node ? { 'kubernetes.io/hostname': node } : undefined,
    nodeAffinity: [{ key: spec.role.label, operator: 'Exists' }],
    tolerations: spec.tolerateAllTaints
      ? [{ operator: 'Exists' }]
      : spec.role.taints.map((t) => ({ key: t.key, operator: 'Exists' as const, effect: t.effect })),
    serializationGroup: serialize ? snapshotGroup(undefined) : undefined,
  };
}

/** Paths and volumes of the destination (its kind's row). */
export function layout(spec: ResolvedEtcd, encrypted = false): Layout {
  return destinationKind(spec.destination).layout(spec.destination, encrypted);
}

/**
 * Where the snapshots of this policy live, in the retention contract's
 * variables: those of the node in `ETCD_BACKUP_NODE` (an env var set before
 * these), or with `allNodes` no name suffix (etcd-prune.sh sets one per node).
 */
export function destinationEnv(spec: ResolvedEtcd, allNodes = false): EngineEnvVar[] {
  const namePrefix = spec.namePrefix;
  const nameSuffix = allNodes ? '' : expand(`_$(ETCD_BACKUP_NODE)${literal(ETCD_DEFAULTS.extension)}`);
  // the files archive always: its snapshots outlive a policy that stops archiving
  const sidecarSuffixes = [ETCD_DEFAULTS.metadataSuffix, ETCD_DEFAULTS.controlPlaneFilesSuffix];
  const d = spec.destination;
  const dest: RetentionDestination =
    d.kind === 's3'
      ? s3RetentionDestination(d.s3, { namePrefix, nameSuffix, sidecarSuffixes })
      : { kind: 'dir', dir: P.backup, namePrefix, nameSuffix, sidecarSuffixes };
  return [
    ...retentionDestinationEnv(dest),
    { name: 'ETCD_BACKUP_EXTENSION', value: ETCD_DEFAULTS.extension },
    { name: 'ETCD_BACKUP_RETENTION_SCOPE', value: spec.retentionScope },
  ];
}

/** Region, credentials and upload options for the aws CLI (none without an S3 destination). */
export function s3Env(spec: ResolvedEtcd): EnvVar[] {
  const d = spec.destination;
  return d.kind === 's3' ? [...awsEnv(d.s3), ...s3UploadEnv(d.s3)] : [];
}

/** The S3 CA bundle's mount, for every container with `s3Env` or `awsEnv` (none without an S3 destination or a bundle). */
export function s3Mounts(spec: ResolvedEtcd): VolumeMount[] {
  return spec.destination.kind === 's3' ? s3CaMounts(spec.destination.s3) : [];
}

/** The S3 CA bundle's volume, for the pods of those containers. */
export function s3Volumes(spec: ResolvedEtcd): Volume[] {
  return spec.destination.kind === 's3' ? s3CaVolumes(spec.destination.s3) : [];
}

/**
 * The etcd client's env (etcdctl reads ETCDCTL_<FLAG>): one endpoint, the client certificate. Without
 * `endpoint` no ETCDCTL_ENDPOINTS: for a step that names each member with --endpoints (etcdctl refuses a
 * flag that an ETCDCTL_ variable also sets).
 */
export function etcdctlEnv(spec: ResolvedEtcd, endpoint = true): EngineEnvVar[] {
  const c = spec.certificates;
  return [
    { name: 'ETCDCTL_API', value: '3' },
    ...(endpoint ? [{ name: 'ETCDCTL_ENDPOINTS', value: spec.endpoint }] : []),
    { name: 'ETCDCTL_DIAL_TIMEOUT', value: ETCD_DEFAULTS.dialTimeout },
    ...(spec.tls
      ? [
          // the node variable (the node's name, set before) is expanded: OpenShift's certificates are per node
          { name: 'ETCDCTL_CACERT', value: expandOnly(`${P.certs}/${c.caFile}`, [NODE_VARIABLE]) },
          { name: 'ETCDCTL_CERT', value: expandOnly(`${P.certs}/${c.certFile}`, [NODE_VARIABLE]) },
          { name: 'ETCDCTL_KEY', value: expandOnly(`${P.certs}/${c.keyFile}`, [NODE_VARIABLE]) },
        ]
      : []),
  ];
}

/** The client certificates' host directory, mounted read-only (none without TLS). */
export function certVolumes(spec: ResolvedEtcd): { volumes: Volume[]; mounts: VolumeMount[] } {
  if (!spec.tls) return { volumes: [], mounts: [] };
  return {
    volumes: [{ name: 'etcd-certs', hostPath: { path: spec.certificates.hostPath, type: 'Directory' } }],
    mounts: [{ name: 'etcd-certs', mountPath: P.certs, readOnly: true }],
  };
}

/** Env of the steps that run busybox's sh inside the etcd image. */
export const toolsEnv: EnvVar[] = [
  { name: 'ETCD_BACKUP_TOOLS', value: P.tools },
  { name: 'PATH', value: `${P.tools}:/usr/local/bin:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin` },
  { name: 'HOME', value: P.scratch },
  { name: 'TMPDIR', value: P.scratch },
];

export const scratchMount: VolumeMount = { name: 'scratch', mountPath: P.scratch };
export const scratchVolume: Volume = { name: 'scratch', emptyDir: {} };

/** The `tools` init container: static busybox and its applet links into the scratch volume. */
export function toolsContainer(spec: ResolvedEtcd, commonEnv: readonly EnvVar[]): EngineContainer {
  return {
    name: 'tools',
    image: spec.images.busybox,
    command: shellCommand('etcd-tools.sh'),
    env: [...commonEnv, { name: 'ETCD_BACKUP_TOOLS', value: P.tools }],
    volumeMounts: [scratchMount],
    resources: STEP_RESOURCES.shell,
    securityContext: restrictedContainerSecurity(),
  };
}

/** A step that runs `entry` with busybox's sh (copied by `tools`) inside the etcd image. */
export function etcdShellCommand(entry: string, features: ScriptFeatures = {}): ScriptCommand {
  return { ...shellCommand(entry, features), shell: '$(ETCD_BACKUP_TOOLS)/sh' };
}

export function backupPod(
  spec: ResolvedEtcd,
  policy: PolicyContext,
  pinned: string | undefined,
  ctx: PodContext,
): EnginePod {
  const commonEnv = ctx.env;
  const age = policy.encryption?.age;
  const l = layout(spec, age !== undefined);
  const certs = certVolumes(spec);
  const files = controlPlaneFilesParts(spec);
  const prefix = literal(spec.namePrefix);
  const nodeEnv = fieldEnv('ETCD_BACKUP_NODE', 'spec.nodeName');
  const destMounts = l.mount ? [l.mount, scratchMount] : [scratchMount];
  const temporary = (dir: string, suffix: string) => expand(`${dir}/.${prefix}$(ETCD_BACKUP_NODE)${suffix}`);
  const pathEnv: EngineEnvVar[] = [
    { name: 'ETCD_BACKUP_SCRATCH', value: P.scratch },
    { name: 'ETCD_BACKUP_WORK_DIR', value: l.workDir },
    { name: 'ETCD_BACKUP_PARTIAL', value: temporary(l.workDir, '.partial') },
    { name: 'ETCD_BACKUP_RESTORE_CHECK_DIR', value: temporary(l.workDir, '.restore-check') },
    ...(files
      ? [
          { name: 'ETCD_BACKUP_FILES', value: files.list },
          { name: 'ETCD_BACKUP_FILES_PARTIAL', value: temporary(l.workDir, '.files.partial') },
        ]
      : []),
  ];
  // the ciphertexts: in the destination directory (renamed by finalize), or in scratch for S3 (uploaded by finalize)
  const encryptDir = l.mount ? P.backup : P.scratch;
  const agePathEnv: EngineEnvVar[] = age
    ? [
        { name: 'ETCD_BACKUP_AGE_PARTIAL', value: temporary(encryptDir, `.partial${ENCRYPTED_SUFFIX}`) },
        ...(files
          ? [
              {
                name: 'ETCD_BACKUP_FILES_AGE_PARTIAL',
                value: temporary(encryptDir, `.files.partial${ENCRYPTED_SUFFIX}`),
              },
            ]
          : []),
      ]
    : [];

  const snapshot: EngineContainer = {
    name: 'snapshot',
    image: spec.images.etcd,
    command: etcdShellCommand('etcd-snapshot.sh', { 'etcd-files': files !== undefined }),
    env: [
      ...commonEnv,
      nodeEnv,
      ...toolsEnv,
      ...pathEnv,
      ...etcdctlEnv(spec),
      // for `endpoint status` only: in the env, ETCDCTL_COMMAND_TIMEOUT would also bound `snapshot save`
      { name: 'ETCD_BACKUP_STATUS_TIMEOUT', value: ETCD_DEFAULTS.commandTimeout },
      { name: 'ETCD_BACKUP_FREE_SPACE_FACTOR', value: String(ETCD_DEFAULTS.freeSpaceFactor) },
      { name: 'ETCD_BACKUP_RESTORE_CHECK', value: String(spec.restoreCheck) },
    ],
    // with encryption the clear snapshot stays in scratch: the destination is not mounted here
    volumeMounts: [...certs.mounts, ...(files?.mounts ?? []), ...(age ? [scratchMount] : destMounts)],
    resources: STEP_RESOURCES.etcdSnapshot,
    securityContext: restrictedContainerSecurity(),
  };
  const recipients = age ? ageRecipientsParts(age) : undefined;
  const encrypt: EngineContainer | undefined =
    age && recipients
      ? ageContainer('encrypt', age, 'etcd-encrypt.sh', recipients, {
          env: [
            ...commonEnv,
            nodeEnv,
            { name: 'HOME', value: P.scratch },
            { name: 'TMPDIR', value: P.scratch },
            ...pathEnv,
            ...agePathEnv,
          ],
          mounts: destMounts,
        })
      : undefined;
  const finalize: EngineContainer = {
    name: 'finalize',
    image: stepsInAwsCli(spec.destination.kind, spec.copies.length) ? spec.images.awsCli : spec.images.shell,
    command: shellCommand('etcd-finalize.sh', { metrics: ctx.metrics, copy: spec.copies.length > 0 }),
    env: [
      ...commonEnv,
      nodeEnv,
      { name: 'HOME', value: P.scratch },
      { name: 'TMPDIR', value: P.scratch },
      ...pathEnv,
      ...agePathEnv,
      ...(files ? [{ name: 'ETCD_BACKUP_FILES_SUFFIX', value: ETCD_DEFAULTS.controlPlaneFilesSuffix }] : []),
      { name: 'ETCD_BACKUP_ENDPOINT', value: spec.endpoint },
      // pushed as 0 unless raised (the source_alarm gauges)
      ...(ctx.metrics ? [{ name: 'ETCD_BACKUP_ALARM_TYPES', value: Object.keys(ETCD_ALARMS).join(' ') }] : []),
      ...destinationEnv(spec),
      ...contentCheckEnv(policy.contentChecks, ETCD_DEFAULTS.metadataSuffix),
      // A separate retention-prune CronJob replaces pruning after each backup.
      ...(prunesAfterBackup(policy.retention) ? pruneEnv(policy.retention, ctx.settings.zone) : []),
      ...s3Env(spec),
      ...s3CopiesEnv(spec.copies, ctx.settings.zone),
    ],
    volumeMounts: [...destMounts, ...s3Mounts(spec)],
    resources: stepsInAwsCli(spec.destination.kind, spec.copies.length) ? STEP_RESOURCES.awsCli : STEP_RESOURCES.shell,
    securityContext: restrictedContainerSecurity(),
  };
  return {
    initContainers: [toolsContainer(spec, commonEnv), snapshot, ...(encrypt ? [encrypt] : [])],
    containers: [finalize],
    mainContainers: ['snapshot', ...(encrypt ? ['encrypt'] : []), 'finalize'],
    volumes: [
      ...certs.volumes,
      ...(files?.volumes ?? []),
      ...l.volumes,
      ...(recipients?.volumes ?? []),
      scratchVolume,
      ...s3Volumes(spec),
    ],
    securityContext: { ...rootPodSecurity(), ...(fsGroupOf(spec) !== undefined ? { fsGroup: fsGroupOf(spec) } : {}) },
    hostNetwork: spec.hostNetwork || undefined,
    placement: enginePlacement(spec, pinned, true),
    priorityClassName: ETCD_DEFAULTS.priorityClassName,
  };
}

/**
 * The control-plane files (`controlPlaneFiles`): each host directory mounted
 * read-only at `/host<path>`, and `ETCD_BACKUP_FILES`, one line per
 * directory: `<host path> <mount path>` (neither has whitespace).
 */
function controlPlaneFilesParts(
  spec: ResolvedEtcd,
): { volumes: Volume[]; mounts: VolumeMount[]; list: string } | undefined {
  const paths = spec.controlPlaneFiles;
  if (!paths) return undefined;
  const name = (i: number) => `control-plane-files-${i}`;
  return {
    volumes: paths.map((path, i) => ({ name: name(i), hostPath: { path, type: 'Directory' } })),
    mounts: paths.map((path, i) => ({ name: name(i), mountPath: `${P.hostFiles}${path}`, readOnly: true })),
    list: paths.map((path) => `${path} ${P.hostFiles}${path}`).join('\n'),
  };
}

/** The fsGroup of a PVC destination that honours it. */
function fsGroupOf(spec: ResolvedEtcd): number | undefined {
  return spec.destination.kind === 'persistentVolumeClaim' ? spec.destination.fsGroup : undefined;
}

/**
 * The retention-prune pod: one `retention-prune` container running
 * etcd-prune.sh in the finalize step's image. Least privilege per destination:
 * - hostPath (`node` set): pinned to the node, that one directory mounted,
 *   uid 0 (the snapshots are root's, mode 0600), no host network;
 * - PVC: on the control-plane role's nodes (where the backups mount the
 *   volume), no host network; non-root in the volume's fsGroup when it honours
 *   fsGroup (`persistentVolumeClaim.fsGroup`), else uid 0 for the same reason;
 * - S3: on the same nodes and network as the backups (so the endpoint and the
 *   ambient credentials are the ones the uploads used), non-root, no volume
 *   besides scratch.
 * Every variant: no capabilities, read-only root filesystem, no API token,
 * serialization group `etcd-snapshot` (never next to a snapshot).
 */
export function prunePod(
  spec: ResolvedEtcd,
  policy: PolicyContext,
  node: string | undefined,
  ctx: PodContext,
): EnginePod {
  const l = layout(spec);
  const d = spec.destination;
  const prune: EngineContainer = {
    name: 'retention-prune',
    image: d.kind === 's3' ? spec.images.awsCli : spec.images.shell,
    // with an Object Lock the prune pushes how many backups the lock still keeps
    command: shellCommand('etcd-prune.sh', {
      metrics: ctx.metrics && d.kind === 's3' && d.s3.objectLock !== undefined,
    }),
    env: [
      ...ctx.env,
      ...(node ? [fieldEnv('ETCD_BACKUP_NODE', 'spec.nodeName')] : []),
      { name: 'HOME', value: P.scratch },
      { name: 'TMPDIR', value: P.scratch },
      ...destinationEnv(spec, node === undefined),
      ...pruneEnv(policy.retention, ctx.settings.zone),
      ...(d.kind === 's3' ? awsEnv(d.s3) : []),
    ],
    volumeMounts: [...(l.mount ? [l.mount, scratchMount] : [scratchMount]), ...s3Mounts(spec)],
    resources: d.kind === 's3' ? STEP_RESOURCES.awsCli : STEP_RESOURCES.shell,
    securityContext: restrictedContainerSecurity(),
  };
  return {
    containers: [prune],
    mainContainers: ['retention-prune'],
    volumes: [...l.volumes, scratchVolume, ...s3Volumes(spec)],
    securityContext: destinationKind(spec.destination).pruneSecurity(spec.destination),
    hostNetwork: d.kind === 's3' ? spec.hostNetwork || undefined : undefined,
    placement: enginePlacement(spec, node, true),
    // the snapshots' priority: in their serialization group, a snapshot of higher priority would preempt it
    priorityClassName: ETCD_DEFAULTS.priorityClassName,
  };
}
