/**
 * Restore Jobs: one per restore node, restoring a snapshot of this policy into
 * a new data directory on that node (the running etcd is not touched). Built by
 * the core's workload builder like every CronJob, so the policy's pod settings
 * apply to them too.
 */
import type { EngineContainer, EngineEnvVar, VolumeMount } from '../../kubernetes/objects';
import { expand, literal } from '../../kubernetes/expansion';
import { labelValue } from '../../kubernetes/names';
import { shellCommand } from '../../scripts';
import { restrictedContainerSecurity, rootPodSecurity } from '../../workload/security';
import type { EngineJob, EnginePod, PodContext } from '../engine';
import { ETCD_DEFAULTS, ETCD_PATHS as P } from './defaults';
import { destinationEnv, enginePlacement, etcdShellCommand, fieldEnv, layout, s3Env, scratchMount, scratchVolume, toolsContainer, toolsEnv } from './pods';
import type { ResolvedEtcd, ResolvedRestore } from './resolve';

/** Pulumi's Job await logic waits for completion: a suspended Job would time out `pulumi up`. */
const SKIP_AWAIT = { 'pulumi.com/skipAwait': 'true' };

/** The restore Job of each restore node (validated policies only). */
export function restoreJobs(spec: ResolvedEtcd): { node: string; job: EngineJob }[] {
  const restore = spec.restore;
  if (!restore) return [];
  return restore.nodes.map((node) => ({
    node,
    job: {
      nameParts: ['restore', node],
      key: node,
      component: 'restore',
      labels: { 'backup-cronjobs.io/node': labelValue(node) },
      defaults: { timeout: ETCD_DEFAULTS.timeout },
      suspend: restore.suspend,
      backoffLimit: 0,
      annotations: restore.suspend ? SKIP_AWAIT : undefined,
      pod: (ctx) => restorePod(spec, restore, node, ctx),
    },
  }));
}

function restorePod(spec: ResolvedEtcd, restore: ResolvedRestore, node: string, ctx: PodContext): EnginePod {
  const l = layout(spec);
  const s3 = spec.destination.kind === 's3';
  const sourceMounts: VolumeMount[] = l.mount ? [{ ...l.mount, readOnly: true }] : [];
  const restoreEnv: EngineEnvVar[] = [
    fieldEnv('ETCD_BACKUP_NODE', 'spec.nodeName'),
    fieldEnv('ETCD_RESTORE_NODE', 'spec.nodeName'),
    fieldEnv('ETCD_RESTORE_HOST_IP', 'status.hostIP'),
    { name: 'ETCD_RESTORE_SNAPSHOT', value: restore.snapshot ?? '' },
    { name: 'ETCD_RESTORE_SOURCE_DIR', value: s3 ? P.scratch : P.backup },
    { name: 'ETCD_BACKUP_SCRATCH', value: P.scratch },
    ...destinationEnv(spec, l),
  ];
  const fetch: EngineContainer | undefined = s3
    ? {
      name: 'fetch',
      image: spec.images.awsCli,
      command: shellCommand('etcd-fetch.sh'),
      env: [...ctx.env, { name: 'HOME', value: P.scratch }, { name: 'TMPDIR', value: P.scratch }, ...restoreEnv, ...s3Env(spec)],
      volumeMounts: [scratchMount],
      securityContext: restrictedContainerSecurity(),
    }
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
      { name: 'ETCD_RESTORE_PEER_URL', value: withNodeVariables(restore.peerUrl ?? ETCD_DEFAULTS.restorePeerUrl) },
      {
        name: 'ETCD_RESTORE_INITIAL_CLUSTER',
        value: restore.initialCluster !== undefined ? withNodeVariables(restore.initialCluster) : expand('$(ETCD_RESTORE_NODE)=$(ETCD_RESTORE_PEER_URL)'),
      },
      { name: 'ETCD_RESTORE_TARGET_ROOT', value: P.restore },
      { name: 'ETCD_RESTORE_HOST_DIR', value: restore.hostPath },
      ...(restore.bumpRevision !== undefined ? [{ name: 'ETCD_RESTORE_BUMP_REVISION', value: String(restore.bumpRevision) }] : []),
    ],
    volumeMounts: [...sourceMounts, scratchMount, { name: 'restore', mountPath: P.restore }],
    securityContext: restrictedContainerSecurity(),
  };
  return {
    initContainers: fetch ? [toolsContainer(spec, ctx.env), fetch] : [toolsContainer(spec, ctx.env)],
    containers: [main],
    mainContainers: ['restore'],
    volumes: [...l.volumes, scratchVolume, { name: 'restore', hostPath: { path: restore.hostPath, type: 'DirectoryOrCreate' } }],
    securityContext: rootPodSecurity(),
    placement: enginePlacement(spec, node, false),
    priorityClassName: ETCD_DEFAULTS.priorityClassName,
  };
}

/** The node variables a peer URL or initial cluster may name (documented); any other `$` reaches etcd as written. */
const RESTORE_VARIABLES = ['ETCD_RESTORE_HOST_IP', 'ETCD_RESTORE_NODE'];

function withNodeVariables(text: string): ReturnType<typeof expand> {
  return expand(RESTORE_VARIABLES.reduce((t, name) => t.split(`$$(${name})`).join(`$(${name})`), literal(text)));
}
