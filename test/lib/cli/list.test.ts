// `backup-cronjobs list` (issue 21.5): the backups of a policy's targets, read from a real S3 server
// (s3rver) through the real aws CLI, and from a directory (--dir), with the content facts of their
// metadata and what the retention rules keep or delete next (the TypeScript planner the scripts match).
import { mkdirSync, writeFileSync } from 'fs';
import { dirname, join } from 'path';
import type { BackupPolicy } from '../../../lib';
import { planRetention } from '../../../lib/retention';
import { S3Handle, awsCliPath, startS3, stopAll } from '../../support/services';
import { etcdPolicy } from '../engines/etcd/fixtures';
import { redisPolicy } from '../engines/redis/fixtures';
import { vitessPolicy } from '../engines/vitess/fixtures';
import { run, tempDir, writePolicy } from './fixtures';

jest.setTimeout(120000);

const dir = tempDir('list');
const BUCKET = 'redis-backups';
/** Sunday 2026-03-15 12:00:00 UTC. */
const NOW = '2026-03-15T12:00:00Z';
const hoursAgo = (h: number) => new Date(Date.parse(NOW) - h * 3600_000).toISOString().replace('.000', '');

let s3: S3Handle;

beforeAll(async () => {
  s3 = await startS3({ buckets: [BUCKET] });
});
afterAll(() => stopAll());

/** Runs the CLI with the aws CLI on PATH and the S3 server's credentials (the machine's CA bundle left out). */
function runWithAws(args: readonly string[], env: Record<string, string> = s3.awsEnv()) {
  const saved = { ...process.env };
  try {
    for (const k of Object.keys(process.env)) if (k.startsWith('AWS_')) delete process.env[k];
    Object.assign(process.env, env, { PATH: `${dirname(awsCliPath())}:${process.env.PATH}` });
    return run(args);
  } finally {
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
  }
}

interface Row {
  policy: string;
  target: string;
  node?: string;
  name: string;
  time: string;
  size: number;
  encrypted: boolean;
  facts: Record<string, unknown>;
  metadata: string;
  lockedUntil?: string;
  retention?: { keep: boolean; reasons: string[] };
}
const json = (stdout: string) => JSON.parse(stdout) as Row[];

