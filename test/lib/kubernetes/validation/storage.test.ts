import {
  accessModesProblem,
  ephemeralVolumeProblems,
  persistentVolumeClaimSpecProblems,
  storageClassNameProblem,
} from '../../../support/kubernetes-validation';

const paths = (problems: readonly { path: string }[]) => problems.map((p) => p.path);

describe('PVC access modes', () => {
  test('each supported mode alone, or several without ReadWriteOncePod', () => {
    for (const modes of [
      ['ReadWriteOnce'],
      ['ReadOnlyMany'],
      ['ReadWriteMany'],
      ['ReadWriteOncePod'],
      ['ReadWriteOnce', 'ReadOnlyMany'],
    ]) {
      expect(accessModesProblem(modes)).toBeUndefined();
    }
  });

  test('ReadWriteOncePod may not be combined with another mode', () => {
    expect(accessModesProblem(['ReadWriteOncePod', 'ReadWriteOnce'])).toBe(
      'received ["ReadWriteOncePod","ReadWriteOnce"]; may not use ReadWriteOncePod with other access modes',
    );
  });

  test('at least one, all supported', () => {
    expect(accessModesProblem([])).toBe('at least 1 access mode is required');
    expect(accessModesProblem(['ReadWriteOnce', 'RWO'])).toContain('received ["RWO"]; supported values');
  });
});

describe('storageClassName', () => {
  test('empty (no class) or a DNS-1123 subdomain of at most 253 characters', () => {
    for (const name of ['', 'standard', 'fast-ssd', 'ebs.csi.aws.com', 'c'.repeat(253)])
      expect(storageClassNameProblem(name)).toBeUndefined();
    for (const name of ['Fast_SSD', 'fast ssd', 'c'.repeat(254)]) expect(storageClassNameProblem(name)).toBeDefined();
  });
});

describe('PVC specs', () => {
  const valid = {
    accessModes: ['ReadWriteOnce'],
    storageClassName: 'standard',
    resources: { requests: { storage: '10Gi' } },
  };

  test('a complete spec passes', () => {
    expect(persistentVolumeClaimSpecProblems(valid)).toEqual([]);
  });

  test.each([
    [{ ...valid, accessModes: [] }, ['accessModes']],
    [{ ...valid, resources: {} }, ['resources[storage]']],
    [{ ...valid, resources: { requests: { storage: '0' } } }, ['resources[storage]']],
    [{ ...valid, resources: { requests: { storage: '-1Gi' } } }, ['resources[storage]']],
    [{ ...valid, resources: { requests: { storage: '10GB' } } }, ['resources[storage]']],
    [{ ...valid, storageClassName: 'Fast_SSD' }, ['storageClassName']],
    [{ ...valid, volumeMode: 'Raw' }, ['volumeMode']],
    [{ ...valid, selector: { matchLabels: { tier: '-x' } } }, ['selector.matchLabels[tier]']],
  ])('%j → %j', (spec, expected) => {
    expect(paths(persistentVolumeClaimSpecProblems(spec))).toEqual(expected);
  });

  test('a zero request says it must be greater than zero', () => {
    expect(
      persistentVolumeClaimSpecProblems({ ...valid, resources: { requests: { storage: '0Gi' } } })[0].message,
    ).toBe('received "0"; must be greater than zero');
  });
});

describe('generic ephemeral volumes', () => {
  const spec = { accessModes: ['ReadWriteOncePod'], resources: { requests: { storage: '20Gi' } } };

  test('a claim template with labels passes', () => {
    expect(ephemeralVolumeProblems({ volumeClaimTemplate: { metadata: { labels: { app: 'backup' } }, spec } })).toEqual(
      [],
    );
  });

  test('the template is required and its metadata holds only labels and annotations', () => {
    expect(paths(ephemeralVolumeProblems({}))).toEqual(['volumeClaimTemplate']);
    expect(
      paths(
        ephemeralVolumeProblems({
          volumeClaimTemplate: {
            metadata: { name: 'scratch', annotations: { 'a b': 'x' } },
            spec: { ...spec, accessModes: ['ReadWriteOncePod', 'ReadOnlyMany'] },
          },
        }),
      ),
    ).toEqual([
      'volumeClaimTemplate.metadata.name',
      'volumeClaimTemplate.metadata.annotations[a b]',
      'volumeClaimTemplate.spec.accessModes',
    ]);
  });
});
