// What makes a Redis backup trustworthy, run for real: Sentinel coverage drift, client-side
// encryption (age-encrypt between redis-dump and s3-upload) and restore drills (fetch, decrypt,
// restore into a temporary redis-server, report), against real redis-server/redis-sentinel, s3rver,
// prometheus-pushgateway and age on loopback. Every test takes the backups it needs itself.
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { gunzipSync, gzipSync } from 'zlib';
import type { Manifest } from '../../../../../lib';
import { resolvePodSpec, runPod } from '../../../../support/run-container';
import { S3Handle, SentinelHandle, findCommand, requireCommands, runCommand } from '../../../../support/services';
import { descendants, signalAtOnce } from '../../../../support/proc';
import { podOf } from '../fixtures';
import {
  BUCKET,
  KEYS,
  backupsUnder,
  errorLines,
  expectFailure,
  expectNoDumpAtRest,
  expectOwnFailure,
  heldRun,
  metadataOf,
  metric,
  removeLater,
  render,
  renderAll,
  runBackupPod,
  secrets,
  standIn,
  startRedisServices,
  stopRedisServices,
  tempDir,
} from './fixtures';

jest.setTimeout(120000);

/** shard03: random 1 KiB values, 4 MiB in all: a stream that is still flowing when a run is held after its first MiB. */
const BIG_KEYS = 4096;

let sentinel: SentinelHandle;
let s3: S3Handle;
let identity: string;
let recipient: string;
let wrongIdentity: string;

beforeAll(async () => {
  requireCommands('age', 'age-keygen');
  ({ sentinel, s3 } = await startRedisServices({
    replicas: { shard01: 1, shard02: 1, shard03: 1 },
    bigKeys: BIG_KEYS,
  }));
  const keygen = async () => {
    const file = path.join(tempDir('bcj-age-'), 'key.txt');
    const r = await runCommand('age-keygen', ['-o', file]);
    expect(r.code).toBe(0);
    return fs.readFileSync(file, 'utf8');
  };
  identity = await keygen();
  wrongIdentity = await keygen();
  recipient = /^# public key: (age1\S+)$/m.exec(identity)![1];
});

afterAll(stopRedisServices);

const ageSecrets = (key: string) => secrets({ 'age-identity': { 'identity.txt': key } });
const encryption = (image = 'alpine-age:3.20') => ({
  encryption: {
    age: { recipients: [recipient], identitySecret: { name: 'age-identity', key: 'identity.txt' }, image },
  },
});

/** The CronJob of a shard with that component (backup, restore-drill). */
function cronJobOf(objects: Manifest[], component: string, shard = 'shard01'): Manifest {
  const found = objects.find(
    (o) =>
      o.kind === 'CronJob' &&
      o.metadata.labels?.['app.kubernetes.io/component'] === component &&
      o.metadata.labels['backup-cronjobs.io/shard'] === shard,
  );
  if (!found) throw new Error(`no ${component} CronJob of ${shard} rendered`);
  return found;
}

/** An encrypted backup of shard01 under `prefix` (policy `policy`, with spec.drill when given); returns the rendered objects. */
async function encryptedBackup(prefix: string, policy: string, drill?: Record<string, unknown>): Promise<Manifest[]> {
  const objects = renderAll(
    { shards: ['shard01'], s3: { bucket: BUCKET, path: prefix, region: 'us-east-1' } },
    { ...encryption(), ...(drill && { drill }) },
    policy,
  );
  const run = await runBackupPod(cronJobOf(objects, 'backup'));
  expect([run.dump.code, run.encrypt?.code, run.upload.code]).toEqual([0, 0, 0]);
  expectNoDumpAtRest(run.scratch);
  return objects;
}

async function runDrill(cronJob: Manifest, secretsOfPod = ageSecrets(identity)) {
  const { results } = await runPod(resolvePodSpec(JSON.parse(JSON.stringify(cronJob))), {
    secrets: secretsOfPod,
    timeoutMs: 90000,
  });
  if (process.env.REDIS_TEST_LOG) {
    fs.appendFileSync(
      process.env.REDIS_TEST_LOG,
      `=== ${cronJob.metadata.name}\n${Object.values(results)
        .map((r) => r.stderr)
        .join('')}`,
    );
  }
  for (const r of Object.values(results)) removeLater(r.mounts['/scratch']);
  return { results, report: results.report };
}

