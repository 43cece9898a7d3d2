/**
 * The value types cdk8s users already hold, accepted in the props and turned
 * into the policy's own values before the core sees them: a cdk8s `Duration`
 * wherever a duration is taken, a cdk8s `Cron` wherever a schedule is, a
 * cdk8s `Size` wherever a size is, and cdk8s-plus objects wherever the policy
 * names a Secret, a ConfigMap or a PersistentVolumeClaim: wherever the
 * policy's schema says so (lib/policy/schema-builders.ts, `FIELD_META`). cdk8s-plus is an
 * optional peer (cdk8s-plus-28 and newer): its objects are typed structurally
 * and recognized by shape, never imported.
 */
import type { Cron, Duration, Size } from 'cdk8s';
import { IssueList, fieldMeta, isPlainObject, policySchema, show, units } from '../../lib/internal';
import type { NamedKind, PolicyPath, Schema } from '../../lib/internal';

/**
 * A Secret as cdk8s-plus hands it out (`ISecret` of cdk8s-plus-28 to -34:
 * `new kplus.Secret(...)`, `kplus.Secret.fromSecretName(...)`); the policy
 * takes its `name`. A Secret the app defines carries its namespace
 * (`metadata.namespace`), which must be the namespace of the objects using it.
 */
export interface SecretObject {
  /** The Secret's name. */
  readonly name: string;
  /** `Secret`. */
  readonly kind: string;
  /** `v1`. */
  readonly apiVersion: string;
  /** cdk8s-plus's env value of one of its keys (what tells a Secret from other objects). */
  envValue(key: string, options?: never): unknown;
}

/**
 * A PersistentVolumeClaim as cdk8s-plus hands it out (`IPersistentVolumeClaim`
 * of cdk8s-plus-28 to -34: `new kplus.PersistentVolumeClaim(...)`,
 * `kplus.PersistentVolumeClaim.fromClaimName(...)`); the policy takes its `name`.
 */
export interface ClaimObject {
  /** The object's name. */
  readonly name: string;
  /** `PersistentVolumeClaim`. */
  readonly kind: string;
  /** `v1`. */
  readonly apiVersion: string;
}

/**
 * A ConfigMap as cdk8s-plus hands it out (`IConfigMap` of cdk8s-plus-28 to
 * -33: `new kplus.ConfigMap(...)`, `kplus.ConfigMap.fromConfigMapName(...)`);
 * the policy takes its `name`.
 */
export interface ConfigMapObject {
  /** The object's name. */
  readonly name: string;
  /** `ConfigMap`. */
  readonly kind: string;
  /** `v1`. */
  readonly apiVersion: string;
}

/** An object a field named, with its namespace when the app defines it: checked against the policy's namespace. */
export interface NamedObject {
  /** The policy path of the field. */
  readonly path: PolicyPath;
  readonly kind: string;
  readonly name: string;
  /** @default - not known (an imported object) */
  readonly namespace?: string;
}

type Kind = NamedKind;

/**
 * The policy with every cdk8s value replaced by the policy's own, as the
 * policy's schema declares each field (`FIELD_META`): a Duration by a duration
 * string (`Duration.minutes(90)` → `"1h30m"`), a Cron by its expression, a
 * Size by its quantity (`Size.gibibytes(10)` → `"10Gi"`), a cdk8s-plus
 * Secret, ConfigMap or claim by its name (a Secret or ConfigMap given for a
 * whole `{ name }` reference by `{ name }`). A value that cannot become one (a
 * fraction of a second, a Cron with a seconds or year field, a Secret where a
 * claim is named) is an issue at its policy path, and is left out of the
 * result, so that the policy's own checks still report every other problem.
 * Each object named is added to `named` (with its namespace when known).
 */
export function policyValues(value: unknown, issues: IssueList, named: NamedObject[] = []): unknown {
  return convert(value, policySchema, [], issues, named);
}

function convert(
  value: unknown,
  schema: Schema | undefined,
  path: PolicyPath,
  issues: IssueList,
  named: NamedObject[],
): unknown {
  if (Array.isArray(value))
    return value.map((v, i) => convert(v, schema?.items as Schema | undefined, [...path, i], issues, named));
  if (value === null || typeof value !== 'object') return value;
  const meta = fieldMeta(schema);
  if (isDuration(value))
    return meta.grammar === 'duration'
      ? durationText(value, path, issues)
      : misplaced('a cdk8s Duration', path, issues);
  if (isCron(value))
    return meta.grammar === 'cron' ? cronText(value, path, issues) : misplaced('a cdk8s Cron', path, issues);
  if (isSize(value))
    return meta.grammar === 'size' ? sizeText(value, path, issues) : misplaced('a cdk8s Size', path, issues);
  if (isKubernetesObject(value)) {
    const whole = wholeReferenceKind(schema);
    const expected = whole ?? meta.names;
    if (expected === undefined) return misplaced(`a cdk8s-plus ${value.kind}`, path, issues);
    if (value.kind !== expected) {
      issues.add(path, `received a cdk8s-plus ${value.kind} (${show(value.name)}); expected a ${expected} or its name`);
      return undefined;
    }
    const namespace = namespaceOf(value);
    named.push({
      path: whole ? [...path, 'name'] : path,
      kind: value.kind,
      name: value.name,
      ...(namespace !== undefined ? { namespace } : {}),
    });
    return whole ? { name: value.name } : value.name;
  }
  if (!isPlainObject(value)) return value; // the schema names what it is not
  const properties = (schema?.properties ?? {}) as Record<string, Schema>;
  const rest = schema?.additionalProperties;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      convert(
        v,
        Object.hasOwn(properties, k) ? properties[k] : typeof rest === 'object' ? (rest as Schema) : undefined,
        [...path, k],
        issues,
        named,
      ),
    ]),
  );
}

