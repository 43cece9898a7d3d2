// The strict SecurityContextConstraints check (security-context-constraints.ts): OpenShift's own
// restricted-v2 passes; each rule of the CRD and of OpenShift's validation is reported at its field.
import { validateManifest } from '.';
import { expectError, mutate, validSecurityContextConstraints } from './fixtures';

const v = (o: unknown) => validateManifest(o);

test('restricted-v2 as OpenShift prints it is valid (nulls where the CRD says nullable)', () => {
  expect(v(validSecurityContextConstraints())).toEqual([]);
});

test.each<[string, string, unknown, string, ...string[]]>([
  ['cluster-scoped', 'metadata.namespace', 'default', 'metadata.namespace: not allowed', 'openshift-scc'],
  ['name a DNS-1123 subdomain', 'metadata.name', 'Restricted_V2', 'metadata.name: bad name', 'api-rules'],
  ['unknown field (the CRD would prune it)', 'allowHostPath', true, 'allowHostPath: unknown field'],
  ['required bool', 'allowHostNetwork', undefined, 'allowHostNetwork: missing required field'],
  ['required nullable priority', 'priority', undefined, 'priority: missing required field'],
  ['required nullable list', 'volumes', undefined, 'volumes: missing required field'],
  ['bool type', 'readOnlyRootFilesystem', 'true', 'readOnlyRootFilesystem: wrong type: expected boolean'],
  [
    'list of strings',
    'requiredDropCapabilities',
    'ALL',
    'requiredDropCapabilities: wrong type: expected array of strings',
  ],
  ['negative priority', 'priority', -1, 'priority: priority cannot be negative'],
  ['runAsUser strategy', 'runAsUser.type', 'MustRunAsRoot', 'runAsUser.type: value "MustRunAsRoot" not in enum'],
  ['runAsUser required', 'runAsUser', undefined, 'runAsUser.type: value "" not in enum'],
  ['MustRunAs without uid', 'runAsUser', { type: 'MustRunAs' }, 'runAsUser.uid: MustRunAs requires a UID'],
  ['negative uid', 'runAsUser', { type: 'MustRunAs', uid: -1 }, 'runAsUser.uid: cannot be negative'],
  [
    'half a uid range',
    'runAsUser',
    { type: 'MustRunAsRange', uidRangeMin: 0 },
    'runAsUser: MustRunAsRange requires both',
  ],
  ['unknown runAsUser field', 'runAsUser', { type: 'RunAsAny', uidMax: 3 }, 'runAsUser.uidMax: unknown field'],
  [
    'SELinux strategy',
    'seLinuxContext.type',
    'MustRunAsRange',
    'seLinuxContext.type: value "MustRunAsRange" not in enum',
  ],
  [
    'SELinux options fields',
    'seLinuxContext',
    { type: 'MustRunAs', seLinuxOptions: { kind: 'spc_t' } },
    'seLinuxContext.seLinuxOptions.kind: unknown field',
  ],
  ['fsGroup strategy', 'fsGroup.type', 'MustRunAsRange', 'fsGroup.type: value "MustRunAsRange" not in enum'],
  [
    'range min > max',
    'supplementalGroups',
    { type: 'MustRunAs', ranges: [{ min: 5, max: 1 }] },
    'supplementalGroups.ranges[0].min: min cannot be greater than max',
  ],
  [
    'capability allowed and dropped',
    'allowedCapabilities',
    ['ALL'],
    'allowedCapabilities: capability "ALL" is listed in allowedCapabilities and requiredDropCapabilities',
  ],
  [
    'drops with a wildcard',
    'allowedCapabilities',
    ['*'],
    'requiredDropCapabilities: required capabilities must be empty',
  ],
  ['none with others', 'volumes', ['none', 'secret'], "volumes: if 'none' is specified"],
  [
    'flex drivers without flexVolume',
    'allowedFlexVolumes',
    [{ driver: 'x' }],
    "allowedFlexVolumes: volumes does not include 'flexVolume'",
  ],
  ['userNamespaceLevel', 'userNamespaceLevel', 'Host', 'userNamespaceLevel: value "Host" not in enum'],
])('%s', (_what, path, value, prefix, ...fragments) => {
  expectError(v(mutate(validSecurityContextConstraints(), path, value)), prefix, ...fragments);
});

test('defaultAllowPrivilegeEscalation true needs allowPrivilegeEscalation', () => {
  const scc = mutate(validSecurityContextConstraints(), 'defaultAllowPrivilegeEscalation', true);
  expectError(v(scc), 'defaultAllowPrivilegeEscalation: Cannot set DefaultAllowPrivilegeEscalation to true');
});
