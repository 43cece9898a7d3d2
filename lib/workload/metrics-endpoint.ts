/**
 * How the containers that push metrics (the `metrics` script module) reach a
 * Pushgateway behind authentication or a private CA: the credentials as env
 * vars from their Secret (never in arguments), the CA bundle as a read-only
 * volume. Only those containers get them.
 */
import type { EngineContainer, EngineEnvVar, Volume } from '../kubernetes/objects';
import type { CaBundleRef, SecretKeyRef } from '../policy/types';
import { isScriptCommand } from '../scripts';
import type { EnginePod } from '../engines/engine';
import { caBundleParts } from './ca-bundle';

/** The Pushgateway's authentication, every default applied. */
export type ResolvedMetricsAuth =
  | { readonly kind: 'basic'; readonly username: SecretKeyRef; readonly password: SecretKeyRef }
  | { readonly kind: 'bearer'; readonly token: SecretKeyRef };

/** What metrics.sh reads besides the URL. */
export const METRICS_ENDPOINT_ENV = {
  username: 'BACKUP_PUSHGATEWAY_USERNAME',
  password: 'BACKUP_PUSHGATEWAY_PASSWORD',
  token: 'BACKUP_PUSHGATEWAY_TOKEN',
  caFile: 'BACKUP_PUSHGATEWAY_CA_FILE',
} as const;

const secretEnv = (name: string, ref: SecretKeyRef): EngineEnvVar => ({
  name,
  valueFrom: { secretKeyRef: { name: ref.name, key: ref.key } },
});

/** The container pushes metrics: its script embeds the metrics module. */
export function pushesMetrics(c: EngineContainer): boolean {
  return isScriptCommand(c.command) && c.command.features?.metrics === true;
}

/** `pod` with the credentials and the CA bundle in every container that pushes metrics (the pod unchanged without either). */
export function withMetricsEndpoint(
  pod: EnginePod,
  auth: ResolvedMetricsAuth | undefined,
  caBundle: CaBundleRef | undefined,
): EnginePod {
  if (!auth && !caBundle) return pod;
  const ca = caBundle && caBundleParts(caBundle, 'pushgateway');
  const env: EngineEnvVar[] = [
    ...(auth?.kind === 'basic'
      ? [
          secretEnv(METRICS_ENDPOINT_ENV.username, auth.username),
          secretEnv(METRICS_ENDPOINT_ENV.password, auth.password),
        ]
      : []),
    ...(auth?.kind === 'bearer' ? [secretEnv(METRICS_ENDPOINT_ENV.token, auth.token)] : []),
    ...(ca ? [{ name: METRICS_ENDPOINT_ENV.caFile, value: ca.file }] : []),
  ];
  const decorate = (c: EngineContainer): EngineContainer =>
    pushesMetrics(c)
      ? { ...c, env: [...(c.env ?? []), ...env], volumeMounts: [...(c.volumeMounts ?? []), ...(ca ? [ca.mount] : [])] }
      : c;
  const containers = [...(pod.initContainers ?? []), ...pod.containers];
  const volumes: Volume[] = ca && containers.some(pushesMetrics) ? [ca.volume] : [];
  return {
    ...pod,
    initContainers: pod.initContainers?.map(decorate),
    containers: pod.containers.map(decorate),
    volumes: [...(pod.volumes ?? []), ...volumes],
  };
}
