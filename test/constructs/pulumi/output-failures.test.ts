// An Output arg whose value turns out invalid fails the deployment with a path-named error
// (in a process of its own: see output-failure-program.ts).
import { execFile } from 'child_process';
import { join } from 'path';

const root = join(__dirname, '..', '..', '..');

function runProgram(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['-r', 'ts-node/register/transpile-only', join(__dirname, 'output-failure-program.ts')],
      { cwd: root, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }),
    );
  });
}

let result: Awaited<ReturnType<typeof runProgram>>;
beforeAll(async () => {
  result = await runProgram();
}, 180_000);

test('the program fails', () => {
  expect(result.code).toBe(1);
});

test('an invalid value: the policy problem at the arg path written, from the component', () => {
  expect(result.stderr).toContain(
    [
      'backup-cronjobs:index:RedisBackupSchedule::bad-bucket: invalid BackupPolicy (1 problem)',
      '  s3.bucket: received "Not_A_Bucket"; must be a string matching ^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$ (policy field spec.redis.s3.bucket)',
    ].join('\n'),
  );
});

test('a value that is not a string', () => {
  expect(result.stderr).toContain(
    'backup-cronjobs:index:RedisBackupSchedule::not-a-string: invalid Output value(s)\n  namespace: the Output resolved to 42; a string is required',
  );
});

test('an Output namespace that makes two components render the same object, once it is known', () => {
  // the first object both render: their script ConfigMap
  expect(result.stderr).toMatch(
    new RegExp(
      'backup-cronjobs: ConfigMap redis/clash-scripts-[0-9a-f]{10} is rendered by both component backup-cronjobs:index:RedisBackupSchedule::first ' +
        'and component backup-cronjobs:index:RedisBackupSchedule::second',
    ),
  );
});

test('a value the core would render otherwise than as written (escaped for the kubelet)', () => {
  expect(result.stderr).toContain(
    'backup-cronjobs:index:RedisBackupSchedule::escaped: the value(s) of s3.endpoint render differently from the value as written',
  );
});

test("children with a failed Output are not registered; the valid component and the others' children without Outputs are", () => {
  const registered = JSON.parse(result.stdout) as string[];
  expect(registered).toEqual(
    expect.arrayContaining(['fine', 'fine-cronjob-fine-shard01', 'first', 'first-cronjob-clash-shard01']),
  );
  for (const child of [
    'bad-bucket-cronjob-bad-bucket-shard01',
    'not-a-string-cronjob-not-a-string-shard01',
    'second-cronjob-clash-shard01',
    'escaped-cronjob-escaped-shard01',
  ]) {
    expect(registered).not.toContain(child);
  }
});
