import { roleBindingProblems, roleProblems } from '../../../support/kubernetes-validation';

const paths = (problems: readonly { path: string }[]) => problems.map((p) => p.path);

describe('Role rules', () => {
  test('resource rules need verbs, apiGroups and resources; a Role cannot name non-resource URLs', () => {
    expect(roleProblems({ rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }] })).toEqual([]);
    expect(
      paths(
        roleProblems({
          rules: [
            { resources: ['pods'] },
            { apiGroups: ['batch'], verbs: ['get'] },
            { nonResourceURLs: ['/metrics'], verbs: ['get'] },
          ],
        }),
      ),
    ).toEqual(['rules[0].verbs', 'rules[0].apiGroups', 'rules[1].resources', 'rules[2].nonResourceURLs']);
  });
});

describe('RoleBinding', () => {
  const binding = {
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'backup:reader' },
    subjects: [
      { kind: 'ServiceAccount', name: 'backup', namespace: 'kube-system' },
      { kind: 'User', name: 'alice@example.com' },
      { kind: 'Group', name: 'ops', apiGroup: 'rbac.authorization.k8s.io' },
    ],
  };

  test('a valid binding passes', () => {
    expect(roleBindingProblems(binding)).toEqual([]);
  });

  test('roleRef and subjects', () => {
    const bad = {
      roleRef: { apiGroup: 'rbac', kind: 'Policy', name: 'a/b' },
      subjects: [
        { kind: 'ServiceAccount', name: 'Backup', apiGroup: 'v1' },
        { kind: 'User', name: 'bob', apiGroup: 'v1' },
        { kind: 'Robot', name: 'r' },
        { kind: 'User' },
      ],
    };
    expect(paths(roleBindingProblems(bad))).toEqual([
      'roleRef.apiGroup',
      'roleRef.kind',
      'roleRef.name',
      'subjects[0].name',
      'subjects[0].apiGroup',
      'subjects[1].apiGroup',
      'subjects[2].kind',
      'subjects[3].name',
    ]);
  });
});
