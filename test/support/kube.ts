/**
 * Typed views of rendered objects for the tests: the Kubernetes API types of @kubernetes/client-node (the
 * tests validate every rendered object against the API server's schema, so the fields are the API's).
 * Each view checks the kind and throws on a missing pod template or container, naming it.
 */
import type {
  V1ConfigMap,
  V1Container,
  V1CronJob,
  V1CronJobSpec,
  V1EnvVarSource,
  V1Job,
  V1JobSpec,
  V1PodSpec,
  V1PodTemplateSpec,
} from '@kubernetes/client-node';
import type { Manifest } from '../../lib';

/** A rendered object (a `Manifest`, or a parsed YAML document). */
export interface KubeObject {
  readonly kind?: unknown;
  readonly metadata?: { readonly name?: string };
}

const describe = (o: KubeObject | undefined): string => `${String(o?.kind)} ${String(o?.metadata?.name)}`;

function ofKind<T>(o: KubeObject | undefined, kind: string): T {
  if (o?.kind !== kind) throw new Error(`expected a ${kind}, got ${describe(o)}`);
  return o as unknown as T;
}

export const asCronJob = (o: KubeObject | undefined): V1CronJob => ofKind<V1CronJob>(o, 'CronJob');
export const asJob = (o: KubeObject | undefined): V1Job => ofKind<V1Job>(o, 'Job');
export const asConfigMap = (o: KubeObject | undefined): V1ConfigMap => ofKind<V1ConfigMap>(o, 'ConfigMap');

/** The spec of a CronJob. */
export function cronJobSpecOf(o: KubeObject): V1CronJobSpec {
  const spec = asCronJob(o).spec;
  if (!spec) throw new Error(`${describe(o)} has no spec`);
  return spec;
}

/** The job spec of a CronJob (its job template's) or a Job. */
export function jobSpecOf(o: KubeObject): V1JobSpec {
  const spec = o.kind === 'CronJob' ? asCronJob(o).spec?.jobTemplate.spec : asJob(o).spec;
  if (!spec) throw new Error(`${describe(o)} has no job spec`);
  return spec;
}

/** The pod template of a CronJob or a Job. */
export function podTemplateOf(o: KubeObject): V1PodTemplateSpec {
  const template = o.kind === 'CronJob' ? asCronJob(o).spec?.jobTemplate.spec?.template : asJob(o).spec?.template;
  if (!template) throw new Error(`${describe(o)} has no pod template`);
  return template;
}

/** The pod spec of a CronJob or a Job. */
export function podSpecOf(o: KubeObject): V1PodSpec {
  const spec = podTemplateOf(o).spec;
  if (!spec) throw new Error(`${describe(o)} has no pod spec`);
  return spec;
}

/** The init containers, then the containers, of a CronJob's or a Job's pod. */
export function containersOf(o: KubeObject): V1Container[] {
  const pod = podSpecOf(o);
  return [...(pod.initContainers ?? []), ...pod.containers];
}

/** The (init) container `name` of a CronJob's or a Job's pod. */
export function containerOf(o: KubeObject, name: string): V1Container {
  const container = containersOf(o).find((c) => c.name === name);
  if (!container) throw new Error(`${describe(o)} has no container ${name}`);
  return container;
}

/** A container's env: each name with its value, or its valueFrom. */
export const envOf = (o: KubeObject, container: string): Record<string, string | V1EnvVarSource | undefined> =>
  Object.fromEntries((containerOf(o, container).env ?? []).map((e) => [e.name, e.value ?? e.valueFrom]));

/** A container's env, the plain values only. */
export const envValuesOf = (o: KubeObject, container: string): Record<string, string | undefined> =>
  Object.fromEntries((containerOf(o, container).env ?? []).map((e) => [e.name, e.value]));

/** A container's args; throws when it has none (a test that reads them expects some). */
export function argsOf(o: KubeObject, container: string): string[] {
  const args = containerOf(o, container).args;
  if (!args) throw new Error(`${describe(o)}: container ${container} has no args`);
  return args;
}

/**
 * `value` (parsed JSON or YAML, a mock's recorded inputs) as a rendered object: throws unless it is an object
 * with a string apiVersion and kind and a metadata.name. Its other fields stay `unknown`: read them through the
 * views above.
 */
export function asManifest(value: unknown): Manifest {
  const o = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  const metadata = (typeof o.metadata === 'object' && o.metadata !== null ? o.metadata : {}) as { name?: unknown };
  if (typeof o.apiVersion !== 'string' || typeof o.kind !== 'string' || typeof metadata.name !== 'string')
    throw new Error(`not a Kubernetes object: ${JSON.stringify(value)?.slice(0, 200)}`);
  return value as Manifest;
}

/** The part of a PrometheusRule's spec (monitoring.coreos.com/v1) the tests read: its groups of rules. */
export interface PrometheusRuleSpec {
  readonly groups: readonly {
    readonly name: string;
    readonly rules: readonly { readonly alert?: string; readonly record?: string; readonly expr: string }[];
  }[];
}

/** The spec of a PrometheusRule. */
export const prometheusRuleSpecOf = (o: KubeObject): PrometheusRuleSpec =>
  ofKind<{ spec: PrometheusRuleSpec }>(o, 'PrometheusRule').spec;
