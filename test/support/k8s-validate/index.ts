/**
 * Strict Kubernetes manifest validator for the test suite.
 *
 * Layers (each error is tagged with the layer(s) that reported it):
 *  - `kubernetes-models`: the precompiled validators of kubernetes-models 4.5.1
 *    (types, enums, required fields; they do NOT reject unknown fields).
 *  - `client-node`: a walker over the `getAttributeTypeMap()` type maps of
 *    @kubernetes/client-node 1.3.0 (unknown fields at any depth, primitive types).
 *  - `k8s-1.28-schema`: when `../shared/k8s-schema/v1.28.0/_definitions.json`
 *    exists next to the repo (required with CI=true): ajv 8 over the official definitions
 *    made strict (`additionalProperties: false` wherever a schema lists `properties`).
 *  - `api-rules` (folder api-rules/): hand-written copies of API-server validation that no
 *    schema expresses (names, labels, uniqueness, references between fields, ...).
 *  - `prometheus-rule`: a hand-written strict check for
 *    monitoring.coreos.com/v1 PrometheusRule (no package ships its schema).
 *  - `openshift-scc`: a hand-written strict check for security.openshift.io/v1
 *    SecurityContextConstraints (its CRD and OpenShift's validation; no package ships them).
 *
 * Errors look like `spec.jobTemplate.spec.template.spec.containers[0].bogus: unknown field [client-node, k8s-1.28-schema]`.
 */
