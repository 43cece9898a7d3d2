/**
 * The one workload builder: every CronJob and Job of every engine, their pod
 * templates, the policy's pod settings and placement, and the kubelet escaping
 * of env values and args.
 */
import type { Container, EngineContainer, EnvVar, Manifest, Volume, VolumeMount } from '../kubernetes/objects';
import { compact, compactLike, nonEmpty } from '../kubernetes/objects';
import { kubeletText } from '../kubernetes/expansion';
import type { ResolvedJobSettings, ResolvedPodOptions } from '../policy/resolve-settings';
import type { ExtraVolume, PodOptions } from '../policy/types';
import { RenderedPlacement, ResolvedPod, renderPlacement } from './placement';
import { withResources } from './resources';
import { INLINE_SCRIPTS, ScriptsRendering, renderCommand, scriptMounts, scriptVolumes } from './scripts';

/** Name, namespace, labels and annotations of one workload. */
export interface WorkloadIdentity {
  readonly name: string;
  readonly namespace: string;
  /** Labels of the object, its Job template and its pods. */
  readonly labels: Readonly<Record<string, string>>;
  /** Annotations of the object, its Job template and its pods. @default - none */
  readonly annotations?: Readonly<Record<string, string>>;
}

/** A CronJob; the parts equal to those of `earlier` (a sibling CronJob) are `earlier`'s (`compactLike`). */
export function buildCronJob(
  id: WorkloadIdentity,
  schedule: { readonly resolved: string; readonly timeZone?: string },
  settings: ResolvedJobSettings,
  pod: ResolvedPod,
  scripts: ScriptsRendering = INLINE_SCRIPTS,
  earlier?: Manifest,
): Manifest {
  return compactLike<Manifest>(
    {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: objectMeta(id),
      spec: {
        schedule: schedule.resolved,
        timeZone: schedule.timeZone,
        suspend: settings.suspend,
        concurrencyPolicy: settings.concurrencyPolicy,
        startingDeadlineSeconds: settings.startingDeadlineSeconds,
        successfulJobsHistoryLimit: settings.successfulJobsHistoryLimit,
        failedJobsHistoryLimit: settings.failedJobsHistoryLimit,
        jobTemplate: {
          metadata: { labels: id.labels, annotations: nonEmpty(id.annotations) },
          spec: jobSpec(id, settings, pod, scripts),
        },
      },
    },
    earlier,
  );
}

/** A one-off Job with the same pod template a CronJob of the same settings would have. */
export function buildJob(
  id: WorkloadIdentity,
  settings: ResolvedJobSettings,
  pod: ResolvedPod,
  scripts: ScriptsRendering = INLINE_SCRIPTS,
): Manifest {
  return compact({
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: objectMeta(id),
    spec: jobSpec(id, settings, pod, scripts),
  });
}

function objectMeta(id: WorkloadIdentity): Manifest['metadata'] {
  return {
    name: id.name,
    namespace: id.namespace,
    // compactLike copies every map: no copies here
    labels: id.labels,
    annotations: nonEmpty(id.annotations),
  };
}

function jobSpec(
  id: WorkloadIdentity,
  settings: ResolvedJobSettings,
  pod: ResolvedPod,
  scripts: ScriptsRendering,
): Record<string, unknown> {
  const placement = renderPlacement(pod.placement, id.namespace);
  const options = settings.pod;
  return {
    backoffLimit: settings.backoffLimit,
    activeDeadlineSeconds: settings.activeDeadlineSeconds,
    ttlSecondsAfterFinished: settings.ttlSecondsAfterFinished,
    template: {
      metadata: {
        // Object.assign rather than spread: spreading maps of label keys cost about 4 µs each
        labels: Object.assign({}, options.labels, placement.podLabels, id.labels),
        annotations: nonEmpty(Object.assign({}, id.annotations, options.annotations)),
      },
      spec: podSpec(pod, options, placement, scripts),
    },
  };
}

function podSpec(
  engine: ResolvedPod,
  pod: ResolvedPodOptions,
  placement: RenderedPlacement,
  scripts: ScriptsRendering,
): Record<string, unknown> {
  const extraVolumes = pod.volumes ?? [];
  const mains = new Set(engine.mainContainers);
  const decorate = (c: EngineContainer): Container => {
    const base = {
      ...container(withResources(c, pod, mains.has(c.name)), scripts),
      imagePullPolicy: pod.imagePullPolicy,
    };
    if (!mains.has(c.name)) return base;
    return {
      ...base,
      env: [...(base.env ?? []), ...extraEnv(pod)],
      volumeMounts: [...(base.volumeMounts ?? []), ...extraVolumes.map(extraMount)],
    };
  };
  return {
    restartPolicy: 'Never',
    // the engine's own ServiceAccount, when it names one, is never in conflict with the policy's (the model refuses that)
    serviceAccountName: engine.serviceAccountName ?? pod.serviceAccountName,
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
    volumes: [
      ...(engine.volumes ?? []),
      ...scriptVolumes([...(engine.initContainers ?? []), ...engine.containers], scripts),
      ...extraVolumes.map(extraVolume),
    ],
  };
}

/** An engine's container as the kubelet must get it: its script rendered, env values and args escaped unless marked for expansion. */
function container(c: EngineContainer, scripts: ScriptsRendering): Container {
  return {
    ...c,
    command: renderCommand(c, scripts),
    volumeMounts: [...(c.volumeMounts ?? []), ...scriptMounts(c, scripts)],
    args: c.args?.map(kubeletText),
    env: c.env?.map((e) =>
      e.value === undefined
        ? { name: e.name, valueFrom: storedSource(e.valueFrom) }
        : valueEnv(e.name, kubeletText(e.value)),
    ),
  };
}

/*
 * Env vars as the API server stores them. It drops an empty `value` and gives a `fieldRef` its default
 * `apiVersion`; a fieldRef is atomic for server-side apply, so a second field manager applying the same
 * manifest (a GitOps tool taking over from kubectl) would conflict with the normalized value (seen on the
 * real API server: test/kube/acceptance.test.ts).
 */
const valueEnv = (name: string, value: string): EnvVar => (value === '' ? { name } : { name, value });

function storedSource(source: EnvVar['valueFrom']): EnvVar['valueFrom'] {
  const fieldRef = source?.fieldRef;
  return fieldRef && fieldRef.apiVersion === undefined
    ? { ...source, fieldRef: { apiVersion: 'v1', fieldPath: fieldRef.fieldPath } }
    : source;
}

function extraEnv(pod: PodOptions): EnvVar[] {
  return (pod.env ?? []).map((e) =>
    e.secretKeyRef
      ? { name: e.name, valueFrom: { secretKeyRef: { name: e.secretKeyRef.name, key: e.secretKeyRef.key } } }
      : valueEnv(e.name, kubeletText(e.value ?? '')),
  );
}

function extraMount(v: ExtraVolume): VolumeMount {
  return { name: v.name, mountPath: v.mountPath, readOnly: v.readOnly };
}

function extraVolume(v: ExtraVolume): Volume {
  if (v.secret) return { name: v.name, secret: { secretName: v.secret.secretName } };
  if (v.configMap) return { name: v.name, configMap: { name: v.configMap.name } };
  if (v.persistentVolumeClaim)
    return { name: v.name, persistentVolumeClaim: { claimName: v.persistentVolumeClaim.claimName } };
  return { name: v.name, emptyDir: { ...(v.emptyDir?.sizeLimit ? { sizeLimit: v.emptyDir.sizeLimit } : {}) } };
}
