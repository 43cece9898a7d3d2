// spec.encryption on the etcd engine, for real: the rendered backup pod (tools, snapshot, encrypt,
// finalize) against a real etcd with mutual TLS, the real age (Debian package age) in the encrypt
// and decrypt steps, s3rver for S3; the restore Job decrypts with the identity Secret. What is
// stored decrypts, with the age command of docs/operations/restore.md, to a snapshot that `etcdctl snapshot status`
// accepts and that restores. Deadlines are TERM sent to a step's first process, as the kubelet does.
import { descendants } from '../../../../support/proc';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { runContainer } from '../../../../support/run-container';
import {
  EtcdTlsHandle,
  S3Handle,
  requireCommands,
  runOk,
  startEtcdFromDataDir,
  startEtcdFromSnapshot,
  startEtcdTls,
  startS3,
  stopAll,
} from '../../../../support/services';
import {
  PodRun,
  ageDecrypt,
  ageKeypair,
  containerProcess,
  cronJobOf,
  errorLines,
  etcdPolicy,
  filesOf,
  parseSnapshotMetadata,
  pausingEtcdctl,
  removeTempDirs,
  restoreJobOf,
  runPod,
  shortHeadObjectAws,
  tempDir,
  waitFor,
  walk,
} from '../fixtures';
import type { SnapshotStatus } from '../fixtures';

jest.setTimeout(120000);

const KEYS = 80;
const NAME = /^etcd-snapshot_etcd_(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)_cp-1\.db\.age$/;
const AGE_HEADER = 'age-encryption.org/v1\n';
const BUCKET = 'etcd-encrypted';
const IMAGE = 'example.com/age:1';

let etcd: EtcdTlsHandle;
let s3: S3Handle;
const key = { identity: '', recipient: '' };
const other = { identity: '', recipient: '' };

beforeAll(async () => {
  requireCommands('etcd', 'etcdctl', 'busybox', 'age', 'age-keygen');
  [etcd, s3] = await Promise.all([startEtcdTls(), startS3({ buckets: [BUCKET] })]);
  for (let i = 0; i < KEYS; i++)
    await etcd.etcdctl(['put', `/registry/enc/k${String(i).padStart(2, '0')}`, `secret-${i}`]);
  Object.assign(key, ageKeypair());
  Object.assign(other, ageKeypair());
});

afterAll(async () => {
  await stopAll();
  removeTempDirs();
});

