/**
 * rbac.authorization.k8s.io/v1 Role and RoleBinding bodies as the Kubernetes API server checks them.
 *
 * Source: pkg/apis/rbac/validation/validation.go (1.28–1.33): validatePolicyRule (verbs required;
 * a namespaced rule cannot name non-resource URLs nor mix them with resources; resource rules need
 * apiGroups and resources), ValidateRoleBinding (roleRef.apiGroup rbac.authorization.k8s.io, kind
 * Role or ClusterRole, name a path segment), validateRoleBindingSubject (name required;
 * ServiceAccount: DNS-1123 subdomain name, empty apiGroup; User/Group: apiGroup
 * rbac.authorization.k8s.io, which v1 defaulting fills in when empty).
 * Object names are path segments (names.ts).
 */
import { show } from '../../../lib/messages';
import { dns1123SubdomainProblem } from '../../../lib/kubernetes/validation/names';
import { type Problem, asRecord, problemAt } from '../../../lib/kubernetes/validation/problems';
import { asList, fieldPath, under } from './problems';
import { pathSegmentNameProblem } from './names';

const RBAC_GROUP = 'rbac.authorization.k8s.io';

function ruleProblems(rule: unknown): Problem[] {
  const r = asRecord(rule) ?? {};
  const problems: Problem[] = [];
  const count = (field: string) => asList(r[field]).length;
  if (count('verbs') === 0) problems.push({ path: 'verbs', message: 'verbs must contain at least one value' });
  if (count('nonResourceURLs') > 0) {
    problems.push({ path: 'nonResourceURLs', message: 'namespaced rules cannot apply to non-resource URLs' });
    return problems;
  }
  if (count('apiGroups') === 0)
    problems.push({
      path: 'apiGroups',
      message: 'resource rules must supply at least one api group ("" for the core group)',
    });
  if (count('resources') === 0)
    problems.push({ path: 'resources', message: 'resource rules must supply at least one resource' });
  return problems;
}

/** A Role's `rules`. Paths: `rules[0].verbs`, ... */
export function roleProblems(role: unknown): Problem[] {
  return asList(asRecord(role)?.rules).flatMap((rule, i) => under(fieldPath('rules', i), ruleProblems(rule)));
}

function subjectProblems(subject: unknown): Problem[] {
  const s = asRecord(subject) ?? {};
  const name = typeof s.name === 'string' ? s.name : '';
  const apiGroup = typeof s.apiGroup === 'string' ? s.apiGroup : '';
  if (name === '') return [{ path: 'name', message: 'a subject needs a name' }];
  switch (s.kind) {
    case 'ServiceAccount':
      return [
        ...problemAt('name', dns1123SubdomainProblem(name)),
        ...(apiGroup === '' ? [] : [{ path: 'apiGroup', message: `received ${show(apiGroup)}; supported values: ""` }]),
      ];
    case 'User':
    case 'Group':
      return apiGroup === '' || apiGroup === RBAC_GROUP
        ? []
        : [{ path: 'apiGroup', message: `received ${show(apiGroup)}; supported values: ${show(RBAC_GROUP)}` }];
    default:
      return [
        { path: 'kind', message: `received ${show(s.kind)}; supported values: "ServiceAccount", "User", "Group"` },
      ];
  }
}

/** A RoleBinding's `roleRef` and `subjects`. Paths: `roleRef.name`, `subjects[0].name`, ... */
export function roleBindingProblems(binding: unknown): Problem[] {
  const b = asRecord(binding) ?? {};
  const ref = asRecord(b.roleRef) ?? {};
  const problems: Problem[] = [];
  if (ref.apiGroup !== RBAC_GROUP)
    problems.push({
      path: 'roleRef.apiGroup',
      message: `received ${show(ref.apiGroup)}; supported values: ${show(RBAC_GROUP)}`,
    });
  if (ref.kind !== 'Role' && ref.kind !== 'ClusterRole')
    problems.push({
      path: 'roleRef.kind',
      message: `received ${show(ref.kind)}; supported values: "Role", "ClusterRole"`,
    });
  const name = typeof ref.name === 'string' ? ref.name : '';
  problems.push(
    ...problemAt('roleRef.name', name === '' ? 'the name of the bound role is required' : pathSegmentNameProblem(name)),
  );
  asList(b.subjects).forEach((subject, i) =>
    problems.push(...under(fieldPath('subjects', i), subjectProblems(subject))),
  );
  return problems;
}
