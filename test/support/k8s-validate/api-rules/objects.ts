/**
 * API-server rules (Kubernetes 1.28) for PersistentVolumeClaims, ConfigMaps, Secrets, Roles and RoleBindings.
 *
 * Sources (kubernetes/kubernetes, release-1.28): pkg/apis/core/validation/validation.go
 * (ValidatePersistentVolumeClaimSpec, ValidateConfigMap, ValidateSecret), pkg/apis/rbac/validation/validation.go.
 */
import { MSG, Problems, Seg, arr, isObj, str } from '../problems';
import { R, configKeyError, dns1123Label, dns1123Subdomain, pathSegmentName } from './meta';
import { quantityNanos } from './quantity';
import { checkLabelSelector } from './scheduling';

const ACCESS_MODES = ['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOncePod'];

/** ValidatePersistentVolumeClaimSpec (also for the volumeClaimTemplate of ephemeral volumes). */
export function checkPvcSpec(spec: unknown, at: Seg[], p: Problems): void {
  if (!isObj(spec)) return;
  const modes = arr(spec.accessModes);
  if (modes.length === 0) {
    p.add(
      [...at, 'accessModes'],
      `${MSG.required}: at least 1 access mode is required (${ACCESS_MODES.join(', ')})`,
      R,
    );
  }
  if (
    modes.includes('ReadWriteOncePod') &&
    modes.some((m) => m !== 'ReadWriteOncePod' && ACCESS_MODES.includes(m as string))
  ) {
    p.add(
      [...at, 'accessModes'],
      `may not use ReadWriteOncePod with other access modes, got ${JSON.stringify(modes)}`,
      R,
    );
  }
  const storageAt = [...at, 'resources', 'requests', 'storage'];
  const requests = isObj(spec.resources) && isObj(spec.resources.requests) ? spec.resources.requests : undefined;
  if (!requests || requests.storage === undefined) {
    p.add(storageAt, MSG.required, R);
  } else {
    const storage = requests.storage;
    const n = quantityNanos(storage);
    // a quantity (n defined) is a string or a number
    if (n !== undefined && n <= 0n && (typeof storage === 'string' || typeof storage === 'number'))
      p.add(storageAt, `must be greater than 0, got ${storage}`, R);
  }
  if (typeof spec.storageClassName === 'string' && spec.storageClassName !== '') {
    const e = dns1123Subdomain(spec.storageClassName);
    if (e)
      p.add([...at, 'storageClassName'], `bad storage class name ${JSON.stringify(spec.storageClassName)}: ${e}`, R);
  }
  checkLabelSelector(spec.selector, [...at, 'selector'], p);
}

function checkDataKeys(
  obj: Record<string, unknown>,
  fields: string[],
  p: Problems,
  kind: string,
  dupCheck: boolean,
): void {
  const seen = new Map<string, string>();
  let total = 0;
  for (const f of fields) {
    const m = obj[f];
    if (!isObj(m)) continue;
    for (const [k, v] of Object.entries(m)) {
      const e = configKeyError(k);
      if (e) p.add([f, k], `bad ${kind} key: ${e}`, R);
      if (dupCheck && seen.has(k)) p.add([f, k], `duplicate key ${JSON.stringify(k)} (also in ${seen.get(k)})`, R);
      seen.set(k, f);
      total += typeof v === 'string' ? v.length : 0;
    }
  }
  if (total > 1024 * 1024) p.add([], `${kind} data too long: ${total} bytes, must be at most 1048576`, R);
}

export function checkConfigMap(obj: Record<string, unknown>, p: Problems): void {
  checkDataKeys(obj, ['data', 'binaryData'], p, 'ConfigMap', true);
}

