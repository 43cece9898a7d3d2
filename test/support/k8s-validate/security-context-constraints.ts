/**
 * Layer `openshift-scc`: a hand-written strict check for security.openshift.io/v1
 * SecurityContextConstraints (no package ships its schema), from
 * - the CRD openshift/api payload-manifests/crds/0000_03_config-operator_01_securitycontextconstraints.crd.yaml
 *   (@ 2a3d7391): cluster-scoped; the fields and their types at every depth (unknown ones would be
 *   pruned: reported here); required: allowHostDirVolumePlugin, allowHostIPC, allowHostNetwork,
 *   allowHostPID, allowHostPorts, allowPrivilegedContainer, allowedCapabilities,
 *   defaultAddCapabilities, priority, readOnlyRootFilesystem, requiredDropCapabilities, volumes;
 *   the list fields and priority are nullable; userNamespaceLevel is AllowHostLevel or RequirePodLevel;
 * - openshift/kubernetes openshift-kube-apiserver/admission/customresourcevalidation/
 *   securitycontextconstraints/validation/validation.go ValidateSecurityContextConstraints: name a
 *   DNS-1123 subdomain, priority >= 0, strategy types, uid >= 0, ranges 0 <= min <= max, no
 *   capability both added (allowed or default) and required to be dropped, no drops with an
 *   allowed "*", "none" alone in volumes, defaultAllowPrivilegeEscalation true needs
 *   allowPrivilegeEscalation not false, allowedFlexVolumes only with flexVolume or "*" in volumes;
 * - openshift/apiserver-library-go sccmatching/provider.go NewSimpleProvider (an SCC admission
 *   cannot use): MustRunAs runAsUser without uid, MustRunAsRange with one bound only,
 *   MustRunAs groups with no ranges are filled from the namespace (allowed).
 */
import { walkClientNode } from './client-node';
import { ErrorSource, MSG, Problems, Seg, arr, isObj } from './problems';

const S: ErrorSource = 'openshift-scc';

type Kind = 'boolean' | 'integer' | 'string' | 'strings' | 'object' | 'objects';
type Fields = Record<string, [Kind, { required?: boolean; nullable?: boolean }?]>;

const TOP: Fields = {
  apiVersion: ['string'],
  kind: ['string'],
  metadata: ['object'],
  priority: ['integer', { required: true, nullable: true }],
  allowPrivilegedContainer: ['boolean', { required: true }],
  defaultAddCapabilities: ['strings', { required: true, nullable: true }],
  requiredDropCapabilities: ['strings', { required: true, nullable: true }],
  allowedCapabilities: ['strings', { required: true, nullable: true }],
  allowHostDirVolumePlugin: ['boolean', { required: true }],
  volumes: ['strings', { required: true, nullable: true }],
  allowedFlexVolumes: ['objects', { nullable: true }],
  allowHostNetwork: ['boolean', { required: true }],
  allowHostPorts: ['boolean', { required: true }],
  allowHostPID: ['boolean', { required: true }],
  allowHostIPC: ['boolean', { required: true }],
  userNamespaceLevel: ['string'],
  defaultAllowPrivilegeEscalation: ['boolean', { nullable: true }],
  allowPrivilegeEscalation: ['boolean', { nullable: true }],
  seLinuxContext: ['object', { nullable: true }],
  runAsUser: ['object', { nullable: true }],
  supplementalGroups: ['object', { nullable: true }],
  fsGroup: ['object', { nullable: true }],
  readOnlyRootFilesystem: ['boolean', { required: true }],
  users: ['strings', { nullable: true }],
  groups: ['strings', { nullable: true }],
  seccompProfiles: ['strings', { nullable: true }],
  allowedUnsafeSysctls: ['strings', { nullable: true }],
  forbiddenSysctls: ['strings', { nullable: true }],
};
const SELINUX: Fields = { type: ['string'], seLinuxOptions: ['object'] };
const SELINUX_OPTIONS: Fields = { user: ['string'], role: ['string'], type: ['string'], level: ['string'] };
const RUN_AS_USER: Fields = { type: ['string'], uid: ['integer'], uidRangeMin: ['integer'], uidRangeMax: ['integer'] };
const GROUPS: Fields = { type: ['string'], ranges: ['objects'] };
const RANGE: Fields = { min: ['integer'], max: ['integer'] };
const FLEX: Fields = { driver: ['string', { required: true }] };

function ofKind(v: unknown, kind: Kind): boolean {
  switch (kind) {
    case 'boolean':
      return typeof v === 'boolean';
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v);
    case 'string':
      return typeof v === 'string';
    case 'strings':
      return Array.isArray(v) && v.every((x) => typeof x === 'string');
    case 'object':
      return isObj(v);
    case 'objects':
      return Array.isArray(v) && v.every(isObj);
  }
}

function strict(v: unknown, at: Seg[], p: Problems, fields: Fields): v is Record<string, unknown> {
  if (!isObj(v)) {
    p.add(at, MSG.wrongType('object', v), S);
    return false;
  }
  for (const [k, [, o]] of Object.entries(fields))
    if (o?.required && v[k] === undefined) p.add([...at, k], MSG.required, S);
  for (const [k, val] of Object.entries(v)) {
    const f = fields[k];
    if (!f) p.add([...at, k], MSG.unknown, S);
    else if (!(val === null && f[1]?.nullable) && !ofKind(val, f[0]))
      p.add(
        [...at, k],
        MSG.wrongType(f[0] === 'strings' ? 'array of strings' : f[0] === 'objects' ? 'array of objects' : f[0], val),
        S,
      );
  }
  return true;
}