describe('Redis: S3 through the aws CLI', () => {
  const policy = (): BackupPolicy =>
    redisPolicy(
      {
        s3: {
          bucket: BUCKET,
          path: 'prod/redis',
          region: 'us-east-1',
          endpoint: s3.endpoint,
          credentialsSecret: { name: 'aws' },
        },
      },
      { retention: { keepLast: 2 } },
    );
  const key = (shard: string, h: number, suffix = '.rdb.gz') =>
    `prod/redis/redis-backup_${shard}_${hoursAgo(h)}${suffix}`;
  const lockedKey = (h: number, suffix = '.rdb.gz') => `locked/redis-backup_shard01_${hoursAgo(h)}${suffix}`;
  const recorded = '2026-03-20T00:00:00Z';

  beforeAll(async () => {
    for (const [h, keys] of [
      [1, 120],
      [5, 118],
      [9, 40],
    ] as const) {
      await s3.putObject(BUCKET, key('shard01', h, h === 1 ? '.rdb.gz.age' : '.rdb.gz'), `rdb of ${h}`);
      await s3.putObject(
        BUCKET,
        key('shard01', h, '.rdb.gz.json'),
        JSON.stringify({ name: 'x', shard: 'shard01', keyCount: keys, size: 8 }),
      );
    }
    await s3.putObject(BUCKET, key('shard02', 3), 'rdb without metadata');
    // Object Lock: a lock the metadata records, one the policy implies, one passed
    await s3.putObject(BUCKET, lockedKey(2), 'rdb');
    await s3.putObject(
      BUCKET,
      lockedKey(2, '.rdb.gz.json'),
      JSON.stringify({ keyCount: 3, objectLock: { mode: 'COMPLIANCE', retainUntil: recorded } }),
    );
    await s3.putObject(BUCKET, lockedKey(10), 'rdb');
    await s3.putObject(BUCKET, lockedKey(72), 'rdb');
    // not backups of this policy: another prefix, a temporary name, a bad date
    await s3.putObject(BUCKET, 'prod/redis/redis-backup_shard01_upload.tmp', 'x');
    await s3.putObject(BUCKET, 'prod/redis/redis-backup_shard01_2026-02-30T00:00:00Z.rdb.gz', 'x');
    await s3.putObject(BUCKET, 'other/redis-backup_shard01_2026-03-15T01:00:00Z.rdb.gz', 'x');
  });

  test('-o json: every backup of every shard, newest first, facts from the metadata, the retention plan per shard', () => {
    const file = writePolicy(dir, 'redis.json', policy());
    const r = runWithAws(['list', file, '-o', 'json', '--now', NOW]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const rows = json(r.stdout);
    expect(rows.map((b) => [b.target, b.time, b.encrypted, b.facts.keyCount, b.metadata, b.retention?.keep])).toEqual([
      ['shard01', hoursAgo(1), true, 120, 'read', true],
      ['shard01', hoursAgo(5), false, 118, 'read', true],
      ['shard01', hoursAgo(9), false, 40, 'read', false],
      ['shard02', hoursAgo(3), false, undefined, 'missing', true],
    ]);
    expect(rows[0]).toMatchObject({
      policy: 'redis',
      name: `redis-backup_shard01_${hoursAgo(1)}.rdb.gz.age`,
      size: 'rdb of 1'.length,
    });
    // the same plan as the planner the prune scripts match
    const plan = planRetention(
      rows.slice(0, 3).map((b) => ({ name: b.name, time: Date.parse(b.time) / 1000, size: b.size })),
      { keepLast: 2 },
      { now: Date.parse(NOW) / 1000, timeZone: 'UTC' },
    );
    expect(rows.slice(0, 3).map((b) => b.retention)).toEqual(
      plan.entries.map((e) => ({ keep: e.keep, reasons: e.reasons })),
    );
  });

  test('text: one line per backup under a header', () => {
    const r = runWithAws(['list', writePolicy(dir, 'redis2.json', policy()), '--now', NOW]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0].split(/\s{2,}/)).toEqual([
      'POLICY',
      'TARGET',
      'NODE',
      'TIME',
      'SIZE',
      'ENCRYPTED',
      'LOCKED UNTIL',
      'CONTENT',
      'RETENTION',
      'NAME',
    ]);
    expect(lines).toHaveLength(5);
    expect(lines[1].split(/\s{2,}/)).toEqual([
      'redis',
      'shard01',
      '-',
      hoursAgo(1),
      '8 B',
      'yes',
      '-',
      'keyCount=120',
      'keep (newest, keepLast)',
      `redis-backup_shard01_${hoursAgo(1)}.rdb.gz.age`,
    ]);
    expect(lines[3]).toMatch(/ delete {2}/);
    expect(lines[4]).toContain('metadata missing');
  });

  test("S3 Object Lock: locked until the metadata says, else the time in the name plus the policy's lock; nothing once it has passed", () => {
    const locked = (): BackupPolicy =>
      redisPolicy(
        {
          s3: {
            bucket: BUCKET,
            path: 'locked',
            region: 'us-east-1',
            endpoint: s3.endpoint,
            credentialsSecret: { name: 'aws' },
            objectLock: { mode: 'COMPLIANCE', period: '2d' },
          },
        },
        { retention: { keepLast: 1 } },
      );
    const r = runWithAws(['list', writePolicy(dir, 'locked.json', locked()), '--now', NOW, '-o', 'json']);
    expect(r.code).toBe(0);
    const rows = json(r.stdout).filter((b) => b.target === 'shard01');
    expect(rows.map((b) => [b.time, b.lockedUntil])).toEqual([
      [hoursAgo(2), recorded],
      [hoursAgo(10), new Date(Date.parse(hoursAgo(10)) + 2 * 86_400_000).toISOString().replace('.000', '')],
      [hoursAgo(72), undefined],
    ]);
  });

  test('a bucket that does not exist: exit 1, one line naming the target and the aws error; nothing else printed', () => {
    const missing = redisPolicy({
      shards: ['shard01'],
      s3: { bucket: 'no-such-bucket', region: 'us-east-1', endpoint: s3.endpoint, credentialsSecret: { name: 'aws' } },
    });
    const r = runWithAws(['list', writePolicy(dir, 'missing.json', missing), '-o', 'json']);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^redis: shard01: aws s3api list-objects-v2 failed: .*NoSuchBucket/),
    ]);
    expect(json(r.stdout)).toEqual([]);
  });

  test('without the aws CLI on PATH: exit 1 with that reason', () => {
    const saved = process.env.PATH;
    try {
      process.env.PATH = '/nonexistent';
      const r = run(['list', writePolicy(dir, 'nopath.json', policy())]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('redis: shard01: the aws CLI is not on PATH');
    } finally {
      process.env.PATH = saved;
    }
  });
});

