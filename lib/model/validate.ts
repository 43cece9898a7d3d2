/**
 * Validation of a BackupPolicy document: the JSON Schema, then every check
 * beyond it, all problems in one pass. A validated policy is a frozen copy,
 * remembered so that no later step validates it again.
 */
import { IssueList, PolicyError, fieldText, formatPath, show } from '../policy/errors';
import type { PolicyIssue, PolicyPath } from '../policy/errors';
import { formatDuration, parseDuration } from '../units';
import { withoutUndefined } from '../kubernetes/objects';
import { validateAgainstSchema } from '../policy/schema-validate';
import type { SchemaProblem } from '../policy/schema-validate';
import { validateRetentionOptions } from '../policy/retention-options';
import { validateSettings } from '../policy/settings';
import { checkAnnotations, checkLabels } from '../policy/kubernetes-checks';
import { basicAuthKeys, policyNamespace } from '../policy/defaults';
import type { MetricsOptions } from '../policy/types';
import type { PolicyContext } from '../engines/engine';
import {
  BackupPolicy,
  ENGINE_KEYS,
  EngineKey,
  engineDefinition,
  enginesOf,
  policySchema,
  retentionDestinationOf,
} from '../registry';

const validated = new WeakSet<object>();

/** Whether `value` is a policy returned by `validatePolicy` (frozen: it cannot have changed since). */
export function isValidatedPolicy(value: unknown): value is BackupPolicy {
  return typeof value === 'object' && value !== null && validated.has(value);
}

/** Validates one parsed document; throws PolicyError listing every problem. Returns a frozen copy. */
export function validatePolicy(input: unknown, source?: string): BackupPolicy {
  if (isValidatedPolicy(input)) return input;
  return validateOwned(withoutUndefined(input), source);
}

/**
 * Validates a document nobody else holds (the parser's fresh output, with no `undefined` in it) and
 * freezes it in place: the loader's path, which saves a copy of a document that may be megabytes.
 */
export function validateParsedDocument(doc: unknown, source?: string): BackupPolicy {
  return validateOwned(doc, source);
}

function validateOwned(doc: unknown, source: string | undefined): BackupPolicy {
  const issues = policyIssues(doc);
  if (issues.length > 0) throw new PolicyError(issues, source);
  const policy = deepFreeze(doc) as BackupPolicy;
  validated.add(policy);
  return policy;
}

/** Every problem of a document (schema and beyond), in one list. */
export function policyIssues(doc: unknown): PolicyIssue[] {
  const problems = validateAgainstSchema(policySchema, doc);
  if (problems.length === 0) return semanticIssues(doc as BackupPolicy, () => true);
  // Checks beyond the schema still run on what the schema accepted: invalid values are taken out first.
  const pruned = prune(doc, problems);
  const issues = problems.map((p) => p.issue);
  if (typeof pruned !== 'object' || pruned === null || Array.isArray(pruned)) return issues;
  // What could not be taken out (a refused array item, a missing required field) keeps the checks that read it from running.
  const refused = validateAgainstSchema(policySchema, pruned).map((p) => p.issue.segments);
  const accepted = (inputs: readonly PolicyPath[]) => !refused.some((r) => inputs.some((i) => isWithin(r, i)));
  const reported = new Set(issues.map((i) => i.path));
  const more = semanticIssues(pruned as BackupPolicy, accepted);
  return [...issues, ...more.filter((i) => !reported.has(i.path))];
}

/** Whether `path` is `root` or a path below it. */
function isWithin(path: PolicyPath, root: PolicyPath): boolean {
  return path.length >= root.length && root.every((key, i) => path[i] === key);
}

/**
 * The checks beyond the schema. Each runs only when `accepted` says the schema found nothing wrong in the parts
 * it reads (its inputs), so a check never sees a shape the schema refused; a check that throws anyway is a bug.
 */
