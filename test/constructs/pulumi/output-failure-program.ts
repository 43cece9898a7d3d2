/**
 * A Pulumi program, run in a process of its own by output-failures.test.ts
 * (`node -r ts-node/register/transpile-only <this file>`): an Output
 * arg whose value turns out invalid fails the registration of the children
 * that use it. Under jest that rejection is an unhandled error of the test
 * itself; here it is reported as the Pulumi language host reports one
 * (`uncaughtHandler` in @pulumi/pulumi cmd/run/run.js: a ResourceError's
 * message, once), and the process exits 1.
 */
import * as pulumi from '@pulumi/pulumi';
import { installMocks } from './harness';

const reported = new Set<string>();
const report = (err: Error) => {
  if (reported.has(err.message)) return;
  reported.add(err.message);
  process.stderr.write(`error: ${err.message}\n`);
  process.exitCode = 1;
};
process.on('unhandledRejection', report);
process.on('uncaughtException', report);

const registered = installMocks();

/** A valid Redis schedule named `name`. */
const redis = (name: string) => ({
  name,
  schedule: '0 3 * * *',
  shards: ['shard01'],
  sentinel: { addresses: ['sentinel.redis.svc:26379'] },
  s3: { bucket: 'cache-backups', region: 'us-east-1' },
});

/** Each case renders objects of its own (distinct policy names), so that they can all run in one program. */
const CASES: ((m: typeof import('../../../constructs/pulumi')) => void)[] = [
  (m) =>
    new m.RedisBackupSchedule('bad-bucket', {
      ...redis('bad-bucket'),
      s3: { ...redis('').s3, bucket: pulumi.output('Not_A_Bucket') },
    }),
  (m) =>
    new m.RedisBackupSchedule('not-a-string', {
      ...redis('not-a-string'),
      namespace: pulumi.output(42 as unknown as string),
    }),
  (m) => {
    new m.RedisBackupSchedule('first', { ...redis('clash'), namespace: 'redis' });
    new m.RedisBackupSchedule('second', { ...redis('clash'), namespace: pulumi.output('redis') });
  },
  (m) =>
    new m.RedisBackupSchedule('escaped', {
      ...redis('escaped'),
      s3: { ...redis('').s3, endpoint: pulumi.output('http://minio:9000/$(BUCKET)') },
    }),
  (m) => new m.RedisBackupSchedule('fine', { ...redis('fine'), namespace: pulumi.output('redis') }),
];

void (async () => {
  const m = await import('../../../constructs/pulumi');
  for (const run of CASES) run(m);
  await pulumi.runtime.disconnect().catch(report);
  process.stdout.write(JSON.stringify(registered.map((r) => r.name)));
})();
