// The rendered etcd backup pod runs for real: tools, precheck, snapshot (exec
// form), verify, finalize -- each container's command, args and env from the
// manifest, volumes mapped to temp dirs -- against a real etcd (Debian
// etcd-server 3.4) with mutual TLS on loopback, using kubeadm's file names.
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { renderPolicy } from '../../../../../lib';
import type { Manifest } from '../../../../../lib';
import { configMapsOf, runContainer } from '../../../../support/run-container';
import {
  EtcdHandle,
  EtcdTlsHandle,
  freePort,
  requireCommands,
  runCommand,
  runOk,
  startEtcdFromDataDir,
  startEtcdFromSnapshot,
  startEtcdTls,
  stopAll,
} from '../../../../support/services';
import { cronJobOf, errorLines, etcdPolicy, filesOf, removeTempDirs, restoreJobOf, runPod, stamp, tempDir } from '../fixtures';

jest.setTimeout(120000);

const KEYS = 120;
const NAME = /^etcd-snapshot_etcd_(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)_cp-1\.db$/;

let etcd: EtcdTlsHandle;

beforeAll(async () => {
  requireCommands('etcd', 'etcdctl', 'busybox', 'openssl');
  etcd = await startEtcdTls();
  for (let i = 0; i < KEYS; i++) await etcd.etcdctl(['put', `/registry/k${String(i).padStart(3, '0')}`, `value-${i}-${'x'.repeat(i)}`]);
});

afterAll(async () => {
  await stopAll();
  removeTempDirs();
});

const volumes = (dest: string, pki = etcd.pkiDir) => ({ backup: dest, 'etcd-certs': pki });

function backupCronJob(over: Record<string, unknown> = {}, spec: Record<string, unknown> = {}, endpoint = etcd.endpoint): Manifest {
  return cronJobOf(etcdPolicy({ endpoint, ...over }, spec));
}

async function endpointStatus(): Promise<{ revision: number; dbSize: number }> {
  const out = JSON.parse(await etcd.etcdctl(['endpoint', 'status', '-w', 'json']));
  return { revision: out[0].Status.header.revision, dbSize: out[0].Status.dbSize };
}

/** Shorter client timeouts than the rendered ones (10s dial, 15s command), to fail fast. */
const FAST_FAIL = { ETCDCTL_DIAL_TIMEOUT: '1s', ETCDCTL_COMMAND_TIMEOUT: '2s' };

const mode = (file: string) => fs.statSync(file).mode & 0o777;
const finalNames = (dir: string) => filesOf(dir).filter((f) => NAME.test(f));

test('a run saves, verifies and names a snapshot (0600, node in the name), writes its metadata, and the snapshot restores', async () => {
  const dest = tempDir('dest');
  const before = await endpointStatus();
  const started = Math.floor(Date.now() / 1000);
  const run = await runPod(backupCronJob({}, { retention: { keepLast: 3 } }), { volumes: volumes(dest) });
  expect(run.failed).toBeUndefined();
  await etcd.etcdctl(['put', '/after/the-backup', 'x']);

  const names = finalNames(dest);
  expect(names).toHaveLength(1);
  const name = names[0];
  expect(filesOf(dest)).toEqual([name, `${name}.json`]);
  const time = Date.parse(NAME.exec(name)![1]) / 1000;
  expect(time).toBeGreaterThanOrEqual(started - 1);
  expect(time).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
  const file = path.join(dest, name);
  expect(mode(file)).toBe(0o600);
  expect(mode(`${file}.json`)).toBe(0o600);

  const bytes = fs.readFileSync(file);
  const status = JSON.parse(await runOk('etcdctl', ['snapshot', 'status', file, '-w', 'json']));
  const meta = JSON.parse(fs.readFileSync(`${file}.json`, 'utf8'));
  expect(meta).toEqual({
    name,
    node: 'cp-1',
    time: NAME.exec(name)![1],
    revision: before.revision,
    hash: status.hash,
    totalKey: status.totalKey,
    totalSize: status.totalSize,
    size: bytes.length,
    sha256: createHash('sha256').update(bytes.subarray(0, bytes.length - 32)).digest('hex'),
    verifiedWith: 'etcdctl',
    restoreChecked: true,
    endpoint: etcd.endpoint,
    policy: 'etcd',
  });
  expect(bytes.subarray(bytes.length - 32).toString('hex')).toBe(meta.sha256);
  expect(status.totalSize).toBe(bytes.length - 32);

  // restorable: a new etcd on the restored data reads back every key written before the backup
  const restored = await startEtcdFromSnapshot(file);
  try {
    const out = await restored.etcdctl(['get', '/registry/', '--prefix', '-w', 'json']);
    const kvs = JSON.parse(out).kvs as { key: string; value: string }[];
    const got = Object.fromEntries(kvs.map((kv) => [Buffer.from(kv.key, 'base64').toString(), Buffer.from(kv.value, 'base64').toString()]));
    expect(Object.keys(got)).toHaveLength(KEYS);
    for (let i = 0; i < KEYS; i++) expect(got[`/registry/k${String(i).padStart(3, '0')}`]).toBe(`value-${i}-${'x'.repeat(i)}`);
    expect(got['/after/the-backup']).toBeUndefined();
  } finally {
    await restored.stop();
  }
  expect(run.results.finalize.stderr).toMatch(/info stored snapshot .*revision \d+, \d+ keys/);
  expect(run.log).not.toMatch(/ error /);
});