import { CronJob } from 'kubernetes-models/batch/v1/CronJob';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { PersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import { Secret } from 'kubernetes-models/v1/Secret';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import { Role } from 'kubernetes-models/rbac.authorization.k8s.io/v1/Role';
import { RoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/RoleBinding';
import { walkClientNode } from './client-node';
import { SHARED_SCHEMA_PATH, runSharedSchema, sharedSchemaAvailable } from './k8s-schema';
import { ModelCtor, runModel } from './kubernetes-models';
import { checkPrometheusRule } from './prometheus-rule';
import { checkSecurityContextConstraints } from './security-context-constraints';
import { ErrorSource, Problems, dropUndefined, isObj, typeName } from './problems';
import { NameRule, checkObjectMeta, cronJobName, jobName, pathSegmentName, subdomainName } from './api-rules/meta';
import { checkConfigMap, checkPvc, checkRole, checkRoleBinding, checkSecret } from './api-rules/objects';
import { checkCronJob, checkJob } from './api-rules/workloads';

export { SHARED_SCHEMA_PATH, sharedSchemaAvailable };
export type { ErrorSource };

export interface ValidateOptions {
  /**
   * Also validate against the strict k8s 1.28 JSON schema from the shared folder
   * when it exists (default `true`). `false` forces the packaged-only path.
   */
  useSharedSchema?: boolean;
}

/** `apiVersion/kind` strings this validator knows. */
export function supportedKinds(): string[] {
  return [...KINDS.keys()];
}

/**
 * Validate one manifest. Returns a list of problems; empty means valid.
 * Each problem is `<json path>: <what is wrong> [<layers that found it>]`.
 */
export function validateManifest(input: unknown, options: ValidateOptions = {}): string[] {
  // Object properties whose value is `undefined` vanish when serialised, so they are treated as absent.
  const obj = dropUndefined(input);
  const p = new Problems(obj);
  if (!isObj(obj)) {
    p.add([], `wrong type: expected object, got ${typeName(obj)}`, 'api-rules');
    return p.list();
  }
  const { apiVersion, kind } = obj;
  if (typeof apiVersion !== 'string' || apiVersion === '') p.add(['apiVersion'], 'missing required field', 'api-rules');
  if (typeof kind !== 'string' || kind === '') p.add(['kind'], 'missing required field', 'api-rules');
  if (p.size > 0) return p.list();
  const key = `${apiVersion as string}/${kind as string}`;
  const spec = KINDS.get(key);
  if (!spec) {
    p.add([], `no schema for ${key}`, 'api-rules');
    return p.list();
  }

  if (spec.model) runModel(spec.model, obj, p);
  if (spec.clientNodeType) walkClientNode(obj, spec.clientNodeType, [], p);
  if (spec.definition && options.useSharedSchema !== false && sharedSchemaAvailable()) {
    runSharedSchema(spec.definition, obj, p);
  }
  checkObjectMeta(obj.metadata, ['metadata'], p, spec.nameRule, true);
  spec.rules?.(obj, p);
  return p.list();
}

/**
 * Throws one Error listing every problem of every object (prefixed with index, kind and name).
 * Does nothing when all objects are valid.
 */
export function expectValidManifests(objs: unknown[], options: ValidateOptions = {}): void {
  const lines: string[] = [];
  objs.forEach((o, i) => {
    const errors = validateManifest(o, options);
    if (errors.length === 0) return;
    const kind = isObj(o) && typeof o.kind === 'string' ? o.kind : '?';
    const name = isObj(o) && isObj(o.metadata) && typeof o.metadata.name === 'string' ? o.metadata.name : '?';
    for (const e of errors) lines.push(`[${i}] ${kind}/${name}: ${e}`);
  });
  if (lines.length > 0) {
    const count = objs.length;
    throw new Error(
      `${lines.length} manifest problem(s) in ${count} object(s)` +
        `${sharedSchemaAvailable() ? '' : ' (strict k8s 1.28 schema not available; packaged validators only)'}:\n` +
        lines.join('\n'),
    );
  }
}

interface KindSpec {
  model?: ModelCtor;
  clientNodeType?: string;
  definition?: string;
  nameRule: NameRule;
  rules?: (obj: Record<string, unknown>, p: Problems) => void;
}

const KINDS = new Map<string, KindSpec>([
  [
    'batch/v1/CronJob',
    {
      model: CronJob,
      clientNodeType: 'V1CronJob',
      definition: 'io.k8s.api.batch.v1.CronJob',
      nameRule: cronJobName,
      rules: checkCronJob,
    },
  ],
  [
    'batch/v1/Job',
    { model: Job, clientNodeType: 'V1Job', definition: 'io.k8s.api.batch.v1.Job', nameRule: jobName, rules: checkJob },
  ],
  [
    'v1/PersistentVolumeClaim',
    {
      model: PersistentVolumeClaim,
      clientNodeType: 'V1PersistentVolumeClaim',
      definition: 'io.k8s.api.core.v1.PersistentVolumeClaim',
      nameRule: subdomainName,
      rules: checkPvc,
    },
  ],
  [
    'v1/ConfigMap',
    {
      model: ConfigMap,
      clientNodeType: 'V1ConfigMap',
      definition: 'io.k8s.api.core.v1.ConfigMap',
      nameRule: subdomainName,
      rules: checkConfigMap,
    },
  ],
  [
    'v1/Secret',
    {
      model: Secret,
      clientNodeType: 'V1Secret',
      definition: 'io.k8s.api.core.v1.Secret',
      nameRule: subdomainName,
      rules: checkSecret,
    },
  ],
  [
    'v1/ServiceAccount',
    {
      model: ServiceAccount,
      clientNodeType: 'V1ServiceAccount',
      definition: 'io.k8s.api.core.v1.ServiceAccount',
      nameRule: subdomainName,
    },
  ],
  [
    'rbac.authorization.k8s.io/v1/Role',
    {
      model: Role,
      clientNodeType: 'V1Role',
      definition: 'io.k8s.api.rbac.v1.Role',
      nameRule: pathSegmentName,
      rules: checkRole,
    },
  ],
  [
    'rbac.authorization.k8s.io/v1/RoleBinding',
    {
      model: RoleBinding,
      clientNodeType: 'V1RoleBinding',
      definition: 'io.k8s.api.rbac.v1.RoleBinding',
      nameRule: pathSegmentName,
      rules: checkRoleBinding,
    },
  ],
  ['monitoring.coreos.com/v1/PrometheusRule', { nameRule: subdomainName, rules: checkPrometheusRule }],
  [
    'security.openshift.io/v1/SecurityContextConstraints',
    { nameRule: subdomainName, rules: checkSecurityContextConstraints },
  ],
]);
