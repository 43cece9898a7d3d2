import { compactLike } from '../../../../lib/kubernetes/objects';
import { CleanParts, validateObject } from '../../../support/kubernetes-validation';
import type { Problem } from '../../../support/kubernetes-validation';
import { renderPolicy } from '../../../../lib';
import type { Manifest } from '../../../../lib';
const { benchPolicy } = require('../../../../bench/policy') as { benchPolicy: (shards: number) => unknown };

describe('CleanParts', () => {
  test('a rule checks an object it found clean once; an object with problems, and a value that is no object, every time', () => {
    const checked = new CleanParts();
    const rule = jest.fn((v: unknown): Problem[] =>
      (v as { bad?: boolean } | null)?.bad ? [{ path: 'bad', message: 'is bad' }] : [],
    );
    const clean = { bad: false };
    const broken = { bad: true };
    expect([checked.check(rule, clean), checked.check(rule, clean)]).toEqual([[], []]);
    expect(rule).toHaveBeenCalledTimes(1);
    expect(checked.check(rule, broken)).toEqual([{ path: 'bad', message: 'is bad' }]);
    expect(checked.check(rule, broken)).toEqual([{ path: 'bad', message: 'is bad' }]);
    expect(rule).toHaveBeenCalledTimes(3);
    checked.check(rule, 'text');
    checked.check(rule, 'text');
    expect(rule).toHaveBeenCalledTimes(5);
    // another rule has not checked the object
    const other = jest.fn((): Problem[] => []);
    checked.check(other, clean);
    expect(other).toHaveBeenCalledTimes(1);
  });

  test('a text rule checks a text it found clean once, and a text with a problem every time', () => {
    const checked = new CleanParts();
    const rule = jest.fn((t: string) => (t.startsWith('-') ? `received "${t}"; must not start with -` : undefined));
    expect([checked.text(rule, 'ok'), checked.text(rule, 'ok')]).toEqual([undefined, undefined]);
    expect(checked.text(rule, '-x')).toBe('received "-x"; must not start with -');
    expect(checked.text(rule, '-x')).toBe('received "-x"; must not start with -');
    expect(rule.mock.calls.map(([t]) => t)).toEqual(['ok', '-x', '-x']);
  });

  test('validateObject with CleanParts finds in a CronJob sharing the clean parts of a checked one every problem it finds without', () => {
    const [first, second] = renderPolicy(benchPolicy(2)).filter((o) => o.kind === 'CronJob');
    // the second CronJob as the render shares it, with one env var and one toleration broken
    type Spec = { containers: { env: { name: string; value?: string }[] }[]; tolerations?: unknown[] };
    const podOf = (o: Manifest) =>
      (o.spec as { jobTemplate: { spec: { template: { spec: Spec } } } }).jobTemplate.spec.template.spec;
    const broken = JSON.parse(JSON.stringify(second)) as Manifest;
    podOf(broken).containers[0].env.push({ name: '1BAD' });
    podOf(broken).tolerations = [{ operator: 'Exists', effect: 'Sometimes' }];
    (broken.metadata as { labels?: Record<string, string> }).labels = {
      ...broken.metadata.labels,
      'backup-cronjobs.io/shard': '-bad-',
    };
    const sharing = compactLike(broken, first);
    expect(podOf(sharing).containers[0].env[0]).toBe(podOf(first).containers[0].env[0]);
    const checked = new CleanParts();
    expect(validateObject(first, checked)).toEqual([]);
    const expected = validateObject(broken);
    expect(expected.map((p) => p.path)).toEqual([
      'metadata.labels[backup-cronjobs.io/shard]',
      expect.stringMatching(/^spec\.jobTemplate\.spec\.template\.spec\.containers\[0\]\.env\[\d+\]\.name$/),
      'spec.jobTemplate.spec.template.spec.tolerations[0].effect',
    ]);
    expect(validateObject(sharing, checked)).toEqual(expected);
  });
});
