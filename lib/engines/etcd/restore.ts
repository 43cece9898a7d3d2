/**
 * The restore Job that `backup-cronjobs restore` prints: it restores one
 * snapshot of this policy into a new data directory on one node (the running
 * etcd is not touched). Built by the core's workload builder like every
 * CronJob, with the settings of the node's CronJob, so the policy's pod
 * settings apply to it too.
 */
import type { EngineContainer, EngineEnvVar, VolumeMount } from '../../kubernetes/objects';
import { expand, expandOnly } from '../../kubernetes/expansion';
import type { Expansion } from '../../kubernetes/expansion';
import { labelValue } from '../../kubernetes/names';
import { dns1123SubdomainProblem, nodePinProblem } from '../../kubernetes/validation';
import { formatPath, show } from '../../policy/errors';
import { shellCommand } from '../../scripts';
import { ENCRYPTED_SUFFIX, ageContainer, ageIdentityParts } from '../../workload/encryption';
import type { AgeEncryption } from '../../policy/types';
import { STEP_RESOURCES } from '../../workload/resources';
import { restrictedContainerSecurity, rootPodSecurity } from '../../workload/security';
import type { EnginePod, EngineRestore, PodContext, PolicyContext, RestoreRequest } from '../engine';
import { ETCD_DEFAULTS, ETCD_PATHS as P } from './defaults';
import {
  destinationEnv,
  enginePlacement,
  etcdShellCommand,
  fieldEnv,
  layout,
  s3Env,
  s3Mounts,
  s3Volumes,
  scratchMount,
  scratchVolume,
  toolsContainer,
  toolsEnv,
} from './pods';
import { ResolvedEtcd, ResolvedRestore, resolveRestore } from './resolve';
import type { EtcdRestoreSpec } from './types';

/** The restore Job for `request`, or each flag that does not fit the policy (validated specs only). */
export function etcdRestoreJob(
  spec: ResolvedEtcd,
  restoreSpec: EtcdRestoreSpec | undefined,
  policy: PolicyContext,
  request: RestoreRequest,
): EngineRestore {
  const problems: string[] = [];
  const nodeNames = spec.nodes.map((n) => n.name);
  let node: string | undefined;
  if (spec.mode === 'perNode') {
    if (request.node !== undefined)
      problems.push(
        `--node: received ${show(request.node)}; perNode mode restores on the node named by --target: drop --node`,
      );
    if (request.target === undefined)
      problems.push(`--target is required: the node to restore on, one of ${nodeNames.join(', ')}`);
    else if (!nodeNames.includes(request.target))
      problems.push(
        `--target: received ${show(request.target)}; must be a node of ${formatPath([...policy.path, 'nodes'])}: ${nodeNames.join(', ')}`,
      );
    else node = request.target;
  } else {
    if (request.target !== undefined)
      problems.push(
        `--target: received ${show(request.target)}; cluster mode has one CronJob and no per-node targets: name the node to restore on with --node`,
      );
    if (request.node === undefined)
      problems.push('--node is required: cluster mode names no nodes; give the control-plane node to restore on');
    else {
      // a node name (a DNS-1123 subdomain) that pins through the kubernetes.io/hostname label
      const problem = dns1123SubdomainProblem(request.node) ?? nodePinProblem(request.node);
      if (problem) problems.push(`--node: ${problem}`);
      else node = request.node;
    }
  }
  const snapshotProblem = snapshotNameProblem(spec, request.snapshot);
  if (snapshotProblem) problems.push(`--snapshot: received ${show(request.snapshot)}; ${snapshotProblem}`);
  const encrypted = request.snapshot.endsWith(ENCRYPTED_SUFFIX);
  const age = policy.encryption?.age;
  if (encrypted && !age?.identitySecret) {
    problems.push(
      `--snapshot: received ${show(request.snapshot)}, an encrypted snapshot; the restore Job decrypts it with the age identity in spec.encryption.age.identitySecret, which this policy does not set: add it (a Secret key holding the identity file, AGE-SECRET-KEY-1...)`,
    );
  }
  if (node === undefined || problems.length > 0) return { problems };
  const restore = resolveRestore(restoreSpec);
  const own = spec.nodes.find((n) => n.name === node);
  const notes =
    spec.mode === 'perNode' && nodeNames.length > 1 && restore.initialCluster === undefined
      ? [
          `${formatPath([...policy.path, 'restore', 'initialCluster'])} is not set: ${node} restores as a one-member cluster. To restore all ${nodeNames.length} members, set it to every member (name=peerURL,...) and restore the same snapshot on each node (docs/operations/restore.md).`,
        ]
      : [];
  if (age && !encrypted) {
    notes.push(
      `the policy encrypts its snapshots (spec.encryption): ${request.snapshot} is restored as a clear snapshot; those stored encrypted are named ${request.snapshot}${ENCRYPTED_SUFFIX}.`,
    );
  }
  return {
    notes,
    job: {
      // the snapshot's node only when it is another node than the one restored
      nameParts: [
        'restore',
        node,
        ...snapshotStamp(spec, request.snapshot).filter((part, i) => i === 0 || part !== node),
      ],
      component: 'restore',
      labels: { 'backup-cronjobs.io/node': labelValue(node) },
      // a snapshot name is no label value (":" in its time): an annotation names it exactly
      annotations: { 'backup-cronjobs.io/snapshot': request.snapshot },
      overrides: own?.settings,
      settingsPath: own?.settings ? own.path : ['spec', 'defaults'],
      defaults: { timeout: ETCD_DEFAULTS.timeout },
      backoffLimit: 0,
      pod: (ctx) => restorePod(spec, restore, node, request.snapshot, ctx, encrypted ? age : undefined),
    },
  };
}

