import {
  affinityProblems,
  podAffinityTermProblems,
  tolerationKeyProblem,
  tolerationProblems,
  tolerationValueProblem,
  topologyKeyProblem,
  weightProblem,
} from '../../../support/kubernetes-validation';

const paths = (problems: readonly { path: string }[]) => problems.map((p) => p.path);

describe('tolerations', () => {
  test.each([
    [{ key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoSchedule' }, []],
    [{ operator: 'Exists' }, []],
    [{ key: 'dedicated', value: 'backup', effect: 'NoExecute', tolerationSeconds: 60 }, []],
    [{ key: 'dedicated', operator: 'Equal', value: '' }, []],
    [{ value: 'x' }, ['operator']],
    [{ key: 'a b', operator: 'Exists' }, ['key']],
    [{ key: 'dedicated', value: 'x', tolerationSeconds: 60 }, ['effect']],
    [{ key: 'dedicated', operator: 'Exists', value: 'x' }, ['value']],
    [{ key: 'dedicated', value: 'bad value' }, ['value']],
    [{ key: 'dedicated', value: 'v'.repeat(64) }, ['value']],
    [{ key: 'dedicated', operator: 'In', value: 'x' }, ['operator']],
    [{ key: 'dedicated', operator: 'Exists', effect: 'NoScheduleNoAdmit' }, ['effect']],
  ])('%j → %j', (toleration, expected) => {
    expect(paths(tolerationProblems(toleration))).toEqual(expected);
  });

  test('key and value rules on their own', () => {
    expect(tolerationKeyProblem('', 'Exists')).toBeUndefined();
    expect(tolerationKeyProblem('', 'Equal')).toContain('needs operator Exists');
    expect(tolerationKeyProblem('example.com/dedicated', 'Equal')).toBeUndefined();
    expect(tolerationValueProblem('x', 'Exists')).toBe(
      'received "x"; value must be empty when `operator` is \'Exists\'',
    );
    expect(tolerationValueProblem('-x', 'Equal')).toContain('a valid label must be');
  });
});

describe('topology keys and weights', () => {
  test('a topologyKey is a non-empty qualified name', () => {
    expect(topologyKeyProblem('kubernetes.io/hostname')).toBeUndefined();
    expect(topologyKeyProblem('topology.kubernetes.io/zone')).toBeUndefined();
    expect(topologyKeyProblem('')).toContain('can not be empty');
    expect(topologyKeyProblem('zone/')).toContain('name part must be non-empty');
  });

  test('weights from 1 to 100', () => {
    for (const w of [1, 50, 100]) expect(weightProblem(w)).toBeUndefined();
    for (const w of [0, 101, -1, 1.5, '10']) expect(weightProblem(w)).toContain('must be in the range 1-100');
  });
});

describe('affinity', () => {
  test('a pod anti-affinity term as the core renders it passes', () => {
    const term = {
      labelSelector: { matchLabels: { 'backup-cronjobs.io/serialization-group': 'etcd' } },
      topologyKey: 'kubernetes.io/hostname',
      namespaces: ['kube-system'],
    };
    expect(podAffinityTermProblems(term)).toEqual([]);
    expect(affinityProblems({ podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term] } })).toEqual(
      [],
    );
  });

  test('every part of a pod affinity term, with paths', () => {
    const term = {
      labelSelector: { matchLabels: { group: 'bad value' } },
      namespaceSelector: { matchExpressions: [{ key: 'team', operator: 'In' }] },
      namespaces: ['Kube_System'],
      topologyKey: '',
    };
    expect(
      paths(
        affinityProblems({
          podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 0, podAffinityTerm: term }] },
        }),
      ),
    ).toEqual([
      'podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight',
      'podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.labelSelector.matchLabels[group]',
      'podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.namespaceSelector.matchExpressions[0].values',
      'podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.namespaces[0]',
      'podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.topologyKey',
    ]);
  });

  test('node affinity: at least one required term; requirements, fields and weights checked', () => {
    expect(
      paths(
        affinityProblems({
          nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] } },
        }),
      ),
    ).toEqual(['nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms']);
    const affinity = {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [
            {
              matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['cp 1'] }],
              matchFields: [
                { key: 'metadata.name', operator: 'In', values: ['cp-1', 'cp-2'] },
                { key: 'spec.nodeName', operator: 'Exists' },
              ],
            },
          ],
        },
        preferredDuringSchedulingIgnoredDuringExecution: [
          { weight: 101, preference: { matchExpressions: [{ key: 'zone', operator: 'Gt', values: ['a'] }] } },
        ],
      },
    };
    const base = 'nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]';
    expect(paths(affinityProblems(affinity))).toEqual([
      `${base}.matchExpressions[0].values[0]`,
      `${base}.matchFields[0].values`,
      `${base}.matchFields[1].operator`,
      `${base}.matchFields[1].key`,
      'nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight',
      'nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference.matchExpressions[0].values[0]',
    ]);
  });
});
