// The moto harness: a missing install is an error naming scripts/install-moto.sh (never a skip), and
// the S3 answers the Object Lock tests rely on, as this moto gives them.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { MotoHandle, motoBinDir, startMoto, stopAll } from '.';

jest.setTimeout(60_000);

let moto: MotoHandle;

beforeAll(async () => {
  moto = await startMoto({ buckets: [{ name: 'locked', objectLock: true }, { name: 'plain' }] });
});

afterAll(() => stopAll());

test('moto not installed: the error names scripts/install-moto.sh', () => {
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'bcj-no-moto-'));
  const saved = process.env.BACKUP_CRONJOBS_MOTO_DIR;
  process.env.BACKUP_CRONJOBS_MOTO_DIR = empty;
  try {
    expect(() => motoBinDir()).toThrow(/not installed.*run scripts\/install-moto\.sh/s);
  } finally {
    if (saved === undefined) delete process.env.BACKUP_CRONJOBS_MOTO_DIR;
    else process.env.BACKUP_CRONJOBS_MOTO_DIR = saved;
    fs.rmSync(empty, { recursive: true, force: true });
  }
});

test('a lock bucket keeps versions; a locked version is refused, GOVERNANCE gives way to the bypass, a delete without a version id leaves a marker', async () => {
  const until = new Date(Date.now() + 3600_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  for (const [key, mode] of [
    ['g', 'GOVERNANCE'],
    ['c', 'COMPLIANCE'],
  ] as const) {
    await moto.putObject('locked', key, key);
    await moto.aws([
      's3api',
      'put-object-retention',
      '--bucket',
      'locked',
      '--key',
      key,
      '--retention',
      `Mode=${mode},RetainUntilDate=${until}`,
    ]);
    expect(await moto.retention('locked', key)).toEqual({ mode, retainUntil: new Date(until) });
  }
  const version = async (key: string) => (await moto.listObjectVersions('locked', key))[0].versionId;
  const del = (key: string, vid: string, ...more: string[]) =>
    moto.aws(['s3api', 'delete-object', '--bucket', 'locked', '--key', key, '--version-id', vid, ...more]);
  const g = await version('g');
  const c = await version('c');
  await expect(del('g', g)).rejects.toThrow(
    /\(AccessDenied\) when calling the DeleteObject operation: Access Denied\n/,
  );
  await expect(del('c', c, '--bypass-governance-retention')).rejects.toThrow(/AccessDenied/);
  await del('g', g, '--bypass-governance-retention');
  expect(await moto.listObjectVersions('locked', 'g')).toEqual([]);

  await moto.putObject('locked', 'm', 'm');
  await moto.aws(['s3api', 'delete-object', '--bucket', 'locked', '--key', 'm']);
  expect((await moto.listObjects('locked', 'm')).map((o) => o.key)).toEqual([]);
  const versions = await moto.listObjectVersions('locked', 'm');
  expect(versions.map((v) => [v.key, v.deleteMarker, v.isLatest]).sort()).toEqual([
    ['m', false, false],
    ['m', true, true],
  ]);
  expect(moto.requests()).toContain(`DELETE /locked/g?versionId=${g} 403`);
});

test('a bucket without Object Lock refuses PutObjectRetention with InvalidRequest', async () => {
  await moto.putObject('plain', 'k', 'k');
  await expect(
    moto.aws([
      's3api',
      'put-object-retention',
      '--bucket',
      'plain',
      '--key',
      'k',
      '--retention',
      'Mode=GOVERNANCE,RetainUntilDate=2099-01-01T00:00:00Z',
    ]),
  ).rejects.toThrow(
    /\(InvalidRequest\) when calling the PutObjectRetention operation: Bucket is missing ObjectLockConfiguration/,
  );
  expect(await moto.retention('plain', 'k')).toBeUndefined();
});