test('configMap mode: the same run with the script modules sourced from the policy\'s ConfigMap, mounted at /scripts', async () => {
  const dest = tempDir('dest');
  const objects = renderPolicy(etcdPolicy({ endpoint: etcd.endpoint }, { retention: { keepLast: 3 }, scripts: { mode: 'configMap' } }));
  const cronJob = objects.find((o) => o.kind === 'CronJob')!;
  const run = await runPod(cronJob, { volumes: volumes(dest), configMaps: configMapsOf(objects) });
  expect(run.log).not.toMatch(/ error /);
  expect(run.failed).toBeUndefined();
  expect(finalNames(dest)).toHaveLength(1);
  for (const step of ['tools', 'precheck', 'verify', 'finalize']) {
    const source = run.results[step].argv[2].split('\n')[1];
    expect(source).toMatch(new RegExp(`^\\. ${run.results[step].mounts['/scripts']}/common\\.sh`));
  }
});

test('the etcd steps need only etcdctl/etcdutl from the etcd image: no shell, no coreutils (distroless)', async () => {
  const dest = tempDir('dest');
  // The busybox image: its applets only. The distroless etcd image: only etcdctl and etcdutl
  // (a stand-in forwarding to 3.4's etcdctl, whose snapshot status/restore etcdutl took over).
  const busyboxImage = tempDir('busybox-image');
  const busybox = requireCommands('busybox').busybox;
  for (const applet of (await runOk(busybox, ['--list'])).split('\n').filter(Boolean)) fs.symlinkSync(busybox, path.join(busyboxImage, applet));
  fs.symlinkSync(busybox, path.join(busyboxImage, 'busybox'));
  const etcdImage = tempDir('etcd-image');
  fs.symlinkSync(requireCommands('etcdctl').etcdctl, path.join(etcdImage, 'etcdctl'));
  fs.writeFileSync(path.join(etcdImage, 'etcdutl'), `#!/bin/sh\nexec ${requireCommands('etcdctl').etcdctl} "$@"\n`, { mode: 0o755 });

  const cj = backupCronJob();
  const volumeDirs: Record<string, string> = {};
  const tools = await runContainer(cj, 'tools', { volumeDirs, volumes: volumes(dest), pod: { nodeName: 'cp-1' }, env: { PATH: busyboxImage } });
  expect(tools.code).toBe(0);
  const toolsDir = path.join(volumeDirs.scratch, 'tools');
  const distroless = `${toolsDir}:${etcdImage}`;
  const run = await runPod(cj, {
    volumeDirs,
    volumes: volumes(dest),
    only: ['precheck', 'snapshot', 'verify', 'finalize'],
    envFor: { precheck: { PATH: distroless }, snapshot: { PATH: etcdImage }, verify: { PATH: distroless }, finalize: { PATH: busyboxImage } },
  });
  expect(run.failed).toBeUndefined();
  const [name] = finalNames(dest);
  expect(JSON.parse(fs.readFileSync(path.join(dest, `${name}.json`), 'utf8')).verifiedWith).toBe('etcdutl');
  expect(run.results.verify.stderr).toContain('snapshot verified with etcdutl');
});

