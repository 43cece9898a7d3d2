// PersistentVolumeClaims, ConfigMaps, Secrets, ServiceAccounts, Roles, RoleBindings (api-rules/objects.ts
// and the schema layers).
import { validateManifest } from '..';
import {
  RuleCase,
  expectApiRule,
  expectError,
  mutate,
  validConfigMap,
  validPvc,
  validRole,
  validRoleBinding,
  validSecret,
  validServiceAccount,
} from '../fixtures';

const v = (o: unknown) => validateManifest(o);

test.each<RuleCase>([
  [
    'PVC without access mode',
    () => mutate(validPvc(), 'spec.accessModes', undefined),
    'spec.accessModes',
    'missing required field',
  ],
  [
    'PVC with ReadWriteOncePod and another mode',
    () => mutate(validPvc(), 'spec.accessModes', ['ReadOnlyMany', 'ReadWriteOncePod']),
    'spec.accessModes',
    'may not use ReadWriteOncePod with other access modes',
  ],
  [
    'PVC without storage request',
    () => mutate(validPvc(), 'spec.resources.requests', {}),
    'spec.resources.requests.storage',
    'missing required field',
  ],
  [
    'PVC with a zero storage request',
    () => mutate(validPvc(), 'spec.resources.requests.storage', '0Gi'),
    'spec.resources.requests.storage',
    'must be greater than 0',
  ],
  [
    'PVC storageClassName',
    () => mutate(validPvc(), 'spec.storageClassName', 'Standard'),
    'spec.storageClassName',
    'bad storage class name "Standard"',
  ],
  [
    'PVC selector value',
    () => mutate(validPvc(), 'spec.selector', { matchLabels: { tier: 'a b' } }),
    'spec.selector.matchLabels.tier',
    'bad label value',
  ],
  ['ConfigMap key', () => mutate(validConfigMap(), 'data', { 'a b': 'x' }), 'data["a b"]', 'bad ConfigMap key'],
  [
    'ConfigMap key in data and binaryData',
    () => mutate(validConfigMap(), 'data', { 'blob.bin': 'x' }),
    'binaryData["blob.bin"]',
    'duplicate key',
  ],
  ['ConfigMap name', () => mutate(validConfigMap(), 'metadata.name', 'Redis'), 'metadata.name', 'bad name'],
  ['Secret key ".."', () => mutate(validSecret(), 'stringData', { '..': 'x' }), 'stringData[".."]', 'bad Secret key'],
  [
    'TLS Secret without tls.crt',
    () => mutate(validSecret(), 'type', 'kubernetes.io/tls'),
    'data["tls.crt"]',
    'missing required field',
  ],
  [
    'ServiceAccount name',
    () => mutate(validServiceAccount(), 'metadata.name', 'Backup SA'),
    'metadata.name',
    'bad name',
  ],
  [
    'Role without verbs',
    () => mutate(validRole(), 'rules[0].verbs', []),
    'rules[0].verbs',
    'must contain at least one value',
  ],
  [
    'Role without apiGroups',
    () => mutate(validRole(), 'rules[0].apiGroups', undefined),
    'rules[0].apiGroups',
    'at least one api group',
  ],
  ['Role name with "/"', () => mutate(validRole(), 'metadata.name', 'a/b'), 'metadata.name', 'bad name'],
  [
    'RoleBinding roleRef.kind',
    () => mutate(validRoleBinding(), 'roleRef.kind', 'Rol'),
    'roleRef.kind',
    'value "Rol" not in enum',
  ],
  [
    'RoleBinding roleRef.apiGroup',
    () => mutate(validRoleBinding(), 'roleRef.apiGroup', 'rbac'),
    'roleRef.apiGroup',
    'value "rbac" not in enum',
  ],
  [
    'RoleBinding subject kind',
    () => mutate(validRoleBinding(), 'subjects[0].kind', 'Serviceaccount'),
    'subjects[0].kind',
    'value "Serviceaccount" not in enum',
  ],
  [
    'RoleBinding ServiceAccount namespace',
    () => mutate(validRoleBinding(), 'subjects[0].namespace', 'Backups'),
    'subjects[0].namespace',
    'bad name',
  ],
])('%s', (_rule, bad, path, ...fragments) => {
  expectApiRule(bad(), path, ...fragments);
});

test('the schema layers report unknown fields, types and enums of these kinds', () => {
  expectError(
    v(mutate(validPvc(), 'spec.accessModes', ['ReadWriteSometimes'])),
    'spec.accessModes[0]: value "ReadWriteSometimes" not in enum',
  );
  expectError(v(mutate(validPvc(), 'spec.storageClass', 'x')), 'spec.storageClass: unknown field');
  expectError(
    v(mutate(validConfigMap(), 'data.RETENTION_DAYS', 7)),
    'data.RETENTION_DAYS: wrong type: expected string, got integer',
  );
  expectError(
    v(mutate(validConfigMap(), 'binaryData', { 'blob.bin': 'not base64!' })),
    'binaryData["blob.bin"]: invalid base64 data',
  );
  expectError(v(mutate(validConfigMap(), 'datas', {})), 'datas: unknown field');
  expectError(v(mutate(validSecret(), 'data.token', 'not base64!')), 'data.token: invalid base64 data');
  expectError(v(mutate(validSecret(), 'stringdata', {})), 'stringdata: unknown field');
  expectError(
    v(mutate(validServiceAccount(), 'automountServiceAccountToken', 'no')),
    'automountServiceAccountToken: wrong type: expected boolean',
  );
  expectError(v(mutate(validServiceAccount(), 'imagePullSecret', [])), 'imagePullSecret: unknown field');
  expectError(v(mutate(validRole(), 'rules[0].verbs', undefined)), 'rules[0].verbs: missing required field');
  expectError(v(mutate(validRole(), 'rules[0].resource', ['pods'])), 'rules[0].resource: unknown field');
  expectError(v(mutate(validRoleBinding(), 'roleRef', undefined)), 'roleRef: missing required field');
  expectError(v(mutate(validRoleBinding(), 'subjects[0].namespaces', 'x')), 'subjects[0].namespaces: unknown field');
});

test('a Role name may contain ":" (path segment names)', () => {
  expect(v(mutate(validRole(), 'metadata.name', 'backup:reader'))).toEqual([]);
});
