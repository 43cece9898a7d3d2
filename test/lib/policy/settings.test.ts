// Job settings: checks beyond the schema, at every settings level.
import { validatePolicy } from '../../../lib';
import { redisPolicy } from '../engines/redis/fixtures';

describe('pod options', () => {
  // found by test/kube/differential.test.ts: the API server refuses these names; they reached the render's last guard
  test.each(['.', '..', '..x'])('the env name %j is refused at its path', (name) => {
    const doc = redisPolicy({}, { defaults: { pod: { env: [{ name, value: '1' }] } } });
    expect(() => validatePolicy(doc)).toThrow(
      /spec\.defaults\.pod\.env\[0\]\.name: .*not "\." and not starting with "\.\."/,
    );
  });

  // found by test/lib/model/fuzz: the container got both, the API server warns and the later one wins
  test('an env name given twice is refused at the second entry', () => {
    const doc = redisPolicy(
      {},
      {
        defaults: {
          pod: {
            env: [
              { name: 'LOG_LEVEL', value: '1' },
              { name: 'LOG_LEVEL', secretKeyRef: { name: 'creds', key: 'level' } },
            ],
          },
        },
      },
    );
    expect(() => validatePolicy(doc)).toThrow(
      /spec\.defaults\.pod\.env\[1\]\.name: received "LOG_LEVEL"; env names must be unique/,
    );
  });

  // found by test/lib/model/fuzz: two volumeMounts with one mountPath, which the API server refuses
  test('a mount path given twice is refused at the second volume', () => {
    const doc = redisPolicy(
      {},
      {
        defaults: {
          pod: {
            volumes: [
              { name: 'a', mountPath: '/extra', emptyDir: {} },
              { name: 'b', mountPath: '/extra', configMap: { name: 'conf' } },
            ],
          },
        },
      },
    );
    expect(() => validatePolicy(doc)).toThrow(
      /spec\.defaults\.pod\.volumes\[1\]\.mountPath: received "\/extra"; mount paths must be unique/,
    );
  });
});

describe('node affinity', () => {
  const withRequirement = (requirement: Record<string, unknown>) =>
    redisPolicy({}, { defaults: { placement: { nodeAffinity: [requirement] } } });

  // found by test/lib/model/fuzz: both passed the policy and tripped the last guard
  test('a Gt threshold beyond 64 bits is refused', () => {
    expect(() =>
      validatePolicy(withRequirement({ key: 'example.com/cores', operator: 'Gt', values: ['9223372036854775808'] })),
    ).toThrow(
      /spec\.defaults\.placement\.nodeAffinity\[0\]\.values: received \["9223372036854775808"\]; operator Gt takes exactly one integer value \(64-bit\)/,
    );
  });

  test('a Lt threshold that no node label value can be (negative) is refused', () => {
    expect(() =>
      validatePolicy(withRequirement({ key: 'example.com/cores', operator: 'Lt', values: ['-5'], weight: 10 })),
    ).toThrow(/spec\.defaults\.placement\.nodeAffinity\[0\]\.values\[0\]: received "-5"; a valid label must be/);
  });

  test('the largest 64-bit threshold is accepted', () => {
    expect(() =>
      validatePolicy(withRequirement({ key: 'example.com/cores', operator: 'Gt', values: ['9223372036854775807'] })),
    ).not.toThrow();
  });
});

describe('durations of 32-bit fields', () => {
  // found by test/lib/model/fuzz: 99999w became ttlSecondsAfterFinished 60479395200, beyond the field's int32
  test('ttlAfterFinished beyond 2147483647s is refused', () => {
    expect(() => validatePolicy(redisPolicy({}, { defaults: { ttlAfterFinished: '99999w' } }))).toThrow(
      /spec\.defaults\.ttlAfterFinished: received "99999w"; ttlSecondsAfterFinished is a 32-bit field: at most 2147483647s/,
    );
    expect(() => validatePolicy(redisPolicy({}, { defaults: { ttlAfterFinished: '2147483647s' } }))).not.toThrow();
  });
});

describe('node pins', () => {
  // found by test/lib/model/fuzz: "Node-A" passed the policy; the kubelet lower-cases the hostname label, so it never matches
  test('an upper-case kubernetes.io/hostname value is refused in nodeSelector and nodeAffinity', () => {
    const placement = {
      nodeSelector: { 'kubernetes.io/hostname': 'Node-A' },
      nodeAffinity: [{ key: 'kubernetes.io/hostname', operator: 'NotIn', values: ['Node-B'] }],
    };
    expect(() => validatePolicy(redisPolicy({}, { defaults: { placement } }))).toThrow(
      new RegExp(
        [
          'spec\\.defaults\\.placement\\.nodeSelector\\["kubernetes\\.io/hostname"\\]: received "Node-A"; the kubelet lower-cases .* use "node-a"',
          '[^]*spec\\.defaults\\.placement\\.nodeAffinity\\[0\\]\\.values\\[0\\]: received "Node-B"; the kubelet lower-cases',
        ].join(''),
      ),
    );
  });
});