const fingerprint = (recipient: string) =>
  `sha256:${createHash('sha256').update(recipient).digest('hex').slice(0, 16)}`;
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const volumes = (dest: string) => ({ backup: dest, 'etcd-certs': etcd.pkiDir });
const identitySecret = { name: 'etcd-age-identity', key: 'key.txt' };
const secrets = (identity = key.identity) => ({
  'etcd-age-identity': { 'key.txt': identity },
  's3-creds': { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' },
});

function encryptedPolicy(
  age: Record<string, unknown> = { recipients: [key.recipient] },
  etcdOver: Record<string, unknown> = {},
  spec: Record<string, unknown> = {},
) {
  return etcdPolicy(
    { endpoint: etcd.endpoint, mode: 'perNode', nodes: ['cp-1'], ...etcdOver },
    { encryption: { age: { image: IMAGE, identitySecret, ...age } }, ...spec },
  );
}

const s3Destination = () => ({
  s3: { bucket: BUCKET, region: 'us-east-1', endpoint: s3.endpoint, credentialsSecret: { name: 's3-creds' } },
});

/** The decrypted snapshot of an encrypted file, with the command of docs/operations/restore.md: it must pass `snapshot status` and hold every key. */
async function expectRestorable(encrypted: string): Promise<void> {
  const clear = path.join(tempDir('decrypted'), 'snap.db');
  ageDecrypt(key.identity, encrypted, clear);
  const status = JSON.parse(await runOk('etcdctl', ['snapshot', 'status', clear, '-w', 'json'])) as SnapshotStatus;
  expect(status.totalKey).toBeGreaterThanOrEqual(KEYS);
  const restored = await startEtcdFromSnapshot(clear);
  try {
    expect(
      (await restored.etcdctl(['get', '/registry/enc/', '--prefix', '--keys-only'])).split('\n').filter(Boolean),
    ).toHaveLength(KEYS);
    expect(await restored.etcdctl(['get', '/registry/enc/k42', '--print-value-only'])).toBe('secret-42\n');
  } finally {
    await restored.stop();
  }
}

describe('hostPath destination', () => {
  test("the clear snapshot stays in scratch while it is saved and verified; the destination gets only <name>.age (0600, age's header) and <name>.json", async () => {
    const dest = tempDir('dest');
    const cj = cronJobOf(encryptedPolicy());
    const pause = pausingEtcdctl(requireCommands('etcdctl').etcdctl, 'after-save');
    const volumeDirs: Record<string, string> = {};
    const run = runPod(cj, { volumes: volumes(dest), volumeDirs, pathPrepend: [pause.bin] });
    await waitFor('the snapshot saved', () => fs.existsSync(pause.paused));
    // saved, not verified yet: the clear snapshot is in scratch, nothing in the destination
    expect(filesOf(volumeDirs.scratch)).toContain('.etcd-snapshot_etcd_cp-1.partial');
    expect(walk(dest)).toEqual([]);
    pause.resume();
    const r = await run;
    expect(r.failed).toBeUndefined();
    expect(r.log).not.toMatch(/ error /);

    const names = filesOf(dest).filter((f) => NAME.test(f));
    expect(names).toHaveLength(1);
    const stored = names[0];
    const clearName = stored.slice(0, -'.age'.length);
    expect(walk(dest)).toEqual([stored, `${clearName}.json`]);
    const file = path.join(dest, stored);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const bytes = fs.readFileSync(file);
    expect(bytes.subarray(0, AGE_HEADER.length).toString()).toBe(AGE_HEADER);
    // the clear snapshot and the verification's restore are gone from scratch too
    expect(walk(r.volumeDirs.scratch).filter((f) => f.includes('partial') || f.includes('restore-check'))).toEqual([]);

    const meta = parseSnapshotMetadata(fs.readFileSync(path.join(dest, `${clearName}.json`)));
    expect(meta).toMatchObject({
      name: clearName,
      node: 'cp-1',
      encryption: { tool: 'age', recipients: [fingerprint(key.recipient)] },
      encryptedSize: bytes.length,
      encryptedSha256: sha256(bytes),
      restoreChecked: true,
    });
    // the snapshot's own facts, of the clear snapshot: its size and the sha256 it ends with
    const clear = path.join(tempDir('clear'), 'snap.db');
    ageDecrypt(key.identity, file, clear);
    const clearBytes = fs.readFileSync(clear);
    expect(meta.size).toBe(clearBytes.length);
    expect(meta.sha256).toBe(clearBytes.subarray(clearBytes.length - 32).toString('hex'));
    expect(r.results.encrypt.stderr).toContain(
      `info encrypted the snapshot (${bytes.length} bytes) to ["${fingerprint(key.recipient)}"] with age`,
    );
    await expectRestorable(file);
  });

  test('recipients from a Secret or a ConfigMap (comments, two recipients): each identity decrypts, both fingerprints recorded', async () => {
    for (const source of ['recipientsSecret', 'recipientsConfigMap'] as const) {
      const dest = tempDir('dest');
      const file = `# the backup team\n${key.recipient}\n\n${other.recipient}\n`;
      const cj = cronJobOf(encryptedPolicy({ [source]: { name: 'etcd-recipients', key: 'recipients.txt' } }));
      const sources =
        source === 'recipientsSecret'
          ? { secrets: { 'etcd-recipients': { 'recipients.txt': file } } }
          : { configMaps: { 'etcd-recipients': { 'recipients.txt': file } } };
      const run = await runPod(cj, { volumes: volumes(dest), ...sources });
      expect(run.failed).toBeUndefined();
      const [stored] = filesOf(dest).filter((f) => NAME.test(f));
      const meta = parseSnapshotMetadata(fs.readFileSync(path.join(dest, `${stored.slice(0, -4)}.json`)));
      expect(meta.encryption).toEqual({
        tool: 'age',
        recipients: [fingerprint(key.recipient), fingerprint(other.recipient)],
      });
      for (const identity of [key.identity, other.identity]) {
        const out = path.join(tempDir('clear'), 'snap.db');
        ageDecrypt(identity, path.join(dest, stored), out);
        expect(fs.statSync(out).size).toBe(meta.size);
      }
    }
  });

  test('retention counts encrypted snapshots by their clear names and deletes their sidecars', async () => {
    const dest = tempDir('dest');
    const old = 'etcd-snapshot_etcd_2020-01-01T00:00:00Z_cp-1.db';
    for (const f of [`${old}.age`, `${old}.json`, `${old}.control-plane-files.tar.gz.age`])
      fs.writeFileSync(path.join(dest, f), 'older');
    const run = await runPod(cronJobOf(encryptedPolicy(undefined, {}, { retention: { keepLast: 1 } })), {
      volumes: volumes(dest),
    });
    expect(run.failed).toBeUndefined();
    const [stored] = filesOf(dest).filter((f) => NAME.test(f));
    expect(walk(dest)).toEqual([stored, `${stored.slice(0, -4)}.json`]);
  });

  test('the restore Job decrypts <name>.age with the identity Secret into scratch, then restores it; etcd starts on it', async () => {
    const dest = tempDir('dest');
    expect((await runPod(cronJobOf(encryptedPolicy()), { volumes: volumes(dest) })).failed).toBeUndefined();
    const [stored] = filesOf(dest).filter((f) => NAME.test(f));
    const clearName = stored.slice(0, -4);
    const job = restoreJobOf(encryptedPolicy(), ['--target', 'cp-1', '--snapshot', stored]);
    const target = tempDir('restore');
    const restore = await runPod(job, { volumes: { backup: dest, restore: target }, secrets: secrets() });
    expect(restore.failed).toBeUndefined();
    expect(Object.keys(restore.results)).toEqual(['tools', 'decrypt', 'restore']);
    expect(restore.results.decrypt.stderr).toContain(
      `decrypted ${restore.results.decrypt.mounts['/backup']}/${stored} into `,
    );
    expect(filesOf(target)).toEqual([`${clearName}.restored`]);
    // the decrypted snapshot was in scratch only: the destination is as it was
    expect(walk(dest)).toEqual([stored, `${clearName}.json`]);
    const restored = await startEtcdFromDataDir(path.join(target, `${clearName}.restored`), { name: 'cp-1' });
    try {
      expect(await restored.etcdctl(['get', '/registry/enc/k07', '--print-value-only'])).toBe('secret-7\n');
    } finally {
      await restored.stop();
    }
  });

  test("a wrong identity: the decrypt step fails with age's own reason, nothing is restored, no clear snapshot anywhere", async () => {
    const dest = tempDir('dest');
    expect((await runPod(cronJobOf(encryptedPolicy()), { volumes: volumes(dest) })).failed).toBeUndefined();
    const [stored] = filesOf(dest).filter((f) => NAME.test(f));
    const job = restoreJobOf(encryptedPolicy(), ['--target', 'cp-1', '--snapshot', stored]);
    const target = tempDir('restore');
    const restore = await runPod(job, { volumes: { backup: dest, restore: target }, secrets: secrets(other.identity) });
    expect(restore.failed).toBe('decrypt');
    expect(restore.results.decrypt.code).toBe(1);
    const errors = errorLines(restore.results.decrypt);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      new RegExp(
        `error cannot decrypt .*/${stored.replace(/\./g, '\\.')}: age: error: no identity matched any of the recipients $`,
      ),
    );
    expect(filesOf(target)).toEqual([]);
    expect(walk(restore.volumeDirs.scratch).filter((f) => !f.startsWith('tools/'))).toEqual([]);
    expect(walk(dest)).toEqual([stored, `${stored.slice(0, -4)}.json`]);
  });

  test("TERM (the Job's deadline) while age writes the ciphertext: nothing under a final name, no temporary file left, exit 1 with one line", async () => {
    const dest = tempDir('dest');
    const cj = cronJobOf(encryptedPolicy());
    const volumeDirs: Record<string, string> = {};
    expect(
      (await runPod(cj, { volumes: volumes(dest), volumeDirs, only: ['tools', 'snapshot'] })).failed,
    ).toBeUndefined();
    // A stand-in age: the real age does the work; its first 1000 bytes of ciphertext go out at once,
    // the rest once the test lets it (age still running, the temporary file partly written).
    const bin = tempDir('age-bin');
    const started = path.join(bin, 'started');
    fs.writeFileSync(
      path.join(bin, 'age'),
      [
        '#!/bin/sh',
        `'${requireCommands('age').age}' "$@" | { head -c 1000; : >'${started}'; while :; do sleep 0.02; done; }`,
        '',
      ].join('\n'),
      { mode: 0o755 },
    );
    const encrypt = runContainer(cj, 'encrypt', {
      volumes: volumes(dest),
      volumeDirs,
      pod: { nodeName: 'cp-1' },
      pathPrepend: [bin],
      timeoutMs: 60000,
    });
    await waitFor('age writing the ciphertext', () => fs.existsSync(started));
    const temporary = '.etcd-snapshot_etcd_cp-1.partial.age';
    await waitFor(
      'the first 1000 bytes in the temporary file',
      () => filesOf(dest).includes(temporary) && fs.statSync(path.join(dest, temporary)).size === 1000,
    );
    const step = await waitFor('the encrypt step', () => containerProcess('etcd-encrypt'));
    expect(descendants(step.pid).some((p) => p.argv.includes('--recipients-file'))).toBe(true);
    process.kill(step.pid, 'SIGTERM');
    const r = await encrypt;
    expect(r.code).toBe(1);
    expect(r.timedOut).toBe(false);
    const errors = errorLines(r);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      /stopped by SIGTERM \(the Job's deadline, or the pod was deleted\) while encrypting the snapshot into .*\/\.etcd-snapshot_etcd_cp-1\.partial\.age$/,
    );
    expect(walk(dest)).toEqual([]);
    // finalize after it finds nothing to store and names nothing
    const fin = await runPod(cj, { volumes: volumes(dest), volumeDirs, only: ['finalize'] });
    expect(fin.failed).toBe('finalize');
    expect(walk(dest)).toEqual([]);
  });

  test("a recipient age refuses: the encrypt step fails with age's reason, nothing stored", async () => {
    const dest = tempDir('dest');
    // a well-formed X25519 recipient the schema admits (bech32 charset) but whose checksum is wrong
    const bad = `age1${'q'.repeat(58)}`;
    const run = await runPod(cronJobOf(encryptedPolicy({ recipients: [bad] })), { volumes: volumes(dest) });
    expect(run.failed).toBe('encrypt');
    const errors = errorLines(run.results.encrypt);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      /age could not encrypt the snapshot: age: error: failed to parse recipient file ".*": malformed recipient at line 1 $/,
    );
    expect(walk(dest)).toEqual([]);
  });
});