function semanticIssues(policy: BackupPolicy, accepted: (inputs: readonly PolicyPath[]) => boolean): PolicyIssue[] {
  const issues = new IssueList();
  const spec = policy.spec ?? {};
  const run = (inputs: readonly PolicyPath[], check: () => void) => {
    if (!accepted(inputs)) return;
    try {
      check();
    } catch (e) {
      throw checkBug(e, inputs);
    }
  };
  const engines = enginesOf(spec);
  if (engines.length !== 1) {
    issues.add(
      ['spec'],
      `received ${engines.length === 0 ? 'no engine' : `engines ${engines.join(', ')}`}; set exactly one of: ${ENGINE_KEYS.join(', ')}`,
    );
  }
  run([DEFAULTS], () => validateSettings(spec.defaults, DEFAULTS, issues));
  run([LABELS], () => checkLabels(policy.metadata?.labels, LABELS, issues));
  run([ANNOTATIONS], () => checkAnnotations(policy.metadata?.annotations, ANNOTATIONS, issues));
  run([METRICS], () => {
    checkLabels(spec.metrics?.prometheusRule?.labels, [...METRICS, 'prometheusRule', 'labels'], issues);
    checkLabels(spec.metrics?.grafanaDashboard?.labels, [...METRICS, 'grafanaDashboard', 'labels'], issues);
  });
  const only = engines.length === 1 ? engines[0] : undefined;
  if (spec.retention) {
    run([RETENTION, ...(only ? [['spec', only]] : [])], () => {
      const destination = only === undefined ? undefined : retentionDestinationOf(only, spec[only]);
      validateRetentionOptions(spec.retention!, RETENTION, issues, destination);
    });
  }
  run([], () => validateFeatureSupport(spec, only, SPEC, issues));
  run([ENCRYPTION], () => validateEncryption(spec, SPEC, issues));
  run([DRILL], () => validateDrill(spec.drill, DRILL, issues));
  if (spec.metrics) run([METRICS], () => validateMetricsEndpoint(spec.metrics!, METRICS, issues));
  // An engine's checks read its spec part by part, each when the schema accepted that part (`accepted`).
  for (const key of engines) {
    run([['metadata', 'namespace'], ...ENGINE_CONTEXT], () =>
      engineDefinition(key).validate(spec[key], policyContext(policy, key), issues, (path) => accepted([path])),
    );
  }
  return [...issues.issues];
}

const SPEC: PolicyPath = ['spec'];
const DEFAULTS: PolicyPath = ['spec', 'defaults'];
const RETENTION: PolicyPath = ['spec', 'retention'];
const METRICS: PolicyPath = ['spec', 'metrics'];
const ENCRYPTION: PolicyPath = ['spec', 'encryption'];
const DRILL: PolicyPath = ['spec', 'drill'];
const LABELS: PolicyPath = ['metadata', 'labels'];
const ANNOTATIONS: PolicyPath = ['metadata', 'annotations'];

/** The parts of `spec` an engine's checks read besides its own (PolicyContext). */
const ENGINE_CONTEXT: readonly PolicyPath[] = [
  DEFAULTS,
  RETENTION,
  METRICS,
  ENCRYPTION,
  DRILL,
  ['spec', 'contentChecks'],
];

/** A check that threw on input the schema accepted: a bug in backup-cronjobs, reported as one with the check's own error and stack. */
function checkBug(error: unknown, inputs: readonly PolicyPath[]): Error {
  const cause = error instanceof Error ? error : new Error(String(error));
  const bug = new Error(
    `a check of the policy${inputs.length > 0 ? ` (${inputs.map(formatPath).join(', ')})` : ''} threw, which is a bug in backup-cronjobs (please report it with the policy): ${cause.name}: ${cause.message}`,
    { cause },
  );
  bug.stack = `${bug.name}: ${bug.message}\n${cause.stack ?? ''}`;
  return bug;
}

/** `spec.encryption`, `spec.drill` and `spec.contentChecks`: only for engines that implement them. */
function validateFeatureSupport(
  spec: BackupPolicy['spec'],
  engine: EngineKey | undefined,
  path: PolicyPath,
  issues: IssueList,
): void {
  const features = { encryption: spec.encryption, drill: spec.drill, contentChecks: spec.contentChecks } as const;
  const names = { encryption: 'client-side encryption', drill: 'restore drills', contentChecks: 'content checks' };
  for (const [feature, value] of Object.entries(features)) {
    if (value === undefined || engine === undefined) continue;
    const support = engineDefinition(engine)[feature as keyof typeof features];
    if (support === true) continue;
    const supported = ENGINE_KEYS.filter((k) => engineDefinition(k)[feature as keyof typeof features] === true);
    issues.add(
      [...path, feature],
      `the ${engine} engine does not support ${names[feature as keyof typeof features]}${
        support ? `: ${support.refused}` : ''
      }; ${supported.length > 0 ? `supported by: ${supported.join(', ')}` : 'no engine supports it yet'}`,
    );
  }
}

