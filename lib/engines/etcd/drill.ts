/**
 * The pod of an etcd restore drill (`spec.drill`): it takes the newest
 * snapshot of one backup target, decrypts and checks it, restores it into
 * its scratch volume, starts a temporary etcd member on 127.0.0.1 inside the
 * pod, compares the member's revision and key count with what the backup
 * recorded, and pushes the result. Steps, sharing an emptyDir:
 *  1. init `fetch` (shell image; aws CLI image for S3): the drill's start,
 *     the newest snapshot of the target (retention's listing), its age
 *     against `maxBackupAge`, its metadata; S3: both downloaded;
 *  2. init `decrypt` (only with `spec.encryption`; the age image and the
 *     identity Secret): decrypts a `.age` snapshot into scratch;
 *  3. init `tools` (busybox image): the static busybox for the etcd image;
 *  4. init `restore` (etcd image): checks, `snapshot restore`, the temporary
 *     member, the comparison; the member is stopped on every exit;
 *  5. `report` (shell image; aws CLI image for S3): pushes the drill metrics,
 *     fails the Job when the drill failed.
 * Steps 1-4 hand a failure on to `report` (and exit 0), so a failed drill is
 * always pushed. The drill never talks to the live cluster: no host network,
 * no client certificates, no API token. Least privilege per destination:
 * - hostPath: pinned to the node whose directory holds the snapshots, with
 *   the role's tolerations; uid 0 (the snapshots are root's, mode 0600),
 *   the directory mounted read-only;
 * - PVC: on the control-plane role's nodes, where the backups mount the
 *   volume (its access mode and topology fit there); uid 0, read-only mount;
 * - S3: anywhere (no role, no tolerations): nothing ties it to the control
 *   plane, and a restore plus a second etcd there would compete with the live
 *   member for disk; non-root, no volume besides scratch (and the identity).
 * Every container: no capabilities, read-only root filesystem; no priority
 * class (a drill is no critical pod); not in the snapshots' serialization
 * group (it does not touch the live member, and must not hold backups up).
 */
import type { EngineContainer, EngineEnvVar, EnvVar, VolumeMount } from '../../kubernetes/objects';
import { STEP_RESOURCES } from '../../workload/resources';
import { restrictedContainerSecurity, restrictedPodSecurity, rootPodSecurity } from '../../workload/security';
import { ageContainer, ageIdentityParts } from '../../workload/encryption';
import type { EnginePod, PodContext, PolicyContext } from '../engine';
import { awsEnv } from '../s3';
import { ETCD_DEFAULTS, ETCD_PATHS as P } from './defaults';
import {
  destinationEnv,
  enginePlacement,
  etcdShellCommand,
  layout,
  s3Mounts,
  s3Volumes,
  scratchMount,
  scratchVolume,
  toolsContainer,
  toolsEnv,
} from './pods';
import type { ResolvedEtcd } from './resolve';
import { destinationKind } from './destinations';
import { shellCommand } from '../../scripts';

/** The drill pod of one backup target: a `perNode` node's snapshots (`node`), or every node's (cluster mode). */
export function drillPod(
  spec: ResolvedEtcd,
  policy: PolicyContext,
  node: string | undefined,
  ctx: PodContext,
): EnginePod {
  const l = layout(spec);
  const d = spec.destination;
  const s3 = d.kind === 's3';
  const age = policy.encryption?.age;
  const identity = age && ageIdentityParts(age);
  const sourceMounts: VolumeMount[] = l.mount ? [{ ...l.mount, readOnly: true }] : [];
  const home: EnvVar[] = [
    { name: 'HOME', value: P.scratch },
    { name: 'TMPDIR', value: P.scratch },
  ];
  const drillEnv: EnvVar[] = [
    { name: 'ETCD_BACKUP_SCRATCH', value: P.scratch },
    { name: 'BACKUP_DRILL_DIR', value: P.drill },
  ];
  // a literal node name: the pod need not run on that node (PVC, S3)
  const nodeEnv: EngineEnvVar[] = node ? [{ name: 'ETCD_BACKUP_NODE', value: node }] : [];
  const stepImage = s3 ? spec.images.awsCli : spec.images.shell;

  const fetch: EngineContainer = {
    name: 'fetch',
    image: stepImage,
    command: shellCommand('etcd-drill-fetch.sh'),
    env: [
      ...ctx.env,
      ...home,
      ...drillEnv,
      { name: 'ETCD_DRILL_METADATA_SUFFIX', value: ETCD_DEFAULTS.metadataSuffix },
      ...nodeEnv,
      ...destinationEnv(spec, node === undefined),
      ...(s3 ? awsEnv(d.s3) : []),
    ],
    volumeMounts: [...sourceMounts, scratchMount, ...s3Mounts(spec)],
    resources: s3 ? STEP_RESOURCES.awsCli : STEP_RESOURCES.shell,
    securityContext: restrictedContainerSecurity(),
  };
  const decrypt: EngineContainer | undefined =
    age && identity
      ? ageContainer('decrypt', age, 'drill-decrypt.sh', identity, {
          env: [...ctx.env, ...home, ...drillEnv],
          mounts: [...sourceMounts, scratchMount],
        })
      : undefined;
  const restore: EngineContainer = {
    name: 'restore',
    image: spec.images.etcd,
    command: etcdShellCommand('etcd-drill.sh'),
    env: [
      ...ctx.env,
      ...toolsEnv,
      ...drillEnv,
      { name: 'ETCDCTL_API', value: '3' },
      { name: 'ETCD_DRILL_START_TIMEOUT', value: String(ETCD_DEFAULTS.drillStartTimeoutSeconds) },
    ],
    volumeMounts: [...sourceMounts, scratchMount],
    resources: STEP_RESOURCES.etcdRestore,
    securityContext: restrictedContainerSecurity(),
  };
  const report: EngineContainer = {
    name: 'report',
    image: stepImage,
    command: shellCommand('drill-report.sh', { metrics: ctx.metrics }),
    env: [...ctx.env, ...home, ...drillEnv],
    volumeMounts: [scratchMount],
    // sh and curl (the metrics push), whatever the image
    resources: STEP_RESOURCES.shell,
    securityContext: restrictedContainerSecurity(),
  };
  const steps = decrypt ? [fetch, decrypt] : [fetch];
  return {
    initContainers: [...steps, toolsContainer(spec, ctx.env), restore],
    containers: [report],
    mainContainers: [...steps, restore, report].map((c) => c.name),
    volumes: [...l.volumes, scratchVolume, ...(identity?.volumes ?? []), ...s3Volumes(spec)],
    securityContext: s3 ? restrictedPodSecurity(ETCD_DEFAULTS.s3DrillUid) : rootPodSecurity(),
    placement: {
      node: () => enginePlacement(spec, node, false),
      role: () => enginePlacement(spec, undefined, false),
      anywhere: () => undefined,
    }[destinationKind(d).readers](),
  };
}
