// The rendered etcd backup pod runs for real: tools, snapshot (precheck, save,
// verify), finalize -- each container's command, args and env from the
// manifest, volumes mapped to temp dirs -- against a real etcd (MAIN_ETCD_VERSION of
// test/support/services/etcd.ts) with mutual TLS on loopback, using kubeadm's file names.
// Faults are injected between etcdctl's steps by a stand-in etcdctl that runs
// the real one and pauses around `snapshot save`; deadlines are TERM sent to a
// step's first process, as the kubelet does.
import { descendants } from '../../../../support/proc';
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
  startEtcd,
  startEtcdTls,
  startPushgateway,
  stopAll,
  etcdTools,
} from '../../../../support/services';
import {
  PodRun,
  containerProcess,
  cronJobOf,
  errorLines,
  etcdPolicy,
  filesOf,
  metricValue,
  parseSnapshotMetadata,
  pausingEtcdctl,
  removeTempDirs,
  restoreJobOf,
  runPod,
  stamp,
  tempDir,
  waitFor,
} from '../fixtures';
import type { SnapshotStatus } from '../fixtures';

jest.setTimeout(120000);

const KEYS = 120;
const NAME = /^etcd-snapshot_etcd_(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)_cp-1\.db$/;

let etcd: EtcdTlsHandle;

beforeAll(async () => {
  requireCommands('etcd', 'etcdctl', 'busybox', 'openssl');
  etcd = await startEtcdTls();
  for (let i = 0; i < KEYS; i++)
    await etcd.etcdctl(['put', `/registry/k${String(i).padStart(3, '0')}`, `value-${i}-${'x'.repeat(i)}`]);
});

afterAll(async () => {
  await stopAll();
  removeTempDirs();
});

const volumes = (dest: string, pki = etcd.pkiDir) => ({ backup: dest, 'etcd-certs': pki });

function backupCronJob(
  over: Record<string, unknown> = {},
  spec: Record<string, unknown> = {},
  endpoint = etcd.endpoint,
): Manifest {
  return cronJobOf(etcdPolicy({ endpoint, ...over }, spec));
}

async function endpointStatus(): Promise<{ revision: number; dbSize: number }> {
  // `etcdctl endpoint status -w json`: one entry per endpoint
  const [{ Status }] = JSON.parse(await etcd.etcdctl(['endpoint', 'status', '-w', 'json'])) as [
    { Status: { header: { revision: number }; dbSize: number } },
  ];
  return { revision: Status.header.revision, dbSize: Status.dbSize };
}

/** Shorter client timeouts than the rendered ones (10s dial, 15s endpoint status), to fail fast. */
const FAST_FAIL = { ETCDCTL_DIAL_TIMEOUT: '1s', ETCD_BACKUP_STATUS_TIMEOUT: '2s' };
const ETCDCTL = () => etcd.tools.etcdctl;
/** Where the scripts check and restore snapshots: etcdutl from 3.5 on, etcdctl on 3.4. */
const SNAPSHOT_TOOL = () => etcd.tools.snapshotTool;
const TOOL = () => path.basename(SNAPSHOT_TOOL());
const PARTIAL = '.etcd-snapshot_etcd_cp-1.partial';

/** Waits until `paused` exists, failing at once with the pod's log if the pod ends first. */
async function pausedIn(run: Promise<PodRun>, paused: string): Promise<void> {
  let ended: PodRun | undefined;
  run.then(
    (r) => {
      ended = r;
    },
    () => undefined,
  );
  await waitFor(`${paused}`, () => {
    if (ended) throw new Error(`the pod ended before pausing:\n${ended.log}`);
    return fs.existsSync(paused);
  });
}

const mode = (file: string) => fs.statSync(file).mode & 0o777;
const finalNames = (dir: string) => filesOf(dir).filter((f) => NAME.test(f));

