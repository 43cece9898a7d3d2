/**
 * Every rule of this module applied to a whole object, wherever it applies.
 *
 * Sources: k8s.io/apimachinery/pkg/api/validation/objectmeta.go ValidateObjectMetaAccessor (name
 * required and valid for the kind, namespace a DNS-1123 label, labels, annotations) and the
 * per-kind validators cited in batch.ts, configmap.ts, rbac.ts, prometheus.ts, openshift.ts. ServiceAccounts
 * and kinds this module does not know are checked by metadata only.
 */
import { show } from '../../../lib/messages';
import { cronJobSpecProblems, jobSpecProblems } from './batch';
import { configMapProblems } from './configmap';
import { annotationsProblems, labelsProblems } from './labels';
import { type Problem, asRecord, problemAt } from '../../../lib/kubernetes/validation/problems';
import { under } from './problems';
import { type Checks, EVERY_TIME } from './clean-parts';
import { apiGroup, namespaceNameProblem, objectNameProblem } from './names';
import { securityContextConstraintsProblems } from './openshift';
import { prometheusRuleSpecProblems } from './prometheus';
import { roleBindingProblems, roleProblems } from './rbac';

/** `metadata` of an object of this kind. Paths: `name`, `namespace`, `labels[k]`, `annotations[k]`. */
export function objectMetaProblems(
  apiVersion: string,
  kind: string,
  metadata: unknown,
  checked: Checks = EVERY_TIME,
): Problem[] {
  const m = asRecord(metadata) ?? {};
  const name = m.name;
  const problems = problemAt(
    'name',
    typeof name === 'string' || name === undefined
      ? objectNameProblem(apiVersion, kind, name ?? '')
      : `received ${show(name)}; must be a string`,
  );
  if (m.namespace !== undefined && m.namespace !== '') {
    problems.push(
      ...problemAt(
        'namespace',
        typeof m.namespace === 'string'
          ? namespaceNameProblem(m.namespace)
          : `received ${show(m.namespace)}; must be a string`,
      ),
    );
  }
  problems.push(...under('labels', labelsProblems(m.labels, checked)));
  problems.push(...under('annotations', annotationsProblems(m.annotations, checked)));
  return problems;
}

function bodyProblems(group: string, kind: string, object: Record<string, unknown>, checked: Checks): Problem[] {
  switch (`${group}/${kind}`) {
    case 'batch/CronJob':
      return under('spec', cronJobSpecProblems(object.spec, checked));
    case 'batch/Job':
      return under('spec', jobSpecProblems(object.spec, false, checked));
    case '/ConfigMap':
      return configMapProblems(object);
    case 'rbac.authorization.k8s.io/Role':
      return roleProblems(object);
    case 'rbac.authorization.k8s.io/RoleBinding':
      return roleBindingProblems(object);
    case 'monitoring.coreos.com/PrometheusRule':
      return under('spec', prometheusRuleSpecProblems(object.spec));
    case 'security.openshift.io/SecurityContextConstraints':
      return securityContextConstraintsProblems(object);
    default:
      return [];
  }
}

/**
 * Every problem the API server (and, for PrometheusRule, Prometheus) would report for this object,
 * plus our stricter rules (see each file). Paths are absolute, e.g.
 * `spec.jobTemplate.spec.template.spec.containers[0].env[3].name`; empty list when valid. With
 * `checked` (a `CleanParts` the caller keeps while its objects do not change), a part found clean
 * before is not checked again.
 */
export function validateObject(manifest: unknown, checked: Checks = EVERY_TIME): Problem[] {
  const object = asRecord(manifest);
  if (!object) return [{ path: '', message: `received ${show(manifest)}; a Kubernetes object must be a map` }];
  const apiVersion = typeof object.apiVersion === 'string' ? object.apiVersion : '';
  const kind = typeof object.kind === 'string' ? object.kind : '';
  const problems: Problem[] = [];
  if (apiVersion === '')
    problems.push({ path: 'apiVersion', message: `received ${show(object.apiVersion)}; apiVersion is required` });
  if (kind === '') problems.push({ path: 'kind', message: `received ${show(object.kind)}; kind is required` });
  problems.push(...under('metadata', objectMetaProblems(apiVersion, kind, object.metadata, checked)));
  problems.push(...bodyProblems(apiGroup(apiVersion), kind, object, checked));
  return problems;
}
