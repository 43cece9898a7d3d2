// The last guard on SecurityContextConstraints (test/support/kubernetes-validation/openshift.ts): OpenShift's own
// restricted-v2 passes, and each break the strict test oracle (test/support/k8s-validate) reports is
// refused at the same field.
import { validateObject } from '../../../support/kubernetes-validation';
import { validateManifest } from '../../../support/k8s-validate';
import { mutate, validSecurityContextConstraints } from '../../../support/k8s-validate/fixtures';

const paths = (problems: readonly { path: string }[]) => problems.map((p) => p.path);

test('restricted-v2 as OpenShift prints it passes the guard', () => {
  expect(validateObject(validSecurityContextConstraints())).toEqual([]);
});

test.each<[string, string, unknown, string]>([
  ['name', 'metadata.name', 'Restricted_V2', 'metadata.name'],
  ['unknown field (the CRD would drop it)', 'allowHostPath', true, 'allowHostPath'],
  ['required bool', 'allowHostNetwork', undefined, 'allowHostNetwork'],
  ['required nullable priority', 'priority', undefined, 'priority'],
  ['required list', 'defaultAddCapabilities', undefined, 'defaultAddCapabilities'],
  ['bool type', 'readOnlyRootFilesystem', 'true', 'readOnlyRootFilesystem'],
  ['list type', 'requiredDropCapabilities', 'ALL', 'requiredDropCapabilities'],
  ['negative priority', 'priority', -1, 'priority'],
  ['runAsUser strategy', 'runAsUser.type', 'MustRunAsRoot', 'runAsUser.type'],
  ['runAsUser missing', 'runAsUser', undefined, 'runAsUser.type'],
  ['MustRunAs without uid', 'runAsUser', { type: 'MustRunAs' }, 'runAsUser.uid'],
  ['negative uid', 'runAsUser', { type: 'MustRunAs', uid: -1 }, 'runAsUser.uid'],
  ['SELinux strategy', 'seLinuxContext.type', 'MustRunAsRange', 'seLinuxContext.type'],
  ['fsGroup strategy', 'fsGroup.type', 'MustRunAsRange', 'fsGroup.type'],
  [
    'range min > max',
    'supplementalGroups',
    { type: 'MustRunAs', ranges: [{ min: 5, max: 1 }] },
    'supplementalGroups.ranges[0].min',
  ],
  ['capability allowed and dropped', 'allowedCapabilities', ['ALL'], 'allowedCapabilities'],
  ['drops with a wildcard', 'allowedCapabilities', ['*'], 'requiredDropCapabilities'],
  ['none with others', 'volumes', ['none', 'secret'], 'volumes'],
])('%s (%s): refused where the oracle refuses it', (_what, path, value, reported) => {
  const scc = mutate(validSecurityContextConstraints(), path, value);
  expect(paths(validateObject(scc))).toContain(reported);
  expect(validateManifest(scc).some((e) => e.startsWith(`${reported}: `) || e.startsWith(`${reported}.`))).toBe(true);
});

test('defaultAllowPrivilegeEscalation true needs allowPrivilegeEscalation', () => {
  expect(
    paths(validateObject(mutate(validSecurityContextConstraints(), 'defaultAllowPrivilegeEscalation', true))),
  ).toEqual(['defaultAllowPrivilegeEscalation']);
});

test('messages name the value received and what is allowed', () => {
  const [problem] = validateObject(mutate(validSecurityContextConstraints(), 'runAsUser.type', 'MustRunAsRoot'));
  expect(problem.message).toBe(
    'received "MustRunAsRoot"; supported values: "MustRunAs", "MustRunAsNonRoot", "MustRunAsRange", "RunAsAny"',
  );
});