test('a run saves, verifies and names a snapshot (0600, node in the name), writes its metadata, and the snapshot restores', async () => {
  const dest = tempDir('dest');
  const before = await endpointStatus();
  const started = Math.floor(Date.now() / 1000);
  // as the kubelet runs it: uid 0 without capabilities, a read-only root filesystem, read-only certificates
  const run = await runPod(backupCronJob({}, { retention: { keepLast: 3 } }), {
    volumes: volumes(dest),
    enforceSecurityContext: true,
  });
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
  const status = JSON.parse(await runOk(SNAPSHOT_TOOL(), ['snapshot', 'status', file, '-w', 'json'])) as SnapshotStatus;
  const meta = parseSnapshotMetadata(fs.readFileSync(`${file}.json`));
  expect(meta).toEqual({
    name,
    node: 'cp-1',
    time: NAME.exec(name)![1],
    revision: before.revision,
    hash: status.hash,
    totalKey: status.totalKey,
    // the keys written before the backup, and nothing else
    keyCount: KEYS,
    keyCountRevision: before.revision,
    totalSize: status.totalSize,
    size: bytes.length,
    sha256: createHash('sha256')
      .update(bytes.subarray(0, bytes.length - 32))
      .digest('hex'),
    verifiedWith: TOOL(),
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
    const { kvs } = JSON.parse(out) as { kvs: { key: string; value: string }[] };
    const got = Object.fromEntries(
      kvs.map((kv) => [Buffer.from(kv.key, 'base64').toString(), Buffer.from(kv.value, 'base64').toString()]),
    );
    expect(Object.keys(got)).toHaveLength(KEYS);
    for (let i = 0; i < KEYS; i++)
      expect(got[`/registry/k${String(i).padStart(3, '0')}`]).toBe(`value-${i}-${'x'.repeat(i)}`);
    expect(got['/after/the-backup']).toBeUndefined();
  } finally {
    await restored.stop();
  }
  expect(run.results.finalize.stderr).toMatch(/info stored snapshot .*revision \d+, \d+ keys/);
  expect(run.log).not.toMatch(/ error /);
});

test("the default (configMap mode): the rendered ConfigMap's files, mounted at /scripts, sourced by every step", async () => {
  const dest = tempDir('dest');
  const objects = renderPolicy(etcdPolicy({ endpoint: etcd.endpoint }, { retention: { keepLast: 3 } }));
  const cronJob = objects.find((o) => o.kind === 'CronJob')!;
  const run = await runPod(cronJob, { volumes: volumes(dest), configMaps: configMapsOf(objects) });
  expect(run.log).not.toMatch(/ error /);
  expect(run.failed).toBeUndefined();
  expect(finalNames(dest)).toHaveLength(1);
  for (const step of ['tools', 'snapshot', 'finalize']) {
    const source = run.results[step].argv[2].split('\n')[1];
    expect(source).toMatch(new RegExp(`^\\. ${run.results[step].mounts['/scripts']}/common\\.sh`));
  }
});

test('inline mode (the opt-in): the same run with every function in the command, no /scripts volume', async () => {
  const dest = tempDir('dest');
  const objects = renderPolicy(
    etcdPolicy({ endpoint: etcd.endpoint }, { retention: { keepLast: 3 }, scripts: { mode: 'inline' } }),
  );
  expect(objects.map((o) => o.kind)).not.toContain('ConfigMap');
  const run = await runPod(
    objects.find((o) => o.kind === 'CronJob')!,
    { volumes: volumes(dest) },
  );
  expect(run.log).not.toMatch(/ error /);
  expect(run.failed).toBeUndefined();
  expect(finalNames(dest)).toHaveLength(1);
  for (const step of ['tools', 'snapshot', 'finalize']) {
    expect(run.results[step].mounts['/scripts']).toBeUndefined();
    expect(run.results[step].argv[2].split('\n')[1]).toBe('# common.sh');
  }
});

test('the etcd steps need only etcdctl/etcdutl from the etcd image: no shell, no coreutils (distroless)', async () => {
  const dest = tempDir('dest');
  // The busybox image: its applets only. The distroless etcd image (3.5.7 and newer): only etcdctl and
  // etcdutl, the real ones (of 3.6 when the suite runs 3.4, whose image has a shell).
  const busyboxImage = tempDir('busybox-image');
  const busybox = requireCommands('busybox').busybox;
  for (const applet of (await runOk(busybox, ['--list'])).split('\n').filter(Boolean))
    fs.symlinkSync(busybox, path.join(busyboxImage, applet));
  fs.symlinkSync(busybox, path.join(busyboxImage, 'busybox'));
  const distroless = etcd.tools.etcdutl ? etcd.tools : etcdTools('3.6');
  const etcdImage = tempDir('etcd-image');
  fs.symlinkSync(distroless.etcdctl, path.join(etcdImage, 'etcdctl'));
  fs.symlinkSync(distroless.etcdutl!, path.join(etcdImage, 'etcdutl'));

  const cj = backupCronJob();
  const volumeDirs: Record<string, string> = {};
  const tools = await runContainer(cj, 'tools', {
    volumeDirs,
    volumes: volumes(dest),
    pod: { nodeName: 'cp-1' },
    env: { PATH: busyboxImage },
  });
  expect(tools.code).toBe(0);
  const toolsDir = path.join(volumeDirs.scratch, 'tools');
  const run = await runPod(cj, {
    volumeDirs,
    volumes: volumes(dest),
    only: ['snapshot', 'finalize'],
    envFor: { snapshot: { PATH: `${toolsDir}:${etcdImage}` }, finalize: { PATH: busyboxImage } },
    etcd: false,
  });
  expect(run.failed).toBeUndefined();
  const [name] = finalNames(dest);
  expect(parseSnapshotMetadata(fs.readFileSync(path.join(dest, `${name}.json`))).verifiedWith).toBe('etcdutl');
  expect(run.results.snapshot.stderr).toContain('snapshot verified with etcdutl');
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

  const job = restoreJobOf(etcdPolicy({ endpoint: etcd.endpoint, mode: 'perNode', nodes: ['cp-1'] }), [
    '--target',
    'cp-1',
    '--snapshot',
    name,
  ]);
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
    expect(
      (await restored.etcdctl(['get', '/registry/', '--prefix', '--keys-only'])).split('\n').filter(Boolean),
    ).toHaveLength(KEYS);
  } finally {
    await restored.stop();
  }

  // a second run refuses to overwrite the restored directory
  const again = await runPod(job, { volumes: { backup: dest, restore: target } });
  expect(again.failed).toBe('restore');
  expect(errorLines(again.results.restore)[0]).toMatch(/already exists: remove it to restore/);
});