function strategy(
  v: unknown,
  at: Seg[],
  p: Problems,
  fields: Fields,
  types: readonly string[],
  required: boolean,
): Record<string, unknown> | undefined {
  if (v === undefined || v === null) {
    // validation.go reads the zero value's type "" for runAsUser and seLinuxContext; fsGroup and supplementalGroups are defaulted first
    if (required) p.add([...at, 'type'], MSG.enumValue('', types), S);
    return undefined;
  }
  if (!strict(v, at, p, fields)) return undefined;
  if (!types.includes(v.type as string)) p.add([...at, 'type'], MSG.enumValue(v.type, types), S);
  return v;
}

export function checkSecurityContextConstraints(obj: Record<string, unknown>, p: Problems): void {
  strict(obj, [], p, TOP);
  if (isObj(obj.metadata)) {
    walkClientNode(obj.metadata, 'V1ObjectMeta', ['metadata'], p);
    if (obj.metadata.namespace !== undefined)
      p.add(['metadata', 'namespace'], 'not allowed: SecurityContextConstraints are cluster-scoped', S);
  }
  if (typeof obj.priority === 'number' && obj.priority < 0) p.add(['priority'], 'priority cannot be negative', S);
  if (
    obj.userNamespaceLevel !== undefined &&
    !['AllowHostLevel', 'RequirePodLevel'].includes(obj.userNamespaceLevel as string)
  ) {
    p.add(['userNamespaceLevel'], MSG.enumValue(obj.userNamespaceLevel, ['AllowHostLevel', 'RequirePodLevel']), S);
  }

  const user = strategy(
    obj.runAsUser,
    ['runAsUser'],
    p,
    RUN_AS_USER,
    ['MustRunAs', 'MustRunAsNonRoot', 'MustRunAsRange', 'RunAsAny'],
    true,
  );
  for (const k of ['uid', 'uidRangeMin', 'uidRangeMax'])
    if (typeof user?.[k] === 'number' && user[k] < 0) p.add(['runAsUser', k], 'cannot be negative', S);
  if (user?.type === 'MustRunAs' && user.uid === undefined)
    p.add(['runAsUser', 'uid'], 'MustRunAs requires a UID (admission cannot use this SCC)', S);
  if (user?.type === 'MustRunAsRange' && (user.uidRangeMin === undefined) !== (user.uidRangeMax === undefined))
    p.add(
      ['runAsUser'],
      'MustRunAsRange requires both uidRangeMin and uidRangeMax, or neither (the namespace range)',
      S,
    );
  const seLinux = strategy(obj.seLinuxContext, ['seLinuxContext'], p, SELINUX, ['MustRunAs', 'RunAsAny'], true);
  if (seLinux?.seLinuxOptions !== undefined)
    strict(seLinux.seLinuxOptions, ['seLinuxContext', 'seLinuxOptions'], p, SELINUX_OPTIONS);
  for (const field of ['fsGroup', 'supplementalGroups']) {
    const g = strategy(obj[field], [field], p, GROUPS, ['MustRunAs', 'RunAsAny'], false);
    arr(g?.ranges).forEach((r, i) => {
      if (!strict(r, [field, 'ranges', i], p, RANGE)) return;
      const { min = 0, max = 0 } = r as { min?: number; max?: number };
      if (min < 0) p.add([field, 'ranges', i, 'min'], 'min cannot be negative', S);
      if (max < 0) p.add([field, 'ranges', i, 'max'], 'max cannot be negative', S);
      if (min > max) p.add([field, 'ranges', i, 'min'], 'min cannot be greater than max', S);
    });
  }

  const drops = arr(obj.requiredDropCapabilities);
  for (const field of ['defaultAddCapabilities', 'allowedCapabilities']) {
    for (const cap of arr(obj[field]))
      if (drops.includes(cap))
        p.add([field], `capability ${JSON.stringify(cap)} is listed in ${field} and requiredDropCapabilities`, S);
  }
  if (arr(obj.allowedCapabilities).includes('*') && drops.length > 0)
    p.add(
      ['requiredDropCapabilities'],
      'required capabilities must be empty when all capabilities are allowed by a wildcard',
      S,
    );
  const volumes = arr(obj.volumes);
  if (volumes.includes('none') && volumes.length > 1)
    p.add(['volumes'], "if 'none' is specified, no other values are allowed", S);
  arr(obj.allowedFlexVolumes).forEach((f, i) => strict(f, ['allowedFlexVolumes', i], p, FLEX));
  if (arr(obj.allowedFlexVolumes).length > 0 && !volumes.includes('flexVolume') && !volumes.includes('*')) {
    p.add(['allowedFlexVolumes'], "volumes does not include 'flexVolume' or '*', so no flex volumes are allowed", S);
  }
  if (obj.defaultAllowPrivilegeEscalation === true && obj.allowPrivilegeEscalation === false) {
    p.add(
      ['defaultAllowPrivilegeEscalation'],
      'Cannot set DefaultAllowPrivilegeEscalation to true without also setting AllowPrivilegeEscalation to true',
      S,
    );
  }
}