/** The kind of object a whole reference (`credentialsSecret: secret`) stands for: only its `name`, naming one, is required. */
function wholeReferenceKind(schema: Schema | undefined): Kind | undefined {
  const required = schema?.required as readonly string[] | undefined;
  if (required?.length !== 1 || required[0] !== 'name') return undefined;
  return fieldMeta((schema?.properties as Record<string, Schema> | undefined)?.name).names;
}

/** The namespace of an object the app defines (cdk8s-plus `Resource.metadata`); imported objects have none. */
function namespaceOf(value: object): string | undefined {
  const metadata = (value as { metadata?: { namespace?: unknown } }).metadata;
  return typeof metadata?.namespace === 'string' ? metadata.namespace : undefined;
}

/**
 * One issue per named object whose namespace is not `namespace` (the namespace
 * of every object the policy renders): a pod reads Secrets, ConfigMaps and
 * claims of its own namespace only.
 */
export function namespaceIssues(named: readonly NamedObject[], namespace: string, issues: IssueList): void {
  for (const o of named) {
    if (o.namespace === undefined || o.namespace === namespace) continue;
    issues.add(
      o.path,
      `received the ${o.kind} ${show(o.name)} of namespace ${show(o.namespace)}; the objects that use it are in namespace ${show(namespace)}, and a pod reads only its own namespace's ${o.kind}s: define it in ${show(namespace)} or set the policy's namespace`,
    );
  }
}

function misplaced(what: string, path: PolicyPath, issues: IssueList): undefined {
  issues.add(path, `received ${what}, which this field does not take`);
  return undefined;
}

function durationText(duration: Duration, path: PolicyPath, issues: IssueList): string | undefined {
  const millis = duration.toMilliseconds({ integral: false });
  if (millis % 1000 !== 0) {
    issues.add(path, `received Duration ${duration.toHumanString()}; a policy duration is a whole number of seconds`);
    return undefined;
  }
  return units.formatDuration(millis / 1000);
}

function cronText(cron: Cron, path: PolicyPath, issues: IssueList): string | undefined {
  const fields = cron.expressionString.trim().split(/\s+/);
  if (fields.length !== 5) {
    issues.add(
      path,
      `received Cron ${show(cron.expressionString)} (${fields.length} fields); a CronJob schedule has 5 (minute hour day-of-month month day-of-week): no seconds or year field`,
    );
    return undefined;
  }
  return fields.join(' ');
}

function sizeText(size: Size, path: PolicyPath, issues: IssueList): string | undefined {
  const text = size.asString();
  const problem = units.sizeProblem(text);
  if (problem !== undefined) {
    issues.add(path, `received Size ${show(text)}; ${problem}`);
    return undefined;
  }
  return text;
}

/** A cdk8s `Size` (by shape). */
function isSize(value: object): value is Size {
  const s = value as Partial<Record<'asString' | 'toKibibytes' | 'toGibibytes', unknown>>;
  return typeof s.asString === 'function' && typeof s.toKibibytes === 'function' && typeof s.toGibibytes === 'function';
}

/** A cdk8s `Duration` (by shape: a second copy of cdk8s in the app has another class). */
function isDuration(value: object): value is Duration {
  const d = value as Partial<Record<'toMilliseconds' | 'toIsoString' | 'toHumanString', unknown>>;
  return (
    typeof d.toMilliseconds === 'function' &&
    typeof d.toIsoString === 'function' &&
    typeof d.toHumanString === 'function'
  );
}

function isCron(value: object): value is Cron {
  return typeof (value as { expressionString?: unknown }).expressionString === 'string';
}

/** A cdk8s-plus resource (`IResource`: a name, a kind, an apiVersion). */
function isKubernetesObject(value: object): value is ClaimObject {
  const o = value as Partial<Record<'name' | 'kind' | 'apiVersion', unknown>>;
  return typeof o.name === 'string' && typeof o.kind === 'string' && typeof o.apiVersion === 'string';
}
