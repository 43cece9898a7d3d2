// Problem paths are arrays (PolicyPath) from the check to the issue: each issue's text path is its segments
// formatted once, and the front ends map issues to prop paths from the segments.
import { PolicyError, formatPath, renderPolicy } from '../../../lib/internal';
import type { PolicyIssue } from '../../../lib/internal';
import { withPropPaths } from '../../../lib/engines/props';
import { REDIS_PROPS_LAYOUT, redisSchedulePolicy } from '../../../lib/engines/redis/props';
import { redisPolicy } from '../engines/redis/fixtures';

function issuesOf(fn: () => unknown): readonly PolicyIssue[] {
  try {
    fn();
  } catch (e) {
    if (e instanceof PolicyError) return e.issues;
    throw e;
  }
  throw new Error('expected a PolicyError, got none');
}

test('formatPath: dotted keys, [n] for indexes, quoted keys that are not plain words, "" for the whole', () => {
  expect(formatPath(['spec', 'redis', 'shards', 0, 'name'])).toBe('spec.redis.shards[0].name');
  expect(formatPath(['metadata', 'labels', 'app.kubernetes.io/name'])).toBe(
    'metadata.labels["app.kubernetes.io/name"]',
  );
  expect(formatPath(['spec', 'defaults', 'pod', 'resources', 'requests', '5'])).toBe(
    'spec.defaults.pod.resources.requests["5"]',
  );
  expect(formatPath([])).toBe('');
});

test('every issue, of the schema and of the checks beyond it, is its segments formatted', () => {
  const issues = issuesOf(() =>
    renderPolicy({
      ...redisPolicy(
        { shards: ['a', 'a'], sentinel: { addresses: ['s:1', 's:1'] } },
        { defaults: { pod: { labels: { 'bad key!': 'x' } }, stagger: { window: '1s' } }, unknown: 1 },
      ),
    }),
  );
  expect(issues.length).toBeGreaterThanOrEqual(4);
  for (const i of issues)
    expect({ formatted: formatPath(i.segments), message: i.message }).toEqual({
      formatted: i.path,
      message: i.message,
    });
  expect(issues.map((i) => i.segments)).toEqual(
    expect.arrayContaining([
      ['spec', 'unknown'],
      ['spec', 'redis', 'shards', 1],
      ['spec', 'defaults', 'pod', 'labels', 'bad key!'],
    ]),
  );
});

test('a problem under a quoted key maps to its prop path from the segments', () => {
  const error = (() => {
    try {
      renderPolicy(redisSchedulePolicy({ name: 'cache', shards: ['a'], labels: { 'bad key!': 'x' } } as never));
    } catch (e) {
      if (e instanceof PolicyError) return e;
      throw e;
    }
    throw new Error('expected a PolicyError');
  })();
  const mapped = withPropPaths(error, REDIS_PROPS_LAYOUT).issues.find((i) => i.path.startsWith('labels'));
  expect(mapped?.path).toBe('labels["bad key!"]');
  expect(mapped?.segments).toEqual(['labels', 'bad key!']);
});
