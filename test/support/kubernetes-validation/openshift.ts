/**
 * security.openshift.io/v1 SecurityContextConstraints as OpenShift checks it.
 *
 * Sources: the CRD openshift/api
 * payload-manifests/crds/0000_03_config-operator_01_securitycontextconstraints.crd.yaml
 * (cluster-scoped; the fields, their types, the required ones; unknown fields would be
 * pruned, so we refuse them) and openshift/kubernetes
 * openshift-kube-apiserver/admission/customresourcevalidation/securitycontextconstraints/validation/validation.go
 * ValidateSecurityContextConstraints (strategy types, non-negative priority, uid and
 * ranges, a capability not both allowed and dropped, "none" alone in volumes,
 * defaultAllowPrivilegeEscalation only with allowPrivilegeEscalation). The object name is
 * a DNS-1123 subdomain (names.ts).
 * Stricter: what admission needs to build its strategies (sccmatching/provider.go
 * NewSimpleProvider: a MustRunAs runAsUser names a uid), and fsGroup and supplementalGroups
 * stated (OpenShift would default them to RunAsAny).
 */
import { show } from '../../../lib/messages';
import { type Problem, asRecord, problemAt } from '../../../lib/kubernetes/validation/problems';
import { asList, fieldPath } from './problems';

type FieldType = 'boolean' | 'integer' | 'strings' | 'object' | 'string';

/** Every field of the CRD's schema (besides apiVersion, kind, metadata): its type and whether it is required. */
const FIELDS: Readonly<Record<string, readonly [FieldType, boolean]>> = {
  allowHostDirVolumePlugin: ['boolean', true],
  allowHostIPC: ['boolean', true],
  allowHostNetwork: ['boolean', true],
  allowHostPID: ['boolean', true],
  allowHostPorts: ['boolean', true],
  allowPrivilegedContainer: ['boolean', true],
  readOnlyRootFilesystem: ['boolean', true],
  allowPrivilegeEscalation: ['boolean', false],
  defaultAllowPrivilegeEscalation: ['boolean', false],
  priority: ['integer', true],
  allowedCapabilities: ['strings', true],
  defaultAddCapabilities: ['strings', true],
  requiredDropCapabilities: ['strings', true],
  volumes: ['strings', true],
  users: ['strings', false],
  groups: ['strings', false],
  seccompProfiles: ['strings', false],
  allowedUnsafeSysctls: ['strings', false],
  forbiddenSysctls: ['strings', false],
  allowedFlexVolumes: ['object', false],
  seLinuxContext: ['object', false],
  runAsUser: ['object', false],
  supplementalGroups: ['object', false],
  fsGroup: ['object', false],
  userNamespaceLevel: ['string', false],
};

/** A field's value against its type; nullable fields may be null. */
function typeProblem(value: unknown, type: FieldType): string | undefined {
  if (value === null) return undefined;
  const ok =
    type === 'boolean'
      ? typeof value === 'boolean'
      : type === 'integer'
        ? Number.isInteger(value)
        : type === 'string'
          ? typeof value === 'string'
          : type === 'strings'
            ? Array.isArray(value) && value.every((v) => typeof v === 'string')
            : type === 'object'
              ? Array.isArray(value) || asRecord(value) !== undefined
              : false;
  return ok
    ? undefined
    : `received ${show(value)}; must be ${type === 'strings' ? 'a list of strings' : `a${type === 'integer' || type === 'object' ? 'n' : ''} ${type}`}`;
}

function strategyProblems(at: string, value: unknown, types: readonly string[]): Problem[] {
  const type = asRecord(value)?.type;
  return types.includes(type as string)
    ? []
    : [
        {
          path: fieldPath(at, 'type'),
          message: `received ${show(type)}; supported values: ${types.map((t) => show(t)).join(', ')}`,
        },
      ];
}

function rangeProblems(at: string, value: unknown): Problem[] {
  return asList(asRecord(value)?.ranges).flatMap((r, i) => {
    const { min = 0, max = 0 } = asRecord(r) as { min?: number; max?: number };
    const path = fieldPath(fieldPath(fieldPath(at, 'ranges'), i), 'min');
    if (min < 0 || max < 0) return [{ path, message: `received ${show(r)}; min and max cannot be negative` }];
    return min > max ? [{ path, message: `received ${show(r)}; min cannot be greater than max` }] : [];
  });
}

/** The whole object's body (a namespace on this cluster-scoped kind is dropped by the API server). Paths are absolute. */
export function securityContextConstraintsProblems(scc: unknown): Problem[] {
  const s = asRecord(scc) ?? {};
  const problems: Problem[] = [];
  for (const key of Object.keys(s)) {
    if (!['apiVersion', 'kind', 'metadata'].includes(key) && FIELDS[key] === undefined)
      problems.push({ path: key, message: 'unknown field (the CRD would drop it)' });
  }
  for (const [key, [type, required]] of Object.entries(FIELDS)) {
    if (s[key] === undefined) {
      if (required) problems.push({ path: key, message: 'Required value' });
    } else problems.push(...problemAt(key, typeProblem(s[key], type)));
  }
  if (Number.isInteger(s.priority) && (s.priority as number) < 0)
    problems.push({ path: 'priority', message: `received ${show(s.priority)}; priority cannot be negative` });

  const runAsUser = asRecord(s.runAsUser) ?? {};
  problems.push(
    ...strategyProblems('runAsUser', runAsUser, ['MustRunAs', 'MustRunAsNonRoot', 'MustRunAsRange', 'RunAsAny']),
  );
  for (const field of ['uid', 'uidRangeMin', 'uidRangeMax']) {
    if (typeof runAsUser[field] === 'number' && runAsUser[field] < 0)
      problems.push({
        path: fieldPath('runAsUser', field),
        message: `received ${show(runAsUser[field])}; cannot be negative`,
      });
  }
  if (runAsUser.type === 'MustRunAs' && runAsUser.uid === undefined)
    problems.push({ path: 'runAsUser.uid', message: 'MustRunAs requires a UID' });
  problems.push(...strategyProblems('seLinuxContext', s.seLinuxContext, ['MustRunAs', 'RunAsAny']));
  for (const field of ['fsGroup', 'supplementalGroups']) {
    problems.push(...strategyProblems(field, s[field], ['MustRunAs', 'RunAsAny']), ...rangeProblems(field, s[field]));
  }

  const drops = asList(s.requiredDropCapabilities);
  for (const field of ['defaultAddCapabilities', 'allowedCapabilities']) {
    for (const cap of asList(s[field]))
      if (drops.includes(cap))
        problems.push({
          path: field,
          message: `received ${show(cap)}; capability is listed in ${field} and requiredDropCapabilities`,
        });
  }
  if (asList(s.allowedCapabilities).includes('*') && drops.length > 0)
    problems.push({
      path: 'requiredDropCapabilities',
      message: 'required capabilities must be empty when all capabilities are allowed by a wildcard',
    });
  const volumes = asList(s.volumes);
  if (volumes.includes('none') && volumes.length > 1)
    problems.push({
      path: 'volumes',
      message: `received ${show(volumes)}; if 'none' is specified, no other values are allowed`,
    });
  if (s.defaultAllowPrivilegeEscalation === true && s.allowPrivilegeEscalation === false) {
    problems.push({
      path: 'defaultAllowPrivilegeEscalation',
      message:
        'Cannot set DefaultAllowPrivilegeEscalation to true without also setting AllowPrivilegeEscalation to true',
    });
  }
  return problems;
}