/** A snapshot file name of this policy: `<namePrefix><time>_<node>.db`, `.age` after it when encrypted, no directory. */
function snapshotNameProblem(spec: ResolvedEtcd, snapshot: string): string | undefined {
  const shape = `a snapshot of this policy is named ${spec.namePrefix}<time>_<node>${ETCD_DEFAULTS.extension}, or ${ENCRYPTED_SUFFIX} after that when encrypted`;
  if (snapshot.includes('/') || /\s/.test(snapshot) || snapshot.length > 255)
    return `must be a file name (no "/", no whitespace, at most 255 characters): ${shape}`;
  const clear = clearName(snapshot);
  if (
    !clear.startsWith(spec.namePrefix) ||
    !clear.endsWith(ETCD_DEFAULTS.extension) ||
    clear.length === spec.namePrefix.length + ETCD_DEFAULTS.extension.length
  )
    return shape;
  return undefined;
}

/** A snapshot's name without `.age`. */
const clearName = (snapshot: string) =>
  snapshot.endsWith(ENCRYPTED_SUFFIX) ? snapshot.slice(0, -ENCRYPTED_SUFFIX.length) : snapshot;

/** The parts of a snapshot name that tell snapshots of one policy apart: `<time>`, `<node>` (node names have no `_`). */
function snapshotStamp(spec: ResolvedEtcd, snapshot: string): string[] {
  const clear = clearName(snapshot);
  const stamp = clear.slice(spec.namePrefix.length, clear.length - ETCD_DEFAULTS.extension.length);
  const node = stamp.lastIndexOf('_');
  return node < 0 ? [stamp] : [stamp.slice(0, node), stamp.slice(node + 1)];
}

/**
 * The restore pod: `tools`, `fetch` (S3: the snapshot into scratch), with
 * `age` (an encrypted snapshot) `decrypt` in the age image (the clear
 * snapshot into scratch, never elsewhere), then `restore` in the etcd image.
 */