test('Sentinel monitors a master the policy does not list: the run logs its name and pushes uncovered_shards 1', async () => {
  const objects = renderAll(
    { shards: ['shard01', 'shard02'], s3: { bucket: BUCKET, path: 'coverage', region: 'us-east-1' } },
    {},
    'coverage',
  );
  const cronJob = cronJobOf(objects, 'backup');
  const run = await runBackupPod(cronJob);
  expect([run.dump.code, run.upload.code]).toEqual([0, 0]);
  expect(run.dump.stderr).toMatch(
    new RegExp(
      `warn Sentinel 127\\.0\\.0\\.1:${sentinel.port} monitors 1 master\\(s\\) that no CronJob of policy coverage backs up: shard03$`,
      'm',
    ),
  );
  expect(await metric('redis_backup_uncovered_shards', 'shard01', 'coverage')).toBe(1);
  // every master covered: 0
  const all = renderAll({ s3: { bucket: BUCKET, path: 'coverage', region: 'us-east-1' } }, {}, 'coverage');
  const full = await runBackupPod(cronJobOf(all, 'backup'));
  expect([full.dump.code, full.upload.code]).toEqual([0, 0]);
  expect(full.dump.stderr).not.toMatch(/ monitors \d+ master/);
  expect(await metric('redis_backup_uncovered_shards', 'shard01', 'coverage')).toBe(0);
  // a Sentinel that refuses SENTINEL MASTERS (a stand-in for redis-cli): a warning, the backup goes on
  const real = findCommand('redis-cli')!;
  const bin = standIn('redis-cli', [
    // the error reply redis-cli prints with -e for a renamed or ACL-denied command (redis-cli.c, cliFormatReplyRaw: "ERR ...")
    'case " $* " in *" SENTINEL MASTERS "*) echo "ERR unknown subcommand \'MASTERS\'" >&2; exit 1 ;; esac',
    `exec ${real} "$@"`,
  ]);
  const denied = await runBackupPod(cronJob, { dump: { pathPrepend: [bin] } });
  expect([denied.dump.code, denied.upload.code]).toEqual([0, 0]);
  expect(denied.dump.stderr).toMatch(
    / warn shard coverage not checked: SENTINEL MASTERS on 127\.0\.0\.1:\d+ failed: ERR unknown subcommand 'MASTERS'$/m,
  );
});

test('encrypted: <name>.rdb.gz.age decrypts with the identity to an RDB that loads; the metadata records the fingerprint; a wrong identity fails', async () => {
  await encryptedBackup('encrypted', 'encrypted');
  const [key] = await backupsUnder('encrypted/');
  expect(key).toMatch(/^encrypted\/redis-backup_shard01_\S+Z\.rdb\.gz\.age$/);
  const sealed = await s3.getObject(BUCKET, key);
  expect(sealed.subarray(0, 21).toString()).toBe('age-encryption.org/v1');
  const dir = tempDir('bcj-dec-');
  fs.writeFileSync(path.join(dir, 'key.txt'), identity);
  fs.writeFileSync(path.join(dir, 'wrong.txt'), wrongIdentity);
  fs.writeFileSync(path.join(dir, 'backup.rdb.gz.age'), sealed);
  const dec = await runCommand('age', [
    '-d',
    '-i',
    path.join(dir, 'key.txt'),
    '-o',
    path.join(dir, 'backup.rdb.gz'),
    path.join(dir, 'backup.rdb.gz.age'),
  ]);
  expect(dec.code).toBe(0);
  const rdb = gunzipSync(fs.readFileSync(path.join(dir, 'backup.rdb.gz')));
  fs.writeFileSync(path.join(dir, 'dump.rdb'), rdb);
  const check = await runCommand('redis-check-rdb', [path.join(dir, 'dump.rdb')]);
  expect(check.code).toBe(0);
  expect(check.stdout.toString()).toContain(`${KEYS.shard01} keys read`);
  const meta = await metadataOf(key);
  const fingerprint = `sha256:${createHash('sha256').update(recipient).digest('hex').slice(0, 16)}`;
  expect(meta).toMatchObject({
    keyCount: KEYS.shard01,
    rdbSize: rdb.length,
    size: sealed.length,
    encryption: { tool: 'age', recipients: [fingerprint] },
  });
  const wrong = await runCommand('age', ['-d', '-i', path.join(dir, 'wrong.txt'), path.join(dir, 'backup.rdb.gz.age')]);
  expect(wrong.code).not.toBe(0);
  expect(wrong.stderr).toContain('no identity matched any of the recipients');
});