test("TERM (the Job's deadline) during the restore Job's restore: exit 1 with one line, no data directory left", async () => {
  const dest = tempDir('dest');
  expect((await runPod(backupCronJob(), { volumes: volumes(dest) })).failed).toBeUndefined();
  const [name] = finalNames(dest);
  const job = restoreJobOf(etcdPolicy({ endpoint: etcd.endpoint, mode: 'perNode', nodes: ['cp-1'] }), [
    '--target',
    'cp-1',
    '--snapshot',
    name,
  ]);
  const target = tempDir('restore');
  const pause = pausingEtcdctl(SNAPSHOT_TOOL(), 'after-restore');
  const run = runPod(job, { volumes: { backup: dest, restore: target }, pathPrepend: [pause.bin] });
  await pausedIn(run, pause.paused);
  expect(filesOf(target)).toEqual([`${name}.restored.partial`]);
  const step = await waitFor('the restore step', () => containerProcess('etcd-restore'));
  process.kill(step.pid, 'SIGTERM');
  const r = await run;
  expect(r.failed).toBe('restore');
  expect(r.results.restore.code).toBe(1);
  const errors = errorLines(r.results.restore);
  expect(errors).toHaveLength(1);
  expect(errors[0]).toMatch(
    new RegExp(
      `stopped by SIGTERM \\(the Job's deadline, or the pod was deleted\\) while restoring .*/${name} into .*/${name}\\.restored\\.partial$`,
    ),
  );
  expect(filesOf(target)).toEqual([]);
});

