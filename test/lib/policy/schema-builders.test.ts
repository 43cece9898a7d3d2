// Patterns of the schema builders, checked against what the API server accepts.
import { validatePolicy } from '../../../lib';
import { redisPolicy } from '../engines/redis/fixtures';

describe('Secret keys', () => {
  // IsConfigMapKey (hasChDirPrefix): not ".", not "..", not starting with ".."; found by test/lib/model/fuzz
  test.each(['.', '..', '...', '..key'])('%j is refused where it names a Secret key', (key) => {
    const doc = redisPolicy({ passwordSecret: { name: 'redis-auth', key } });
    expect(() => validatePolicy(doc)).toThrow(
      /spec\.redis\.passwordSecret\.key: received "[^"]*"; must be a Secret key: .*not "\." and not starting with "\.\."/,
    );
  });

  test.each(['.key', 'a..b', 'key..', '-', '_'])('%j is a Secret key', (key) => {
    expect(() => validatePolicy(redisPolicy({ passwordSecret: { name: 'redis-auth', key } }))).not.toThrow();
  });
});

describe('images', () => {
  // found by test/lib/model/fuzz: " redis" passed the policy and reached containers[].image, which the API server refuses
  test.each([' redis:7', 'redis:7 ', 'redis:7\n'])('%j is refused', (ref) => {
    expect(() => validatePolicy(redisPolicy({ images: { redis: ref } }))).toThrow(
      /spec\.redis\.images\.redis: received "[^"]*"; must be an image reference without leading or trailing whitespace/,
    );
  });
});