describe('etcd: a PVC or hostPath directory (--dir)', () => {
  const snap = (h: number, node: string) => `etcd-snapshot_etcd_${hoursAgo(h)}_${node}.db`;
  const backups = tempDir('etcd-dir');
  beforeAll(() => {
    mkdirSync(backups, { recursive: true });
    for (const [h, node, revision] of [
      [1, 'cp-1', 900],
      [2, 'cp-2', 880],
      [7, 'cp-1', 700],
    ] as const) {
      writeFileSync(join(backups, snap(h, node)), 'x'.repeat(1024 + h));
      writeFileSync(join(backups, `${snap(h, node)}.json`), JSON.stringify({ revision, keyCount: revision * 2, node }));
    }
    writeFileSync(join(backups, '.etcd-snapshot_etcd_cp-1.partial'), 'in progress');
    writeFileSync(join(backups, 'etcd-snapshot_other_2026-03-15T10:00:00Z_cp-1.db'), 'another policy');
  });
  const policy = (scope: 'node' | 'cluster') =>
    etcdPolicy(
      { destination: { persistentVolumeClaim: { claimName: 'etcd-backups' } }, retentionScope: scope },
      { retention: { keepLast: 1 } },
    );

  test("scope node: each node's snapshots planned on their own; revision and key count from the metadata", () => {
    const r = run([
      'list',
      writePolicy(dir, 'etcd-node.json', policy('node')),
      '--dir',
      backups,
      '-o',
      'json',
      '--now',
      NOW,
    ]);
    expect(r.stderr).toBe('');
    expect(json(r.stdout).map((b) => [b.node, b.time, b.facts, b.retention?.keep])).toEqual([
      ['cp-1', hoursAgo(1), { revision: 900, keyCount: 1800 }, true],
      ['cp-2', hoursAgo(2), { revision: 880, keyCount: 1760 }, true],
      ['cp-1', hoursAgo(7), { revision: 700, keyCount: 1400 }, false],
    ]);
  });

  test("scope cluster: every node's snapshots together (keepLast 1 keeps the newest of all)", () => {
    const r = run([
      'list',
      writePolicy(dir, 'etcd-cluster.json', policy('cluster')),
      '--dir',
      backups,
      '-o',
      'json',
      '--now',
      NOW,
    ]);
    expect(json(r.stdout).map((b) => b.retention?.keep)).toEqual([true, false, false]);
  });

  test('without --dir: exit 1, the reason; a Vitess policy: how its backups are listed', () => {
    const r = run(['list', writePolicy(dir, 'etcd-nodir.json', policy('node'))]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('etcd: etcd: the backups are in a hostPath or PVC directory: give it with --dir DIR\n');
    const v = run(['list', writePolicy(dir, 'vitess.json', vitessPolicy())]);
    expect(v.code).toBe(0);
    expect(v.stderr).toMatch(/GetBackups <keyspace>\/<shard>/);
    expect(v.stdout).toBe('no backups\n');
  });
});