test('a restore Job naming a snapshot that is not on the node fails with one clear line and restores nothing', async () => {
  const dest = tempDir('dest');
  const missing = 'etcd-snapshot_etcd_2026-01-01T00:00:00Z_cp-1.db';
  const job = restoreJobOf(etcdPolicy({ endpoint: etcd.endpoint, mode: 'perNode', nodes: ['cp-1'] }), [
    '--target',
    'cp-1',
    '--snapshot',
    missing,
  ]);
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
    expect(run.failed).toBe('snapshot');
    expect(run.results.snapshot.code).toBe(1);
    const errors = errorLines(run.results.snapshot);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(`cannot get the status of the etcd member at ${down}`);
    expect(errors[0]).toContain('no snapshot taken');
    expect(filesOf(dest)).toEqual([]);
  });

  test('the leftovers of a run killed after the grace period (temporary snapshot, .part, restore-check directory) are cleared by the next run', async () => {
    const dest = tempDir('dest');
    fs.writeFileSync(path.join(dest, PARTIAL), 'partial');
    fs.writeFileSync(path.join(dest, `${PARTIAL}.part`), 'part');
    fs.mkdirSync(path.join(dest, '.etcd-snapshot_etcd_cp-1.restore-check', 'member', 'snap'), { recursive: true });
    const run = await runPod(backupCronJob(), { volumes: volumes(dest) });
    expect(run.failed).toBeUndefined();
    expect(filesOf(dest).filter((f) => f.startsWith('.'))).toEqual([]);
    expect(finalNames(dest)).toHaveLength(1);
  });

  test('a client without the right certificate is refused: non-zero, no file', async () => {
    const dest = tempDir('dest');
    const pki = tempDir('pki');
    for (const f of fs.readdirSync(etcd.pkiDir)) fs.copyFileSync(path.join(etcd.pkiDir, f), path.join(pki, f));
    // a certificate from another CA
    await runOk(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=intruder',
        '-keyout',
        path.join(pki, 'healthcheck-client.key'),
        '-out',
        path.join(pki, 'healthcheck-client.crt'),
      ],
      { env: { PATH: process.env.PATH, OPENSSL_CONF: '/dev/null' } },
    );
    const run = await runPod(backupCronJob(), { volumes: volumes(dest, pki), env: FAST_FAIL });
    expect(run.failed).toBe('snapshot');
    expect(errorLines(run.results.snapshot)[0]).toContain('cannot get the status');
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

  /** A run whose snapshot `corrupt` changes between etcdctl's save and the checks. */
  async function snapshotThen(corrupt: (file: string) => void, over: Record<string, unknown> = {}) {
    const { dest, old } = destWithOldBackup();
    const pause = pausingEtcdctl(ETCDCTL(), 'after-save');
    const run = runPod(backupCronJob(over, { retention: { keepLast: 1 } }), {
      volumes: volumes(dest),
      pathPrepend: [pause.bin],
    });
    await pausedIn(run, pause.paused);
    corrupt(path.join(dest, PARTIAL));
    pause.resume();
    return { dest, old, rest: await run };
  }

  /** Flips one byte inside a value: bbolt's structure stays intact (`snapshot status` passes), its sha256 does not. */
  const flipValueByte = (f: string) => {
    const b = fs.readFileSync(f);
    const at = b.indexOf(`value-100-${'x'.repeat(100)}`);
    expect(at).toBeGreaterThan(0);
    b[at + 50] ^= 0xff;
    fs.writeFileSync(f, b);
  };

  test('truncated snapshot: verification fails, nothing renamed, nothing pruned', async () => {
    const { dest, old, rest } = await snapshotThen((f) => fs.truncateSync(f, fs.statSync(f).size - 100));
    expect(rest.failed).toBe('snapshot');
    const errors = errorLines(rest.results.snapshot);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/integrity check failed: .* truncated or not a snapshot/);
    expect(filesOf(dest)).toEqual(old);
  });

  test('one corrupted byte: the restore check finds the sha256 wrong, nothing renamed, nothing pruned', async () => {
    const { dest, old, rest } = await snapshotThen(flipValueByte);
    expect(rest.failed).toBe('snapshot');
    const errors = errorLines(rest.results.snapshot);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      new RegExp(
        `integrity check failed: ${TOOL()} snapshot restore found that the database in .*\\.partial does not match the sha256 it ends with: the snapshot is corrupt \\(.*expected sha256`,
      ),
    );
    expect(filesOf(dest)).toEqual(old);
  });

  test('one corrupted byte without the restore check: sha256sum finds it, nothing renamed, nothing pruned', async () => {
    const { dest, old, rest } = await snapshotThen(flipValueByte, { restoreCheck: false });
    expect(rest.failed).toBe('snapshot');
    const errors = errorLines(rest.results.snapshot);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      /integrity check failed: the sha256 of .*\.partial's database \([0-9a-f]{64}\) is not the checksum it ends with \([0-9a-f]{64}\): the snapshot is corrupt/,
    );
    expect(filesOf(dest)).toEqual(old);
  });

  test('a broken database under a matching checksum: snapshot status rejects it, nothing renamed, nothing pruned', async () => {
    const { dest, old, rest } = await snapshotThen((f) => {
      const b = fs.readFileSync(f);
      const db = b.subarray(0, b.length - 32);
      db.fill(0, 0, 8192); // both bbolt meta pages
      fs.writeFileSync(f, Buffer.concat([db, createHash('sha256').update(db).digest()]));
    });
    expect(rest.failed).toBe('snapshot');
    // the restore check runs beside snapshot status and fails on it too: still one line, status's
    expect(errorLines(rest.results.snapshot)).toEqual([
      expect.stringMatching(`integrity check failed: ${TOOL()} snapshot status rejected`),
    ]);
    expect(filesOf(dest)).toEqual(old);
  });

  /**
   * A stand-in of the snapshot tool (etcdutl, or etcdctl on 3.4: the real one run through a shell) whose
   * `snapshot restore` restores, then never ends (only a signal stops it), and whose `snapshot status` waits for
   * `go` before it runs: the test acts while the restore check (started beside status) is still running.
   */
  function holdingEtcdctl(): { bin: string; restored: string; go: () => void } {
    const bin = tempDir('etcdctl-bin');
    const restored = path.join(bin, 'restored');
    const go = path.join(bin, 'go');
    const real = SNAPSHOT_TOOL();
    fs.writeFileSync(
      path.join(bin, TOOL()),
      [
        '#!/bin/sh',
        'case " $* " in',
        `  *" snapshot restore "*) '${real}' "$@" || exit; : >'${restored}'; while :; do sleep 0.02; done ;;`,
        `  *" snapshot status "*) while [ ! -e '${go}' ]; do sleep 0.02; done; exec '${real}' "$@" ;;`,
        `  *) exec '${real}' "$@" ;;`,
        'esac',
        '',
      ].join('\n'),
      { mode: 0o755 },
    );
    return { bin, restored, go: () => fs.writeFileSync(go, '') };
  }

  test("snapshot status fails while the restore check still runs beside it: the restore is stopped, one line (status's), no restore-check directory, nothing renamed", async () => {
    const { dest, old } = destWithOldBackup();
    const hold = holdingEtcdctl();
    const run = runPod(backupCronJob({}, { retention: { keepLast: 1 } }), {
      volumes: volumes(dest),
      pathPrepend: [hold.bin],
    });
    await pausedIn(run, hold.restored);
    expect(filesOf(dest)).toEqual([PARTIAL, '.etcd-snapshot_etcd_cp-1.restore-check', ...old]);
    // both bbolt meta pages zeroed under a matching checksum: snapshot status rejects the file
    const file = path.join(dest, PARTIAL);
    const b = fs.readFileSync(file);
    const db = b.subarray(0, b.length - 32);
    db.fill(0, 0, 8192);
    fs.writeFileSync(file, Buffer.concat([db, createHash('sha256').update(db).digest()]));
    hold.go();
    const r = await run; // the restore is never resumed: the step ends only if it stops it
    expect(r.failed).toBe('snapshot');
    expect(r.results.snapshot.code).toBe(1);
    expect(errorLines(r.results.snapshot)).toEqual([
      expect.stringMatching(`integrity check failed: ${TOOL()} snapshot status rejected`),
    ]);
    expect(filesOf(dest)).toEqual(old);
  });

  test("TERM (the Job's deadline) while the restore check runs beside snapshot status: exit 1 with one line, no restore-check directory, nothing renamed", async () => {
    const { dest, old } = destWithOldBackup();
    const hold = holdingEtcdctl();
    const run = runPod(backupCronJob({}, { retention: { keepLast: 1 } }), {
      volumes: volumes(dest),
      pathPrepend: [hold.bin],
    });
    await pausedIn(run, hold.restored);
    const step = await waitFor('the snapshot step', () => containerProcess('etcd-snapshot'));
    process.kill(step.pid, 'SIGTERM');
    const r = await run;
    expect(r.failed).toBe('snapshot');
    expect(r.results.snapshot.code).toBe(1);
    const errors = errorLines(r.results.snapshot);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      /stopped by SIGTERM \(the Job's deadline, or the pod was deleted\) while verifying .*\.partial and restoring it into .*\.restore-check \(restore check\)$/,
    );
    expect(filesOf(dest)).toEqual(old);
  });

  test('full disk: refused before the snapshot (free space < 2 x the database size)', async () => {
    const { dbSize } = await endpointStatus();
    const mnt = tempDir('tmpfs');
    const kib = Math.ceil((dbSize * 1.5) / 4096) * 4;
    const mount = await runCommand('mount', ['-t', 'tmpfs', '-o', `size=${kib}k,mode=0755`, 'tmpfs', mnt], {
      env: { PATH: process.env.PATH },
    });
    if (mount.code !== 0) throw new Error(`this test mounts a ${kib} KiB tmpfs and needs root: ${mount.stderr}`);
    try {
      const pause = pausingEtcdctl(ETCDCTL(), 'before-save');
      const run = await runPod(backupCronJob(), { volumes: volumes(mnt), pathPrepend: [pause.bin] });
      expect(run.failed).toBe('snapshot');
      const errors = errorLines(run.results.snapshot);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(
        new RegExp(
          `refusing to snapshot: .* has \\d+ bytes free, but the database is ${dbSize} bytes .* needs 2 x that \\(${dbSize * 2} bytes\\); nothing written`,
        ),
      );
      // snapshot save never started
      expect(fs.existsSync(pause.paused)).toBe(false);
      expect(filesOf(mnt)).toEqual([]);
    } finally {
      await runOk('umount', [mnt], { env: { PATH: process.env.PATH } });
    }
  });

  test("etcd gone between the precheck and the save: snapshot save hangs (it has no timeout) until TERM, the Job's deadline, stops it: exit 1 with one line, not even etcdctl's .part left", async () => {
    const gone = await startEtcd();
    const dest = tempDir('dest');
    const cj = backupCronJob({}, {}, gone.endpoint);
    // the Job deadline is what sends the TERM in a cluster
    expect(
      (cj.spec as { jobTemplate: { spec: { activeDeadlineSeconds: number } } }).jobTemplate.spec.activeDeadlineSeconds,
    ).toBe(900);
    const pause = pausingEtcdctl(ETCDCTL(), 'before-save');
    const run = runPod(cj, { volumes: { backup: dest }, pathPrepend: [pause.bin] });
    await pausedIn(run, pause.paused);
    await gone.stop();
    pause.resume();
    const step = await waitFor('the snapshot step', () => containerProcess('etcd-snapshot'));
    await waitFor(
      'etcdctl snapshot save, waiting for the gone etcd',
      () =>
        descendants(step.pid).some((p) => p.argv[0] === ETCDCTL() && p.argv.includes('save')) &&
        fs.existsSync(path.join(dest, `${PARTIAL}.part`)),
    );
    process.kill(step.pid, 'SIGTERM');
    const r = await run;
    expect(r.failed).toBe('snapshot');
    expect(r.results.snapshot.code).toBe(1);
    expect(r.results.snapshot.timedOut).toBe(false);
    const errors = errorLines(r.results.snapshot);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      /stopped by SIGTERM \(the Job's deadline, or the pod was deleted\) while saving the snapshot to .*\.etcd-snapshot_etcd_cp-1\.partial$/,
    );
    expect(filesOf(dest)).toEqual([]);
  });

  test("TERM (the Job's deadline) in the middle of the hostPath store: both final names removed, a failure pushed, exit 1 with one line", async () => {
    const gateway = await startPushgateway();
    const dest = tempDir('dest');
    // curl for the metrics push comes with images.shell (the default busybox has none)
    const cj = backupCronJob(
      { images: { shell: 'curlimages/curl:8.10.1' } },
      { metrics: { pushgatewayUrl: gateway.url } },
    );
    const volumeDirs: Record<string, string> = {};
    expect(
      (await runPod(cj, { volumes: volumes(dest), volumeDirs, only: ['tools', 'snapshot'] })).failed,
    ).toBeUndefined();

    // A stand-in mv: the real mv renames (and prints what it prints); once the snapshot has its final name it
    // waits, so that the TERM lands between that rename and the end of the store.
    const bin = tempDir('mv-bin');
    const renamed = path.join(bin, 'renamed');
    const resumed = path.join(bin, 'resumed');
    fs.writeFileSync(
      path.join(bin, 'mv'),
      [
        '#!/bin/sh',
        `'${requireCommands('mv').mv}' "$@" || exit`,
        'for a in "$@"; do last=$a; done',
        `case $last in '${dest}'/etcd-snapshot_etcd_*_cp-1.db) : >'${renamed}'; while [ ! -e '${resumed}' ]; do sleep 0.02; done ;; esac`,
        '',
      ].join('\n'),
      { mode: 0o755 },
    );

    const finalize = runContainer(cj, 'finalize', {
      volumes: volumes(dest),
      volumeDirs,
      pod: { nodeName: 'cp-1' },
      pathPrepend: [bin],
      timeoutMs: 60000,
    });
    await waitFor('the snapshot renamed to its final name', () => fs.existsSync(renamed));
    expect(finalNames(dest)).toHaveLength(1);
    expect(filesOf(dest).filter((f) => f.endsWith('.db.json'))).toHaveLength(1);
    const step = await waitFor('the finalize step', () => containerProcess('etcd-finalize'));
    process.kill(step.pid, 'SIGTERM');
    fs.writeFileSync(resumed, '');
    const r = await finalize;

    expect(r.code).toBe(1);
    expect(r.timedOut).toBe(false);
    const errors = errorLines(r);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      /stopped by SIGTERM \(the Job's deadline, or the pod was deleted\) while storing .*\/etcd-snapshot_etcd_\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ_cp-1\.db$/,
    );
    expect(filesOf(dest)).toEqual([]);
    expect(await metricValue(gateway, 'etcd_backup_last_run_success', cj.metadata.name)).toBe(0);
    expect(await metricValue(gateway, 'etcd_backup_failure_total', cj.metadata.name)).toBe(1);
    expect(await metricValue(gateway, 'etcd_backup_success_total', cj.metadata.name)).toBe(0);
  });

  test('an existing final name is never overwritten: the run fails and removes its own files', async () => {
    const dest = tempDir('dest');
    const cj = backupCronJob();
    const volumeDirs: Record<string, string> = {};
    const first = await runPod(cj, { volumes: volumes(dest), volumeDirs, only: ['tools', 'snapshot'] });
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
  const plain = await startEtcd();
  try {
    await plain.etcdctl(['put', '/registry/k', 'v']); // a cluster holds keys (an empty one is refused: etcd-content.test.ts)
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

test("etcd compacted past the snapshot's revision before the key count: with onShrink warn (the default) the backup is stored without keyCount, with a warning from each step (etcd-versions.test.ts: every version, onShrink fail)", async () => {
  const dest = tempDir('dest');
  // a stand-in etcdctl: the real one for every call; before `get`, it compacts the member past every revision so far
  const real = ETCDCTL();
  const bin = tempDir('etcdctl-bin');
  fs.writeFileSync(
    path.join(bin, 'etcdctl'),
    [
      '#!/bin/sh',
      'case " $* " in',
      `  *" get "*) rev=$('${real}' put /compacted x -w json | sed -n 's/.*"revision":\\([0-9]*\\).*/\\1/p') && '${real}' compaction "$rev" >/dev/null || exit ;;`,
      'esac',
      `exec '${real}' "$@"`,
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
  const run = await runPod(backupCronJob(), { volumes: volumes(dest), pathPrepend: [bin] });
  expect(run.failed).toBeUndefined();
  const warnings = (step: string) => run.results[step].stderr.split('\n').filter((l) => / warn /.test(l));
  expect(warnings('snapshot')).toEqual([
    expect.stringMatching(
      /cannot count the keys at revision \d+ at https:\/\/127\.0\.0\.1:\d+: .*required revision has been compacted: the metadata records no keyCount; the content checks decide whether the snapshot is stored$/,
    ),
  ]);
  expect(warnings('finalize')).toEqual([
    expect.stringMatching(
      /the snapshot at revision \d+ has no key count \(cannot count the keys at revision \d+ .*\): its content cannot be checked; stored all the same \(onShrink: warn\)$/,
    ),
  ]);
  const [name] = finalNames(dest);
  const meta = parseSnapshotMetadata(fs.readFileSync(path.join(dest, `${name}.json`)));
  expect(meta.keyCount).toBeUndefined();
  expect(meta.keyCountRevision).toBeUndefined();
  expect(meta.revision).toBeGreaterThan(0);
});