test('the deadline (TERM to every container) while age-encrypt is streaming: all stop, exit 1, encryption named, nothing stored, the failure pushed', async () => {
  const stopped = /stopped by SIGTERM \(the Job's deadline, or the pod was deleted\)/.source;
  let ageRunning = false;
  // The hold is never released: the pod ends only because every container stops on its TERM.
  const { run, held } = await heldRun({
    policy: 'redis-term-encrypt',
    prefix: 'termencrypt',
    condition: 'upload-started',
    spec: encryption(),
    release: false,
    during: (pids) => {
      // age holds the rest of the stream (the upload took its first MiB of 3): it is in the middle
      ageRunning = descendants(pids.encrypt).some(
        (p) => path.basename(p.argv[0] ?? '') === 'age' && p.argv.includes('--encrypt'),
      );
      signalAtOnce([pids.dump, pids.encrypt, pids.upload], 'SIGTERM');
    },
  });
  expect(ageRunning).toBe(true);
  expect(fs.existsSync(path.join(held.dir, 'aws-got-term'))).toBe(true); // the upload was stopped, not let finish
  expectOwnFailure(run.encrypt, new RegExp(`${stopped} while encrypting; no backup taken$`));
  expectOwnFailure(run.dump, new RegExp(`${stopped}; no backup taken$`));
  // nothing under the final name (<name>.rdb.gz.age) nor its metadata (<name>.rdb.gz.json): the prefix is empty
  await expectFailure(
    run,
    new RegExp(
      `${stopped}; no object stored under s3://backups/termencrypt/redis-backup_shard03_\\S+\\.rdb\\.gz\\.age$`,
    ),
    'termencrypt/',
    'shard03',
    'redis-term-encrypt',
  );
});

test('the dump container dies in the middle of an encrypted stream: age-encrypt ends without claiming a backup, nothing is stored', async () => {
  const { run, held } = await heldRun({
    policy: 'redis-dump-killed-encrypt',
    prefix: 'dumpkilledencrypt',
    condition: 'upload-started',
    spec: encryption(),
    during: (pids) => {
      process.kill(-pids.dump, 'SIGKILL');
    },
  });
  expect(run.dump.signal).toBe('SIGKILL');
  expect(run.encrypt?.code).toBe(0);
  expect(errorLines(run.encrypt!)).toEqual([]);
  expect(run.encrypt!.stderr).toMatch(
    / info the dump ended without a backup \(see the redis-dump log\): nothing encrypted is kept$/m,
  );
  expect(run.encrypt!.stderr).not.toContain('stream encrypted');
  expect(fs.existsSync(path.join(held.dir, 'aws-got-term'))).toBe(true);
  await expectFailure(
    run,
    /the dump container \(redis-dump\) ended without a result \(killed\? see its log\); no backup taken$/,
    'dumpkilledencrypt/',
    'shard03',
    'redis-dump-killed-encrypt',
    false,
  );
});

test('restore drills: an encrypted backup drills green with its key count; the metrics are pushed', async () => {
  const drill = cronJobOf(
    await encryptedBackup('drill-green', 'drill-green', { schedule: '0 4 * * *', maxBackupAge: '1h' }),
    'restore-drill',
  );
  expect(podOf(drill).initContainers?.map((c) => c.name)).toEqual(['fetch', 'decrypt', 'restore']);
  const { results, report } = await runDrill(drill);
  expect(Object.values(results).map((r) => r.code)).toEqual([0, 0, 0, 0]);
  expect(report.stderr).toMatch(
    new RegExp(
      `info restore drill succeeded: drill-green/redis-backup_shard01_\\S+\\.rdb\\.gz\\.age restored, ${KEYS.shard01} keys loaded into a temporary redis-server`,
    ),
  );
  expect(await metric('redis_backup_restore_drill_success', 'shard01', 'drill-green')).toBe(1);
  expect(
    await metric('redis_backup_restore_drill_backup_age_seconds', 'shard01', 'drill-green'),
  ).toBeGreaterThanOrEqual(0);
});

describe('a failed drill: one error line, success 0 pushed', () => {
  async function expectDrillFailure(
    cronJob: Manifest,
    why: RegExp,
    policy: string,
    secretsOfPod?: ReturnType<typeof secrets>,
  ): Promise<void> {
    const { results, report } = await runDrill(cronJob, secretsOfPod);
    expect(report.code).toBe(1);
    const errors = errorLines(report);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/ error restore drill failed after \d+s/);
    expect(errors[0]).toMatch(why);
    for (const [name, r] of Object.entries(results)) if (name !== 'report') expect(r.code).toBe(0);
    expect(await metric('redis_backup_restore_drill_success', 'shard01', policy)).toBe(0);
  }

  const plain = (prefix: string, policy: string, drill: Record<string, unknown> = {}) =>
    cronJobOf(
      renderAll(
        { shards: ['shard01'], s3: { bucket: BUCKET, path: prefix, region: 'us-east-1' } },
        { drill: { schedule: '0 4 * * *', ...drill } },
        policy,
      ),
      'restore-drill',
    );

  test('a wrong identity', async () => {
    const objects = await encryptedBackup('drill-wrong-key', 'drill-wrong-key', { schedule: '0 4 * * *' });
    await expectDrillFailure(
      cronJobOf(objects, 'restore-drill'),
      /: cannot decrypt \S+: age: error: no identity matched any of the recipients/,
      'drill-wrong-key',
      ageSecrets(wrongIdentity),
    );
  });

  test('a key count that does not match the metadata, a corrupt file, a backup too old', async () => {
    // a good clear backup, then its metadata changed to another count
    const good = await runBackupPod(
      render({ s3: { bucket: BUCKET, path: 'mismatch', region: 'us-east-1' } }, {}, 'drill-mismatch').shard01,
    );
    expect([good.dump.code, good.upload.code]).toEqual([0, 0]);
    const [key] = await backupsUnder('mismatch/');
    const meta = await metadataOf(key);
    await s3.putObject(BUCKET, `${key}.json`, JSON.stringify({ ...meta, keyCount: KEYS.shard01 + 1 }));
    await expectDrillFailure(
      plain('mismatch', 'drill-mismatch'),
      new RegExp(`key count mismatch: \\S+ loaded ${KEYS.shard01} keys, the backup recorded ${KEYS.shard01 + 1}$`),
      'drill-mismatch',
    );
    // the stored object is not as long as the backup sent (the metadata's size)
    await s3.putObject(BUCKET, `${key}.json`, JSON.stringify({ ...meta, size: (meta.size as number) + 1 }));
    await expectDrillFailure(
      plain('mismatch', 'drill-mismatch'),
      new RegExp(
        `is listed with ${meta.size as number} bytes, but the backup sent ${(meta.size as number) + 1} \\(its metadata's size\\): the stored object is not the one the backup wrote$`,
      ),
      'drill-mismatch',
    );

    // a corrupt object: one byte of the RDB changed (the gzip stays valid), its size unchanged
    const rdb = Buffer.from(gunzipSync(await s3.getObject(BUCKET, key)));
    rdb[21] ^= 0x01;
    const corrupt = key.replace('mismatch/', 'corrupt-drill/');
    const corruptGz = gzipSync(rdb);
    await s3.putObject(BUCKET, corrupt, corruptGz);
    await s3.putObject(BUCKET, `${corrupt}.json`, JSON.stringify({ ...meta, size: corruptGz.length }));
    await expectDrillFailure(
      plain('corrupt-drill', 'drill-corrupt'),
      /redis-check-rdb rejected \S+: \[offset \d+\] RDB CRC error$/,
      'drill-corrupt',
    );

    // a backup older than maxBackupAge
    const old = 'old-drill/redis-backup_shard01_2023-09-20T08:30:01Z.rdb.gz';
    await s3.putObject(BUCKET, old, await s3.getObject(BUCKET, key));
    await s3.putObject(BUCKET, `${old}.json`, JSON.stringify(meta));
    await expectDrillFailure(
      plain('old-drill', 'drill-old', { maxBackupAge: '1d' }),
      /the newest backup old-drill\/redis-backup_shard01_2023-09-20T08:30:01Z\.rdb\.gz is \d+s old; spec\.drill\.maxBackupAge allows 86400s$/,
      'drill-old',
    );
  });
});
