/**
 * The value types cdk8s users already hold, accepted in the props and turned
 * into the policy's own values before the core sees them: a cdk8s `Duration`
 * wherever a duration is taken, a cdk8s `Cron` wherever a schedule is, and
 * cdk8s-plus objects wherever the policy names a Secret or a
 * PersistentVolumeClaim. cdk8s-plus is an optional peer: its objects are
 * typed structurally and recognized by shape, never imported.
 */
import type { Cron, Duration } from 'cdk8s';
import { IssueList, childPath, show, units } from '../../lib';

/**
 * A Secret as cdk8s-plus hands it out (`ISecret` of cdk8s-plus-28:
 * `new kplus.Secret(...)`, `kplus.Secret.fromSecretName(...)`); the policy
 * takes its `name`.
 */
export interface SecretObject {
  readonly name: string;
  readonly kind: string;
  readonly apiVersion: string;
  envValue(key: string, options?: never): unknown;
}

/**
 * A PersistentVolumeClaim as cdk8s-plus hands it out (`IPersistentVolumeClaim`
 * of cdk8s-plus-28: `new kplus.PersistentVolumeClaim(...)`,
 * `kplus.PersistentVolumeClaim.fromClaimName(...)`); the policy takes its `name`.
 */
export interface ClaimObject {
  readonly name: string;
  readonly kind: string;
  readonly apiVersion: string;
}

/** Keys of the policy's durations (the grammar of `lib/units`). */
export const DURATION_KEYS = ['window', 'startingDeadline', 'timeout', 'ttlAfterFinished', 'maxAge', 'minBackupInterval', 'minRetentionTime', 'frequency', 'maxBackupAge'] as const;
/** Keys of the policy's cron schedules. */
export const SCHEDULE_KEYS = ['schedule'] as const;
/** Keys of Secret names. */
export const SECRET_NAME_KEYS = ['secretName'] as const;
/** Keys of lists of Secret names. */
export const SECRET_LIST_KEYS = ['imagePullSecrets'] as const;
/** Keys of Secret references whose `name` is the Secret's name. */
export const SECRET_REFERENCE_KEYS = ['secretKeyRef', 'credentialsSecret', 'passwordSecret', 'authSecret', 'dbInitScriptSecret', 'basicAuthSecret', 'bearerTokenSecret'] as const;
/** Keys of PersistentVolumeClaim names. */
export const CLAIM_NAME_KEYS = ['claimName'] as const;

type DurationKey = (typeof DURATION_KEYS)[number];
type ScheduleKey = (typeof SCHEDULE_KEYS)[number];
type SecretNameKey = (typeof SECRET_NAME_KEYS)[number];
type SecretListKey = (typeof SECRET_LIST_KEYS)[number];
type SecretReferenceKey = (typeof SECRET_REFERENCE_KEYS)[number];
type ClaimNameKey = (typeof CLAIM_NAME_KEYS)[number];

type Field<K, V, Parent extends string> =
  K extends DurationKey ? V | Duration
    : K extends ScheduleKey ? V | Cron
      : K extends SecretNameKey ? V | SecretObject
        : K extends ClaimNameKey ? V | ClaimObject
          : K extends SecretListKey ? readonly (string | SecretObject)[] | Extract<V, undefined>
            : K extends 'name' ? ([Parent] extends [SecretReferenceKey] ? V | SecretObject : V)
              : Cdk8sValues<V, K & string>;

/**
 * `T` (policy props) where cdk8s value types are accepted too: `Duration`
 * for durations, `Cron` for schedules, a cdk8s-plus `ISecret` for a Secret
 * name, an `IPersistentVolumeClaim` for a claim name.
 */
export type Cdk8sValues<T, Parent extends string = ''> =
  T extends string | number | boolean ? T
    : T extends readonly (infer E)[] ? readonly Cdk8sValues<E>[]
      : { readonly [K in keyof T]: Field<K, T[K], Parent> };

type Kind = 'Secret' | 'PersistentVolumeClaim';

