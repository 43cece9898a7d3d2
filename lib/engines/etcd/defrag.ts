/**
 * The pod of the etcd defragmentation (`spec.etcd.defragmentation`): one per
 * policy, whatever the mode. Steps, sharing an emptyDir:
 *  1. init `tools` (busybox image): the static busybox for the etcd image;
 *  2. init `defrag` (etcd image, that busybox's sh): from the local member,
 *     the members, each one's status and health, the cluster's alarms; then
 *     one member at a time, the leader last, `etcdctl defrag` of those above
 *     the threshold, each followed by its health and status (etcd-defrag.sh).
 *     It records its outcome and its gauges for the next step and exits 0;
 *  3. `report` (the finalize step's image: the aws CLI image with an S3
 *     destination or copies, else the shell image): pushes the gauges and the
 *     outcome, and fails the Job when the defragmentation failed
 *     (etcd-defrag-report.sh).
 * Like the backups: on the control-plane role's nodes (not pinned: it talks to
 * every member through its client URL), the host network, the client
 * certificates read-only, uid 0 (the certificates are root's), no
 * capabilities, read-only root filesystem, no API token; and in the snapshots'
 * serialization group, cluster-wide (`etcd-snapshot`, scope cluster: every
 * backup pod of both modes is in it), so that it never blocks a member while
 * a snapshot reads from it. No priority class: a defragmentation can wait.
 */
import type { EngineContainer, EnvVar } from '../../kubernetes/objects';
import { STEP_RESOURCES } from '../../workload/resources';
import { restrictedContainerSecurity, rootPodSecurity } from '../../workload/security';
import { shellCommand } from '../../scripts';
import type { EnginePod, PodContext } from '../engine';
import { ETCD_ALARMS, ETCD_DEFAULTS, ETCD_PATHS as P } from './defaults';
import {
  certVolumes,
  enginePlacement,
  etcdShellCommand,
  etcdctlEnv,
  fieldEnv,
  scratchMount,
  scratchVolume,
  toolsContainer,
  toolsEnv,
} from './pods';
import { stepsInAwsCli } from './resolve';
import type { ResolvedDefragmentation, ResolvedEtcd } from './resolve';

export function defragPod(spec: ResolvedEtcd, defrag: ResolvedDefragmentation, ctx: PodContext): EnginePod {
  const certs = certVolumes(spec);
  const dirEnv: EnvVar[] = [{ name: 'ETCD_DEFRAG_DIR', value: P.defrag }];
  const run: EngineContainer = {
    name: 'defrag',
    image: spec.images.etcd,
    command: etcdShellCommand('etcd-defrag.sh'),
    env: [
      ...ctx.env,
      // the node's name, for OpenShift's per-node certificates
      fieldEnv('ETCD_BACKUP_NODE', 'spec.nodeName'),
      ...toolsEnv,
      ...dirEnv,
      // every call names its member with --endpoints: no ETCDCTL_ENDPOINTS
      ...etcdctlEnv(spec, false),
      { name: 'ETCD_DEFRAG_LOCAL_ENDPOINT', value: spec.endpoint },
      { name: 'ETCD_DEFRAG_THRESHOLD_PERCENT', value: String(defrag.thresholdPercent) },
      // etcdctl's --command-timeout is a Go duration
      { name: 'ETCD_DEFRAG_MEMBER_TIMEOUT', value: `${defrag.memberTimeoutSeconds}s` },
      { name: 'ETCD_BACKUP_STATUS_TIMEOUT', value: ETCD_DEFAULTS.commandTimeout },
    ],
    volumeMounts: [...certs.mounts, scratchMount],
    resources: STEP_RESOURCES.etcdctl,
    securityContext: restrictedContainerSecurity(),
  };
  const awsCli = stepsInAwsCli(spec.destination.kind, spec.copies.length);
  const report: EngineContainer = {
    name: 'report',
    image: awsCli ? spec.images.awsCli : spec.images.shell,
    command: shellCommand('etcd-defrag-report.sh', { metrics: ctx.metrics }),
    env: [
      ...ctx.env,
      { name: 'HOME', value: P.scratch },
      { name: 'TMPDIR', value: P.scratch },
      ...dirEnv,
      // pushed as 0 unless raised (the source_alarm gauges of the backups)
      ...(ctx.metrics ? [{ name: 'ETCD_BACKUP_ALARM_TYPES', value: Object.keys(ETCD_ALARMS).join(' ') }] : []),
    ],
    volumeMounts: [scratchMount],
    resources: awsCli ? STEP_RESOURCES.awsCli : STEP_RESOURCES.shell,
    securityContext: restrictedContainerSecurity(),
  };
  return {
    initContainers: [toolsContainer(spec, ctx.env), run],
    containers: [report],
    mainContainers: ['defrag', 'report'],
    volumes: [...certs.volumes, scratchVolume],
    securityContext: rootPodSecurity(),
    hostNetwork: spec.hostNetwork || undefined,
    placement: enginePlacement(spec, undefined, true),
    // the snapshots' priority: in their serialization group, a snapshot of higher priority would preempt it
    priorityClassName: ETCD_DEFAULTS.priorityClassName,
  };
}