function restorePod(
  spec: ResolvedEtcd,
  restore: ResolvedRestore,
  node: string,
  snapshot: string,
  ctx: PodContext,
  age: AgeEncryption | undefined,
): EnginePod {
  const l = layout(spec);
  const s3 = spec.destination.kind === 's3';
  const sourceMounts: VolumeMount[] = l.mount ? [{ ...l.mount, readOnly: true }] : [];
  const storedDir = s3 ? P.scratch : P.backup;
  const restoreEnv: EngineEnvVar[] = [
    fieldEnv('ETCD_BACKUP_NODE', 'spec.nodeName'),
    fieldEnv('ETCD_RESTORE_NODE', 'spec.nodeName'),
    fieldEnv('ETCD_RESTORE_HOST_IP', 'status.hostIP'),
    { name: 'ETCD_RESTORE_SNAPSHOT', value: snapshot },
    // where the restore step reads the clear snapshot: decrypted or fetched into scratch, or in the destination
    { name: 'ETCD_RESTORE_SOURCE_DIR', value: age ? P.scratch : storedDir },
    { name: 'ETCD_BACKUP_SCRATCH', value: P.scratch },
    ...destinationEnv(spec),
  ];
  const fetch: EngineContainer | undefined = s3
    ? {
        name: 'fetch',
        image: spec.images.awsCli,
        command: shellCommand('etcd-fetch.sh'),
        env: [
          ...ctx.env,
          { name: 'HOME', value: P.scratch },
          { name: 'TMPDIR', value: P.scratch },
          ...restoreEnv,
          ...s3Env(spec),
        ],
        volumeMounts: [scratchMount, ...s3Mounts(spec)],
        resources: STEP_RESOURCES.awsCli,
        securityContext: restrictedContainerSecurity(),
      }
    : undefined;
  const identity = age ? ageIdentityParts(age) : undefined;
  const decrypt: EngineContainer | undefined =
    age && identity
      ? ageContainer('decrypt', age, 'etcd-decrypt.sh', identity, {
          env: [
            ...ctx.env,
            { name: 'HOME', value: P.scratch },
            { name: 'TMPDIR', value: P.scratch },
            ...restoreEnv,
            { name: 'ETCD_RESTORE_ENCRYPTED_DIR', value: storedDir },
          ],
          mounts: [...sourceMounts, scratchMount],
        })
      : undefined;
  const main: EngineContainer = {
    name: 'restore',
    image: spec.images.etcd,
    command: etcdShellCommand('etcd-restore.sh'),
    env: [
      ...ctx.env,
      ...toolsEnv,
      ...restoreEnv,
      // The kubelet fills in the node's name and IP.
      { name: 'ETCD_RESTORE_PEER_URL', value: withNodeVariables(restore.peerUrl) },
      {
        name: 'ETCD_RESTORE_INITIAL_CLUSTER',
        value:
          restore.initialCluster !== undefined
            ? withNodeVariables(restore.initialCluster)
            : expand('$(ETCD_RESTORE_NODE)=$(ETCD_RESTORE_PEER_URL)'),
      },
      { name: 'ETCD_RESTORE_TARGET_ROOT', value: P.restore },
      { name: 'ETCD_RESTORE_HOST_DIR', value: restore.hostPath },
      ...(restore.bumpRevision !== undefined
        ? [{ name: 'ETCD_RESTORE_BUMP_REVISION', value: String(restore.bumpRevision) }]
        : []),
    ],
    volumeMounts: [...(age ? [] : sourceMounts), scratchMount, { name: 'restore', mountPath: P.restore }],
    resources: STEP_RESOURCES.etcdRestore,
    securityContext: restrictedContainerSecurity(),
  };
  return {
    initContainers: [toolsContainer(spec, ctx.env), ...(fetch ? [fetch] : []), ...(decrypt ? [decrypt] : [])],
    containers: [main],
    mainContainers: ['restore'],
    volumes: [
      ...l.volumes,
      ...(identity?.volumes ?? []),
      scratchVolume,
      { name: 'restore', hostPath: { path: restore.hostPath, type: 'DirectoryOrCreate' } },
      ...s3Volumes(spec),
    ],
    securityContext: rootPodSecurity(),
    placement: enginePlacement(spec, node, false),
    priorityClassName: ETCD_DEFAULTS.priorityClassName,
  };
}

/** The node variables a peer URL or initial cluster may name (documented); any other `$` reaches etcd as written. */
const RESTORE_VARIABLES = ['ETCD_RESTORE_HOST_IP', 'ETCD_RESTORE_NODE'];

const withNodeVariables = (text: string): Expansion => expandOnly(text, RESTORE_VARIABLES);