describe('S3 destination', () => {
  const keys = async () => (await s3.listObjects(BUCKET, '')).map((o) => o.key).sort();
  async function clearBucket(): Promise<void> {
    for (const k of await keys()) await s3.deleteObject(BUCKET, k);
  }

  test('age streams into scratch, finalize uploads <name>.age and checks its stored size against the bytes age wrote; it decrypts and restores', async () => {
    await clearBucket();
    const cj = cronJobOf(encryptedPolicy(undefined, { destination: s3Destination() }));
    const run = await runPod(cj, { secrets: secrets(), volumes: { 'etcd-certs': etcd.pkiDir } });
    expect(run.failed).toBeUndefined();
    const stored = (await keys()).filter((k) => NAME.test(k));
    expect(stored).toHaveLength(1);
    expect(await keys()).toEqual([stored[0], `${stored[0].slice(0, -4)}.json`]);
    const body = await s3.getObject(BUCKET, stored[0]);
    expect(body.subarray(0, AGE_HEADER.length).toString()).toBe(AGE_HEADER);
    const meta = parseSnapshotMetadata(await s3.getObject(BUCKET, `${stored[0].slice(0, -4)}.json`));
    expect(meta).toMatchObject({
      encryptedSize: body.length,
      encryptedSha256: sha256(body),
      encryption: { tool: 'age', recipients: [fingerprint(key.recipient)] },
    });
    const file = path.join(tempDir('download'), stored[0]);
    fs.writeFileSync(file, body);
    await expectRestorable(file);
    expect(walk(run.volumeDirs.scratch).filter((f) => f.includes('partial'))).toEqual([]);
  });

  test("a stored size that differs from the ciphertext's: both objects removed, one line", async () => {
    await clearBucket();
    const stub = shortHeadObjectAws();
    const run = await runPod(
      cronJobOf(encryptedPolicy(undefined, { destination: s3Destination(), restoreCheck: false })),
      { secrets: secrets(), volumes: { 'etcd-certs': etcd.pkiDir }, pathPrepend: [stub] },
    );
    expect(run.failed).toBe('finalize');
    const errors = errorLines(run.results.finalize);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      /s3:\/\/etcd-encrypted\/etcd-snapshot_etcd_.*_cp-1\.db\.age holds \d+ bytes, the snapshot has \d+: upload removed/,
    );
    expect(await keys()).toEqual([]);
  });

  test('the restore Job fetches <name>.age, decrypts it in scratch and restores it', async () => {
    await clearBucket();
    const policy = encryptedPolicy(undefined, { destination: s3Destination() });
    expect(
      (await runPod(cronJobOf(policy), { secrets: secrets(), volumes: { 'etcd-certs': etcd.pkiDir } })).failed,
    ).toBeUndefined();
    const [stored] = (await keys()).filter((k) => NAME.test(k));
    const target = tempDir('restore');
    const restore: PodRun = await runPod(restoreJobOf(policy, ['--target', 'cp-1', '--snapshot', stored]), {
      secrets: secrets(),
      volumes: { restore: target },
    });
    expect(restore.failed).toBeUndefined();
    expect(Object.keys(restore.results)).toEqual(['tools', 'fetch', 'decrypt', 'restore']);
    const clearName = stored.slice(0, -4);
    expect(filesOf(target)).toEqual([`${clearName}.restored`]);
    // the downloaded ciphertext was removed once decrypted; the clear snapshot only ever was in scratch
    expect(filesOf(restore.volumeDirs.scratch).filter((f) => f.startsWith('etcd-snapshot_'))).toEqual([clearName]);
  });
});