/**
 * The props with every cdk8s value replaced by the policy's own: a Duration
 * by a duration string (`Duration.minutes(90)` → `"1h30m"`), a Cron by its
 * expression, a cdk8s-plus Secret or claim by its name. A value that cannot
 * become one (a fraction of a second, a Cron with a seconds or year field,
 * a Secret where a claim is named) is an issue at its prop path.
 */
export function policyValues(value: unknown, path: string, issues: IssueList): unknown {
  return convert(value, path, '', '', issues);
}

function convert(value: unknown, path: string, key: string, parent: string, issues: IssueList): unknown {
  if (Array.isArray(value)) return value.map((v, i) => convert(v, childPath(path, i), (SECRET_LIST_KEYS as readonly string[]).includes(key) ? key : '', '', issues));
  if (value === null || typeof value !== 'object') return value;
  if (isDuration(value)) return (DURATION_KEYS as readonly string[]).includes(key) ? durationText(value, path, issues) : misplaced('a cdk8s Duration', path, issues);
  if (isCron(value)) return key === 'schedule' ? cronText(value, path, issues) : misplaced('a cdk8s Cron', path, issues);
  if (isKubernetesObject(value)) {
    const expected = expectedKind(key, parent);
    if (expected === undefined) return misplaced(`a cdk8s-plus ${value.kind}`, path, issues);
    if (value.kind !== expected) {
      issues.add(path, `received a cdk8s-plus ${value.kind} (${show(value.name)}); expected a ${expected} or its name`);
      return undefined;
    }
    return value.name;
  }
  if (!isPlainObject(value)) return value; // the schema names what it is not
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, convert(v, childPath(path, k), k, key, issues)]));
}

/** The kind of object a field names, when it names one. */
function expectedKind(key: string, parent: string): Kind | undefined {
  if ((SECRET_NAME_KEYS as readonly string[]).includes(key) || (SECRET_LIST_KEYS as readonly string[]).includes(key)) return 'Secret';
  if (key === 'name' && (SECRET_REFERENCE_KEYS as readonly string[]).includes(parent)) return 'Secret';
  if ((CLAIM_NAME_KEYS as readonly string[]).includes(key)) return 'PersistentVolumeClaim';
  return undefined;
}

function misplaced(what: string, path: string, issues: IssueList): undefined {
  issues.add(path, `received ${what}, which this field does not take`);
  return undefined;
}

function durationText(duration: Duration, path: string, issues: IssueList): string | undefined {
  const millis = duration.toMilliseconds({ integral: false });
  if (millis % 1000 !== 0) {
    issues.add(path, `received Duration ${duration.toHumanString()}; a policy duration is a whole number of seconds`);
    return undefined;
  }
  return units.formatDuration(millis / 1000);
}

function cronText(cron: Cron, path: string, issues: IssueList): string | undefined {
  const fields = cron.expressionString.trim().split(/\s+/);
  if (fields.length !== 5) {
    issues.add(path, `received Cron ${show(cron.expressionString)} (${fields.length} fields); a CronJob schedule has 5 (minute hour day-of-month month day-of-week): no seconds or year field`);
    return undefined;
  }
  return fields.join(' ');
}

/** A cdk8s `Duration` (by shape: a second copy of cdk8s in the app has another class). */
function isDuration(value: object): value is Duration {
  const d = value as Partial<Record<'toMilliseconds' | 'toIsoString' | 'toHumanString', unknown>>;
  return typeof d.toMilliseconds === 'function' && typeof d.toIsoString === 'function' && typeof d.toHumanString === 'function';
}

function isCron(value: object): value is Cron {
  return typeof (value as { expressionString?: unknown }).expressionString === 'string';
}

/** A cdk8s-plus resource (`IResource`: a name, a kind, an apiVersion). */
function isKubernetesObject(value: object): value is ClaimObject {
  const o = value as Partial<Record<'name' | 'kind' | 'apiVersion', unknown>>;
  return typeof o.name === 'string' && typeof o.kind === 'string' && typeof o.apiVersion === 'string';
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}
