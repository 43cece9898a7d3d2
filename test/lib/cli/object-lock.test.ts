// S3 Object Lock in the policy (issue 21.2): the field's checks, and the warnings of `validate` and
// `plan` about retention rules that would delete a backup while its lock holds it.
import type { S3ObjectLock } from '../../../lib';
import { objectLockWarnings } from '../../../lib/model/lock-warnings';
import { etcdPolicy, problems } from '../engines/etcd/fixtures';
import { redisPolicy } from '../engines/redis/fixtures';
import { run, tempDir, writePolicy } from './fixtures';

const dir = tempDir('object-lock');

const s3 = (objectLock: S3ObjectLock | undefined) => ({
  bucket: 'backups',
  region: 'eu-west-1',
  credentialsSecret: { name: 'aws' },
  objectLock,
});
/** A lock the schema refuses, through the policy's type. */
const badLock = (lock: Record<string, unknown>) => lock as unknown as S3ObjectLock;
const locked = (retention: Record<string, unknown>, lock: S3ObjectLock = { mode: 'GOVERNANCE', period: '30d' }) =>
  etcdPolicy({ destination: { s3: s3(lock) } }, { retention });

test('the lock is refused with the path, the value and what is allowed: a mode S3 has not, no period, a zero period', () => {
  expect(problems(locked({ keepLast: 3 }, badLock({ mode: 'governance', period: '30d' })))).toEqual([
    expect.stringMatching(/^spec\.etcd\.destination\.s3\.objectLock\.mode: .*"governance".*GOVERNANCE.*COMPLIANCE/),
  ]);
  expect(problems(locked({ keepLast: 3 }, badLock({ mode: 'COMPLIANCE' })))).toEqual([
    'spec.etcd.destination.s3.objectLock.period: required field is missing',
  ]);
  expect(problems(locked({ keepLast: 3 }, { mode: 'COMPLIANCE', period: '0s' }))).toEqual([
    'spec.etcd.destination.s3.objectLock.period: received "0s"; must be at least 1s',
  ]);
  expect(problems(locked({ keepLast: 3 }))).toEqual([]);
});

test('a rule that deletes sooner than the lock is warned about, each such rule once; longer rules, keepLast and no lock are not', () => {
  const warnings = objectLockWarnings(locked({ daily: 7, weekly: 4, monthly: 12, maxAge: '10d' }));
  expect(warnings[0]).toEqual({
    path: 'spec.retention.daily',
    message:
      'daily: 7 deletes a backup after 7d, but the S3 Object Lock (GOVERNANCE) keeps every object 30d: such a backup stays stored, locked, until then, and retention reports it as locked (retention_locked)',
  });
  expect(warnings.slice(1).map((w) => [w.path, w.message.slice(0, w.message.indexOf(', but'))])).toEqual([
    ['spec.retention.weekly', 'weekly: 4 deletes a backup after 28d'],
    ['spec.retention.maxAge', 'maxAge: 10d deletes a backup after 10d'],
  ]);
  expect(objectLockWarnings(locked({ keepLast: 2, monthly: 3 }))).toEqual([]);
  expect(objectLockWarnings(etcdPolicy({ destination: { s3: s3(undefined) } }, { retention: { daily: 1 } }))).toEqual(
    [],
  );
  const redis = redisPolicy({ s3: s3({ mode: 'COMPLIANCE', period: '2d' }) }, { retention: { hourly: 24 } });
  expect(objectLockWarnings(redis).map((w) => w.path)).toEqual(['spec.retention.hourly']);
});

test('validate: the policy is valid (exit 0) and each warning is a line on stderr; plan lists them among its warnings', () => {
  const file = writePolicy(dir, 'locked.json', locked({ daily: 7 }));
  const v = run(['validate', file]);
  expect(v.code).toBe(0);
  expect(v.stdout).toBe(`${file}: valid (2 objects)\n`);
  expect(v.stderr).toBe(
    `${file}: warning: etcd: spec.retention.daily: daily: 7 deletes a backup after 7d, but the S3 Object Lock (GOVERNANCE) keeps every object 30d: such a backup stays stored, locked, until then, and retention reports it as locked (retention_locked)\n`,
  );
  const p = run(['plan', file, '--from', '2026-03-01T00:00:00Z']);
  expect(p.code).toBe(0);
  expect(p.stdout).toMatch(
    / {2}retention kube-system\/etcd: spec\.retention\.daily: daily: 7 deletes a backup after 7d, but/,
  );
  expect(run(['validate', writePolicy(dir, 'plain.json', locked({ monthly: 2 }))]).stderr).toBe('');
});