/** `spec.encryption`: one source of recipients, and an identity when drills decrypt. */
function validateEncryption(spec: BackupPolicy['spec'], path: PolicyPath, issues: IssueList): void {
  const age = spec.encryption?.age;
  if (age) {
    const sources = (['recipients', 'recipientsSecret', 'recipientsConfigMap'] as const).filter(
      (k) => age[k] !== undefined,
    );
    if (sources.length !== 1) {
      issues.add(
        [...path, 'encryption', 'age'],
        `received ${sources.length === 0 ? 'no recipients' : sources.join(' and ')}; set exactly one of: recipients, recipientsSecret, recipientsConfigMap`,
      );
    }
    if (spec.drill && !age.identitySecret) {
      issues.add(
        [...path, 'encryption', 'age', 'identitySecret'],
        fieldText`required with ${[...path, 'drill']}: the drills decrypt the newest backup with this identity`,
      );
    }
  }
}

/** `spec.drill`: its settings, and a limit on the age of the backup it restores of at least a minute. */
function validateDrill(drill: BackupPolicy['spec']['drill'], path: PolicyPath, issues: IssueList): void {
  if (drill) {
    validateSettings(drill, path, issues);
    if (drill.maxBackupAge !== undefined) checkMinimum(drill.maxBackupAge, 60, [...path, 'maxBackupAge'], issues);
  }
}

/** `spec.metrics`' authentication and CA bundle: for a Pushgateway URL, one way to authenticate, a bundle only for https. */
function validateMetricsEndpoint(metrics: MetricsOptions, path: PolicyPath, issues: IssueList): void {
  const set = (['basicAuthSecret', 'bearerTokenSecret', 'caBundle', 'grafanaDashboard'] as const).filter(
    (k) => metrics[k] !== undefined,
  );
  if (metrics.pushgatewayUrl === undefined) {
    for (const k of set)
      issues.add(
        [...path, k],
        fieldText`applies to the Pushgateway only: set ${[...path, 'pushgatewayUrl']} too, or remove it`,
      );
    return;
  }
  if (/^https?:\/\/[^/?#]*@/.test(metrics.pushgatewayUrl)) {
    // the URL is in the pod spec and in every push's log line
    issues.add(
      [...path, 'pushgatewayUrl'],
      fieldText`received a URL with credentials (user:password@); put them in a Secret named by ${[...path, 'basicAuthSecret']}, and remove them from the URL`,
    );
  }
  if (metrics.basicAuthSecret && metrics.bearerTokenSecret) {
    issues.add(
      path,
      'received basicAuthSecret and bearerTokenSecret; set at most one of them (one Authorization header per push)',
    );
  }
  const keys = metrics.basicAuthSecret && basicAuthKeys(metrics.basicAuthSecret);
  if (keys && keys.username === keys.password) {
    issues.add(
      [...path, 'basicAuthSecret'],
      `received the same key ${show(keys.username)} for the username and the password; each needs its own key`,
    );
  }
  if (metrics.caBundle && metrics.pushgatewayUrl.startsWith('http://')) {
    issues.add(
      [...path, 'caBundle'],
      `received a CA bundle for the plain-HTTP pushgatewayUrl ${show(metrics.pushgatewayUrl)}; a CA bundle only applies to https://: use https:// or remove caBundle`,
    );
  }
}

function checkMinimum(value: string, minimumSeconds: number, path: PolicyPath, issues: IssueList): void {
  const seconds = parseDuration(value);
  if (seconds < minimumSeconds)
    issues.add(path, `received ${show(value)}; allowed: at least ${formatDuration(minimumSeconds)}`);
}

/** What an engine may read of the policy around its spec. */
export function policyContext(policy: BackupPolicy, key: string): PolicyContext {
  return {
    metadata: policy.metadata,
    namespace: policyNamespace(policy.metadata),
    defaults: policy.spec.defaults,
    retention: policy.spec.retention,
    metrics: policy.spec.metrics,
    encryption: policy.spec.encryption,
    drill: policy.spec.drill,
    contentChecks: policy.spec.contentChecks,
    path: ['spec', key],
  };
}

/** A copy of `doc` without the object fields the schema refused (array items stay: their indexes are paths). */
function prune(doc: unknown, problems: readonly SchemaProblem[]): unknown {
  const copy = structuredClone(doc);
  for (const { at } of problems) {
    if (!at || at.length === 0) continue;
    let parent: unknown = copy;
    for (const segment of at.slice(0, -1))
      parent = parent !== null && typeof parent === 'object' ? (parent as Record<string, unknown>)[segment] : undefined;
    if (parent !== null && typeof parent === 'object' && !Array.isArray(parent))
      delete (parent as Record<string, unknown>)[at[at.length - 1]];
  }
  return copy;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