test('the Job `backup-cronjobs restore` prints restores the chosen snapshot into a new data directory, and etcd starts on it', async () => {
  const dest = tempDir('dest');
  const run = await runPod(backupCronJob(), { volumes: volumes(dest) });
  expect(run.failed).toBeUndefined();
  const [name] = finalNames(dest);
  // older snapshots, another node's newer one, and a partial file are there too: only the named one is restored
  fs.copyFileSync(path.join(dest, name), path.join(dest, 'etcd-snapshot_etcd_2020-01-01T00:00:00Z_cp-1.db'));
  fs.copyFileSync(path.join(dest, name), path.join(dest, 'etcd-snapshot_etcd_2099-01-01T00:00:00Z_cp-2.db'));
  fs.writeFileSync(path.join(dest, 'etcd-snapshot_etcd_2099-01-01T00:00:00Z_cp-1.db.partial'), 'partial');

  const job = restoreJobOf(etcdPolicy({ endpoint: etcd.endpoint, mode: 'perNode', nodes: ['cp-1'] }), ['--target', 'cp-1', '--snapshot', name]);
  expect(job.kind).toBe('Job');
  const target = tempDir('restore');
  const restore = await runPod(job, { volumes: { backup: dest, restore: target } });
  expect(restore.failed).toBeUndefined();
  expect(filesOf(target)).toEqual([`${name}.restored`]);
  const dataDir = path.join(target, `${name}.restored`);
  expect(mode(dataDir)).toBe(0o700);
  expect(restore.results.restore.stderr).toContain(`restored ${name} `);
  expect(restore.results.restore.stderr).toContain(`as member cp-1 of cp-1=https://127.0.0.1:2380`);

  // kubeadm's member name is the node name; the data directory keeps the restored membership
  const restored: EtcdHandle = await startEtcdFromDataDir(dataDir, { name: 'cp-1' });
  try {
    expect(await restored.etcdctl(['get', '/registry/k007', '--print-value-only'])).toBe(`value-7-${'x'.repeat(7)}\n`);
    expect((await restored.etcdctl(['get', '/registry/', '--prefix', '--keys-only'])).split('\n').filter(Boolean)).toHaveLength(KEYS);
  } finally {
    await restored.stop();
  }

  // a second run refuses to overwrite the restored directory
  const again = await runPod(job, { volumes: { backup: dest, restore: target } });
  expect(again.failed).toBe('restore');
  expect(errorLines(again.results.restore)[0]).toMatch(/already exists: remove it to restore/);
});

test('a restore Job naming a snapshot that is not on the node fails with one clear line and restores nothing', async () => {
  const dest = tempDir('dest');
  const missing = 'etcd-snapshot_etcd_2026-01-01T00:00:00Z_cp-1.db';
  const job = restoreJobOf(etcdPolicy({ endpoint: etcd.endpoint, mode: 'perNode', nodes: ['cp-1'] }), ['--target', 'cp-1', '--snapshot', missing]);
  const target = tempDir('restore');
  const restore = await runPod(job, { volumes: { backup: dest, restore: target } });
  expect(restore.failed).toBe('restore');
  expect(errorLines(restore.results.restore)).toHaveLength(1);
  expect(errorLines(restore.results.restore)[0]).toContain(missing);
  expect(filesOf(target)).toEqual([]);
});

