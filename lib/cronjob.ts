/** Target + resolved schedule → a batch/v1 CronJob. */
import type { Container, EnvVar, Manifest, Volume, VolumeMount } from './k8s';
import { compact, nonEmpty } from './k8s';
import { mergePlacement, renderPlacement } from './placement';
import { JOB_DEFAULTS } from './policy/defaults';
import type { ExtraVolume, PodOptions } from './policy/types';
import { parseDuration } from './schedule';
import type { EnginePod, Target } from './target';

export interface CronJobContext {
  readonly name: string;
  readonly namespace: string;
  /** Labels every object of the policy carries. */
  readonly commonLabels: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  /** Env every container script receives (job identity, metrics). */
  readonly commonEnv: readonly EnvVar[];
  /** The policy pushes metrics. */
  readonly metrics: boolean;
}

export function buildCronJob(target: Target, schedule: string, ctx: CronJobContext): Manifest {
  const s = target.settings;
  const labels = { ...ctx.commonLabels, ...target.labels };
  const enginePod = target.pod({ env: ctx.commonEnv, metrics: ctx.metrics });
  const placement = renderPlacement(mergePlacement(enginePod.placement, s.placement), ctx.namespace);
  const pod = s.pod ?? {};
  const podLabels = { ...pod.labels, ...placement.podLabels, ...labels };
  const timeout = s.timeout ?? target.defaultTimeout;

  return compact({
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name: ctx.name, namespace: ctx.namespace, labels, annotations: nonEmpty({ ...ctx.annotations }) },
    spec: {
      schedule,
      timeZone: s.timeZone,
      suspend: s.suspend ?? JOB_DEFAULTS.suspend,
      concurrencyPolicy: s.concurrencyPolicy ?? JOB_DEFAULTS.concurrencyPolicy,
      startingDeadlineSeconds: parseDuration(s.startingDeadline ?? JOB_DEFAULTS.startingDeadline),
      successfulJobsHistoryLimit: s.successfulJobsHistoryLimit ?? JOB_DEFAULTS.successfulJobsHistoryLimit,
      failedJobsHistoryLimit: s.failedJobsHistoryLimit ?? JOB_DEFAULTS.failedJobsHistoryLimit,
      jobTemplate: {
        metadata: { labels, annotations: nonEmpty({ ...ctx.annotations }) },
        spec: {
          backoffLimit: s.backoffLimit ?? JOB_DEFAULTS.backoffLimit,
          activeDeadlineSeconds: parseDuration(timeout),
          ttlSecondsAfterFinished: s.ttlAfterFinished !== undefined ? parseDuration(s.ttlAfterFinished) : undefined,
          template: {
            metadata: { labels: podLabels, annotations: nonEmpty({ ...ctx.annotations, ...pod.annotations }) },
            spec: podSpec(enginePod, pod, placement),
          },
        },
      },
    },
  });
}

function podSpec(engine: EnginePod, pod: PodOptions, placement: ReturnType<typeof renderPlacement>): Record<string, unknown> {
  const extraVolumes = pod.volumes ?? [];
  const mains = new Set(engine.mainContainers);
  const decorate = (c: Container): Container =>
    mains.has(c.name)
      ? {
        ...c,
        imagePullPolicy: pod.imagePullPolicy ?? c.imagePullPolicy ?? JOB_DEFAULTS.imagePullPolicy,
        env: [...(c.env ?? []), ...extraEnv(pod)],
        volumeMounts: [...(c.volumeMounts ?? []), ...extraVolumes.map(extraMount)],
        resources: pod.resources ? { ...pod.resources } : c.resources,
      }
      : { ...c, imagePullPolicy: pod.imagePullPolicy ?? c.imagePullPolicy ?? JOB_DEFAULTS.imagePullPolicy };
  return {
    restartPolicy: 'Never',
    serviceAccountName: pod.serviceAccountName,
    automountServiceAccountToken: false,
    hostNetwork: engine.hostNetwork,
    priorityClassName: pod.priorityClassName ?? engine.priorityClassName,
    terminationGracePeriodSeconds: engine.terminationGracePeriodSeconds,
    imagePullSecrets: pod.imagePullSecrets?.map((name) => ({ name })),
    nodeSelector: placement.nodeSelector,
    affinity: placement.affinity,
    tolerations: placement.tolerations,
    securityContext: engine.securityContext,
    initContainers: engine.initContainers?.map(decorate),
    containers: engine.containers.map(decorate),
    volumes: [...(engine.volumes ?? []), ...extraVolumes.map(extraVolume)],
  };
}

function extraEnv(pod: PodOptions): EnvVar[] {
  return (pod.env ?? []).map((e) =>
    e.secretKeyRef
      ? { name: e.name, valueFrom: { secretKeyRef: { name: e.secretKeyRef.name, key: e.secretKeyRef.key } } }
      : { name: e.name, value: e.value ?? '' },
  );
}

function extraMount(v: ExtraVolume): VolumeMount {
  return { name: v.name, mountPath: v.mountPath, readOnly: v.readOnly };
}

function extraVolume(v: ExtraVolume): Volume {
  if (v.secret) return { name: v.name, secret: { secretName: v.secret.secretName } };
  if (v.configMap) return { name: v.name, configMap: { name: v.configMap.name } };
  if (v.persistentVolumeClaim) return { name: v.name, persistentVolumeClaim: { claimName: v.persistentVolumeClaim.claimName } };
  return { name: v.name, emptyDir: { ...(v.emptyDir?.sizeLimit ? { sizeLimit: v.emptyDir.sizeLimit } : {}) } };
}

/** Pod-level `restricted` Pod Security settings for a non-root uid. */
export function restrictedPodSecurity(uid: number, fsGroup: number = uid): Record<string, unknown> {
  return { runAsNonRoot: true, runAsUser: uid, runAsGroup: uid, fsGroup, seccompProfile: { type: 'RuntimeDefault' } };
}

/** Container-level `restricted` Pod Security settings. */
export function restrictedContainerSecurity(readOnlyRootFilesystem = true): Record<string, unknown> {
  return { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, readOnlyRootFilesystem };
}
