// The schema of the job settings, checked against what the API server accepts.
import { validatePolicy } from '../../../lib';
import { redisPolicy } from '../engines/redis/fixtures';

describe('names of other objects', () => {
  const long = ['a'.repeat(63), 'b'.repeat(63), 'c'.repeat(63), 'd'.repeat(62)].join('.'); // 254 characters, each part a DNS label

  // found by test/lib/model/fuzz: a 254-character priorityClassName passed the policy and tripped the last guard
  test.each(['priorityClassName', 'serviceAccountName'])('a 254-character %s is refused', (field) => {
    expect(() => validatePolicy(redisPolicy({}, { defaults: { pod: { [field]: long } } }))).toThrow(
      new RegExp(`spec\\.defaults\\.pod\\.${field}: .*253`),
    );
    expect(() => validatePolicy(redisPolicy({}, { defaults: { pod: { [field]: long.slice(1) } } }))).not.toThrow();
  });
});

describe('tolerations', () => {
  const withSeconds = (tolerationSeconds: number) =>
    redisPolicy(
      {},
      {
        defaults: {
          placement: { tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoExecute', tolerationSeconds }] },
        },
      },
    );

  // found by test/lib/model/fuzz: 2^63 passed the policy and rendered a tolerationSeconds beyond int64
  test('tolerationSeconds beyond the exact JSON integers is refused', () => {
    expect(() => validatePolicy(withSeconds(2 ** 63))).toThrow(
      /spec\.defaults\.placement\.tolerations\[0\]\.tolerationSeconds: /,
    );
    expect(() => validatePolicy(withSeconds(Number.MAX_SAFE_INTEGER))).not.toThrow();
  });
});