describe('faults', () => {
  test('etcd down: the precheck fails with one clear line, no snapshot, no file', async () => {
    const dest = tempDir('dest');
    const down = `https://127.0.0.1:${await freePort()}`;
    const run = await runPod(backupCronJob({}, {}, down), { volumes: volumes(dest), env: FAST_FAIL });
    expect(run.failed).toBe('precheck');
    expect(run.results.precheck.code).not.toBe(0);
    const errors = errorLines(run.results.precheck);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(`cannot get the status of the etcd member at ${down}`);
    expect(errors[0]).toContain('no snapshot taken');
    expect(filesOf(dest)).toEqual([]);
  });

  test('etcd gone at the snapshot step: etcdctl exits non-zero, nothing under a final name, the next run clears its temporary file', async () => {
    const dest = tempDir('dest');
    const down = `https://127.0.0.1:${await freePort()}`;
    const cj = backupCronJob({}, {}, down);
    const r = await runContainer(cj, 'snapshot', { volumes: volumes(dest), pod: { nodeName: 'cp-1' }, env: FAST_FAIL });
    expect(r.code).not.toBe(0);
    // etcdctl 3.4 leaves its hidden temporary file when the dial fails: never a backup name
    expect(filesOf(dest).every((f) => f.startsWith('.etcd-snapshot_etcd_cp-1.partial'))).toBe(true);
    const next = await runPod(backupCronJob(), { volumes: volumes(dest) });
    expect(next.failed).toBeUndefined();
    expect(filesOf(dest).filter((f) => f.startsWith('.'))).toEqual([]);
  });


  test('a client without the right certificate is refused: non-zero, no file', async () => {
    const dest = tempDir('dest');
    const pki = tempDir('pki');
    for (const f of fs.readdirSync(etcd.pkiDir)) fs.copyFileSync(path.join(etcd.pkiDir, f), path.join(pki, f));
    // a certificate from another CA
    await runOk('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=intruder',
      '-keyout', path.join(pki, 'healthcheck-client.key'), '-out', path.join(pki, 'healthcheck-client.crt')], { env: { PATH: process.env.PATH, OPENSSL_CONF: '/dev/null' } });
    const run = await runPod(backupCronJob(), { volumes: volumes(dest, pki), env: FAST_FAIL });
    expect(run.failed).toBe('precheck');
    expect(errorLines(run.results.precheck)[0]).toContain('cannot get the status');
    expect(filesOf(dest)).toEqual([]);
  });

  /** A destination with one earlier backup (and its metadata) that keepLast: 1 would prune. */
  function destWithOldBackup(): { dest: string; old: string[] } {
    const dest = tempDir('dest');
    const old = 'etcd-snapshot_etcd_2020-01-01T00:00:00Z_cp-1.db';
    fs.writeFileSync(path.join(dest, old), 'an old snapshot');
    fs.writeFileSync(path.join(dest, `${old}.json`), '{}');
    return { dest, old: [old, `${old}.json`] };
  }

  async function snapshotThen(corrupt: (file: string) => void) {
    const { dest, old } = destWithOldBackup();
    const cj = backupCronJob({}, { retention: { keepLast: 1 } });
    const volumeDirs: Record<string, string> = {};
    const first = await runPod(cj, { volumes: volumes(dest), volumeDirs, only: ['tools', 'precheck', 'snapshot'] });
    expect(first.failed).toBeUndefined();
    const partial = path.join(dest, '.etcd-snapshot_etcd_cp-1.partial');
    expect(fs.existsSync(partial)).toBe(true);
    corrupt(partial);
    const rest = await runPod(cj, { volumes: volumes(dest), volumeDirs, only: ['verify', 'finalize'] });
    return { dest, old, rest };
  }

  test('truncated snapshot: verification fails, nothing renamed, nothing pruned', async () => {
    const { dest, old, rest } = await snapshotThen((f) => fs.truncateSync(f, fs.statSync(f).size - 100));
    expect(rest.failed).toBe('verify');
    const errors = errorLines(rest.results.verify);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/integrity check failed: .* truncated or not a snapshot/);
    expect(filesOf(dest)).toEqual(old);
  });

  test('one corrupted byte: the checksum fails, nothing renamed, nothing pruned', async () => {
    const { dest, old, rest } = await snapshotThen((f) => {
      const b = fs.readFileSync(f);
      b[Math.floor(b.length / 2)] ^= 0xff;
      fs.writeFileSync(f, b);
    });
    expect(rest.failed).toBe('verify');
    expect(errorLines(rest.results.verify)[0]).toMatch(/integrity check failed: the sha256 .* the snapshot is corrupt/);
    expect(filesOf(dest)).toEqual(old);
  });

  test('a broken database under a matching checksum: snapshot status rejects it, nothing renamed, nothing pruned', async () => {
    const { dest, old, rest } = await snapshotThen((f) => {
      const b = fs.readFileSync(f);
      const db = b.subarray(0, b.length - 32);
      db.fill(0, 0, 8192); // both bbolt meta pages
      fs.writeFileSync(f, Buffer.concat([db, createHash('sha256').update(db).digest()]));
    });
    expect(rest.failed).toBe('verify');
    expect(errorLines(rest.results.verify)[0]).toMatch(/integrity check failed: etcdctl snapshot status rejected/);
    expect(filesOf(dest)).toEqual(old);
  });

  test('full disk: refused before the snapshot (free space < 2 x the database size)', async () => {
    const { dbSize } = await endpointStatus();
    const mnt = tempDir('tmpfs');
    const kib = Math.ceil((dbSize * 1.5) / 4096) * 4;
    const mount = await runCommand('mount', ['-t', 'tmpfs', '-o', `size=${kib}k,mode=0755`, 'tmpfs', mnt], { env: { PATH: process.env.PATH } });
    if (mount.code !== 0) throw new Error(`this test mounts a ${kib} KiB tmpfs and needs root: ${mount.stderr}`);
    try {
      const run = await runPod(backupCronJob(), { volumes: volumes(mnt) });
      expect(run.failed).toBe('precheck');
      const errors = errorLines(run.results.precheck);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(new RegExp(`refusing to snapshot: .* has \\d+ bytes free, but the database is ${dbSize} bytes .* needs 2 x that \\(${dbSize * 2} bytes\\); nothing written`));
      expect(run.results.snapshot).toBeUndefined();
      expect(filesOf(mnt)).toEqual([]);
    } finally {
      await runOk('umount', [mnt], { env: { PATH: process.env.PATH } });
    }
  });

  test('a snapshot that hangs is killed by the deadline and leaves nothing under a final name', async () => {
    const dest = tempDir('dest');
    const cj = backupCronJob();
    const volumeDirs: Record<string, string> = {};
    const first = await runPod(cj, { volumes: volumes(dest), volumeDirs, only: ['tools', 'precheck'] });
    expect(first.failed).toBeUndefined();
    process.kill(etcd.pid, 'SIGSTOP');
    let r;
    try {
      r = await runContainer(cj, 'snapshot', { volumes: volumes(dest), volumeDirs, pod: { nodeName: 'cp-1' }, timeoutMs: 3000 });
    } finally {
      process.kill(etcd.pid, 'SIGCONT');
    }
    expect(r.timedOut).toBe(true);
    expect(finalNames(dest)).toEqual([]);
    // the Job deadline is what ends it in a cluster
    expect((cj.spec as { jobTemplate: { spec: { activeDeadlineSeconds: number } } }).jobTemplate.spec.activeDeadlineSeconds).toBe(900);
    // the next run clears the leftovers first
    const next = await runPod(cj, { volumes: volumes(dest) });
    expect(next.failed).toBeUndefined();
    expect(filesOf(dest).filter((f) => f.startsWith('.'))).toEqual([]);
    expect(finalNames(dest)).toHaveLength(1);
  });

  test('an existing final name is never overwritten: the run fails and removes its own files', async () => {
    const dest = tempDir('dest');
    const cj = backupCronJob();
    const volumeDirs: Record<string, string> = {};
    const first = await runPod(cj, { volumes: volumes(dest), volumeDirs, only: ['tools', 'precheck', 'snapshot', 'verify'] });
    expect(first.failed).toBeUndefined();
    const started = Number(fs.readFileSync(path.join(volumeDirs.scratch, 'started'), 'utf8'));
    const taken = `etcd-snapshot_etcd_${stamp(started)}_cp-1.db`;
    fs.writeFileSync(path.join(dest, taken), 'someone else');
    const fin = await runPod(cj, { volumes: volumes(dest), volumeDirs, only: ['finalize'] });
    expect(fin.failed).toBe('finalize');
    expect(errorLines(fin.results.finalize)[0]).toContain('already exists: refusing to overwrite a snapshot');
    expect(filesOf(dest)).toEqual([taken]);
    expect(fs.readFileSync(path.join(dest, taken), 'utf8')).toBe('someone else');
  });
});

test('etcd over plain http: no certificates are mounted or passed', async () => {
  const plain = await (await import('../../../../support/services')).startEtcd();
  try {
    const dest = tempDir('dest');
    const cj = backupCronJob({}, {}, plain.endpoint);
    expect(JSON.stringify(cj)).not.toContain('etcd-certs');
    const run = await runPod(cj, { volumes: { backup: dest } });
    expect(run.failed).toBeUndefined();
    expect(finalNames(dest)).toHaveLength(1);
  } finally {
    await plain.stop();
  }
});