export function checkSecret(obj: Record<string, unknown>, p: Problems): void {
  checkDataKeys(obj, ['data', 'stringData'], p, 'Secret', false);
  const keys = new Set([
    ...Object.keys(isObj(obj.data) ? obj.data : {}),
    ...Object.keys(isObj(obj.stringData) ? obj.stringData : {}),
  ]);
  const need: Record<string, string[]> = {
    'kubernetes.io/tls': ['tls.crt', 'tls.key'],
    'kubernetes.io/dockerconfigjson': ['.dockerconfigjson'],
    'kubernetes.io/dockercfg': ['.dockercfg'],
    'kubernetes.io/ssh-auth': ['ssh-privatekey'],
  };
  const t = str(obj.type);
  for (const k of (t && need[t]) || []) {
    if (!keys.has(k)) p.add(['data', k], `${MSG.required} for Secret type ${t}`, R);
  }
}

const RBAC_GROUP = 'rbac.authorization.k8s.io';

export function checkRole(obj: Record<string, unknown>, p: Problems): void {
  arr(obj.rules).forEach((r, i) => {
    if (!isObj(r)) return;
    const at = ['rules', i];
    if (arr(r.verbs).length === 0) p.add([...at, 'verbs'], 'must contain at least one value', R);
    if (arr(r.nonResourceURLs).length > 0) {
      p.add([...at, 'nonResourceURLs'], 'namespaced rules cannot apply to non-resource URLs', R);
    } else {
      if (arr(r.apiGroups).length === 0)
        p.add([...at, 'apiGroups'], 'resource rules must supply at least one api group', R);
      if (arr(r.resources).length === 0)
        p.add([...at, 'resources'], 'resource rules must supply at least one resource', R);
    }
  });
}

export function checkRoleBinding(obj: Record<string, unknown>, p: Problems): void {
  const ref = obj.roleRef;
  if (isObj(ref)) {
    if (ref.apiGroup !== RBAC_GROUP) p.add(['roleRef', 'apiGroup'], MSG.enumValue(ref.apiGroup ?? '', [RBAC_GROUP]), R);
    if (typeof ref.kind === 'string' && !['Role', 'ClusterRole'].includes(ref.kind)) {
      p.add(['roleRef', 'kind'], MSG.enumValue(ref.kind, ['Role', 'ClusterRole']), R);
    }
    if (typeof ref.name === 'string') {
      const e = ref.name === '' ? 'must not be empty' : pathSegmentName(ref.name);
      if (e) p.add(['roleRef', 'name'], `bad name ${JSON.stringify(ref.name)}: ${e}`, R);
    }
  }
  arr(obj.subjects).forEach((s, i) => {
    if (!isObj(s)) return;
    const at = ['subjects', i];
    const name = str(s.name);
    if (name === '') p.add([...at, 'name'], MSG.required, R);
    switch (s.kind) {
      case 'ServiceAccount':
        if (s.apiGroup !== undefined && s.apiGroup !== '')
          p.add([...at, 'apiGroup'], MSG.enumValue(s.apiGroup, ['']), R);
        if (name) {
          const e = dns1123Subdomain(name);
          if (e) p.add([...at, 'name'], `bad name ${JSON.stringify(name)}: ${e}`, R);
        }
        if (typeof s.namespace === 'string' && s.namespace !== '') {
          const e = dns1123Label(s.namespace);
          if (e) p.add([...at, 'namespace'], `bad name ${JSON.stringify(s.namespace)}: ${e}`, R);
        }
        break;
      case 'User':
      case 'Group':
        if (s.apiGroup !== RBAC_GROUP) p.add([...at, 'apiGroup'], MSG.enumValue(s.apiGroup ?? '', [RBAC_GROUP]), R);
        break;
      default:
        if (typeof s.kind === 'string')
          p.add([...at, 'kind'], MSG.enumValue(s.kind, ['ServiceAccount', 'User', 'Group']), R);
    }
  });
}

export function checkPvc(obj: Record<string, unknown>, p: Problems): void {
  if (obj.spec === undefined) p.add(['spec'], MSG.required, R);
  else checkPvcSpec(obj.spec, ['spec'], p);
}
