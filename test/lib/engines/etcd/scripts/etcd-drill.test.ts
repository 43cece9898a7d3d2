// Restore drills (spec.drill) of etcd backups, for real: a real etcd (MAIN_ETCD_VERSION,
// test/support/services/etcd.ts) with mutual TLS takes the backups through the rendered
// backup CronJob, then the rendered drill CronJob's containers run in order
// (volumes mapped to temp dirs), restore the newest snapshot into a temporary
// etcd member and push their result to a real Pushgateway. Encrypted backups
// are encrypted with the real age. A deadline is TERM sent to a step's first
// process, as the kubelet does.
import { processes } from '../../../../support/proc';
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { renderPolicy } from '../../../../../lib';
import type { BackupPolicy, Manifest } from '../../../../../lib';
import { runContainer } from '../../../../support/run-container';
import {
  EtcdTlsHandle,
  PushgatewayHandle,
  etcdTools,
  requireCommands,
  runOk,
  startEtcdTls,
  startPushgateway,
  stopAll,
} from '../../../../support/services';
import {
  PodRun,
  containerProcess,
  cronJobs,
  errorLines,
  etcdPolicy,
  filesOf,
  metricValue,
  removeTempDirs,
  runPod,
  stamp,
  tempDir,
  waitFor,
  type SnapshotMetadata,
} from '../fixtures';

jest.setTimeout(180000);

const KEYS = 40;
const NODE = 'cp-1';

let etcd: EtcdTlsHandle;
let gateway: PushgatewayHandle;

beforeAll(async () => {
  requireCommands('etcd', 'etcdctl', 'busybox', 'age', 'age-keygen', 'openssl', 'curl');
  [etcd, gateway] = await Promise.all([startEtcdTls(), startPushgateway()]);
  for (let i = 0; i < KEYS; i++) await etcd.etcdctl(['put', `/registry/drill/k${i}`, `value-${i}-${'x'.repeat(i)}`]);
});

afterAll(async () => {
  await stopAll();
  removeTempDirs();
});

/**
 * A perNode policy for node cp-1 (hostPath destination) with weekly drills pushing to the gateway;
 * each test names its own policy, so that its drill target has its own metrics.
 */
function drillPolicy(name: string, spec: Record<string, unknown> = {}): BackupPolicy {
  return etcdPolicy(
    // curl for the metrics push comes with images.shell (the default busybox has none)
    { endpoint: etcd.endpoint, mode: 'perNode', nodes: [NODE], images: { shell: 'curlimages/curl:8.10.1' } },
    { metrics: { pushgatewayUrl: gateway.url }, drill: { schedule: '@weekly' }, ...spec },
    name,
  );
}

const component = (cj: Manifest) => (cj.metadata.labels as Record<string, string>)['app.kubernetes.io/component'];
const cronJobOfComponent = (policy: BackupPolicy, c: string) =>
  cronJobs(renderPolicy(policy)).find((cj) => component(cj) === c)!;

interface Stored {
  readonly name: string;
  readonly file: string;
  readonly time: number;
  readonly meta: SnapshotMetadata;
}

/** One backup run of the policy into `dest`: the snapshot it stored. */
async function backUp(policy: BackupPolicy, dest: string): Promise<Stored> {
  const before = new Set(filesOf(dest));
  const run = await runPod(cronJobOfComponent(policy, 'backup'), {
    volumes: { backup: dest, 'etcd-certs': etcd.pkiDir },
  });
  if (run.failed) throw new Error(run.log);
  // encrypted: <name>.age, its metadata under the clear name
  const name = filesOf(dest).find((f) => !before.has(f) && /\.db(\.age)?$/.test(f))!;
  const file = path.join(dest, name);
  const time = Date.parse(/_(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)_/.exec(name)![1]) / 1000;
  return {
    name,
    file,
    time,
    meta: JSON.parse(fs.readFileSync(`${file.replace(/\.age$/, '')}.json`, 'utf8')) as SnapshotMetadata,
  };
}

/** The keys of the live etcd at `revision`, listed (not counted by the server). */
async function keysAt(revision: number): Promise<number> {
  const listed = JSON.parse(
    await etcd.etcdctl(['get', '', '--prefix', '--keys-only', `--rev=${revision}`, '-w', 'json']),
  ) as { kvs?: unknown[] };
  return (listed.kvs ?? []).length;
}

interface DrillRun extends PodRun {
  readonly started: number;
  readonly ended: number;
}

async function drill(policy: BackupPolicy, dest: string, opts: Parameters<typeof runPod>[1] = {}): Promise<DrillRun> {
  const started = Math.floor(Date.now() / 1000);
  const run = await runPod(cronJobOfComponent(policy, 'restore-drill'), { volumes: { backup: dest }, ...opts });
  return { ...run, started, ended: Math.ceil(Date.now() / 1000) };
}

const gauge = (policy: BackupPolicy, name: string) =>
  metricValue(gateway, `etcd_backup_restore_drill_${name}`, `${policy.metadata.name}-drill-${NODE}`);
const lastLine = (text: string) => text.replace(/\n+$/, '').split('\n').pop()!;

/** The etcd processes still running on a data directory under `dir`. */
const membersUnder = (dir: string) =>
  processes().filter((p) => /(^|\/)etcd$/.test(p.argv[0] ?? '') && p.argv.some((a) => a.includes(dir)));

/**
 * etcd's line when a signal stops it (pkg/osutil/interrupt_unix.go, HandleInterrupts: v3.4 `received %v
 * signal, shutting down...`; v3.5 and v3.6 zap's `"msg":"received signal; shutting down","signal":"terminated"`).
 */
const STOPPED_BY_TERM =
  /received terminated signal, shutting down|"msg":"received signal; shutting down","signal":"terminated"/;

/** A failed drill: the report step pushed failure and exits 1 with one error line, the step that failed logged one too. */
function expectFailed(run: DrillRun, step: string, reason: RegExp): string {
  expect(run.failed).toBe('report');
  expect(run.results.report.code).toBe(1);
  for (const s of ['fetch', 'tools', 'restore']) if (run.results[s]) expect(run.results[s].code).toBe(0);
  const stepErrors = errorLines(run.results[step]);
  expect(stepErrors).toHaveLength(1);
  expect(stepErrors[0]).toMatch(reason);
  const errors = errorLines(run.results.report);
  expect(errors).toHaveLength(1);
  expect(errors[0]).toMatch(/ error restore drill failed after \d+s[ :]/);
  expect(errors[0]).toMatch(reason);
  expect(lastLine(run.results.report.stderr)).toBe(errors[0]);
  return errors[0];
}

test("a good backup: restored into a temporary member whose revision and key count are the backup's; four gauges pushed; the member stopped", async () => {
  const policy = drillPolicy('good');
  const dest = tempDir('dest');
  const stored = await backUp(policy, dest);
  // the backup recorded the keys the live etcd had at the snapshot's revision
  expect(stored.meta.keyCount).toBe(await keysAt(stored.meta.revision));
  await etcd.etcdctl(['put', '/after/the-backup', 'x']);

  const run = await drill(policy, dest);
  expect(run.log).not.toMatch(/ error /);
  expect(run.failed).toBeUndefined();
  expect(Object.keys(run.results)).toEqual(['fetch', 'tools', 'restore', 'report']);
  expect(run.results.fetch.stderr).toContain(`drilling the newest backup of node cp-1's snapshots at `);
  expect(run.results.restore.stderr).toContain(
    `revision ${stored.meta.revision} and ${stored.meta.keyCount} keys, as recorded`,
  );
  expect(lastLine(run.results.report.stderr)).toMatch(
    new RegExp(
      `info restore drill succeeded: ${stored.name} restored, revision ${stored.meta.revision} and ${stored.meta.keyCount} keys, as recorded; RTO \\d+s \\(fetch to answers\\), backup age \\d+s \\(RPO\\)$`,
    ),
  );

  expect(await gauge(policy, 'success')).toBe(1);
  const duration = (await gauge(policy, 'duration_seconds'))!;
  expect(duration).toBeGreaterThanOrEqual(0);
  expect(duration).toBeLessThanOrEqual(run.ended - run.started);
  const age = (await gauge(policy, 'backup_age_seconds'))!;
  expect(age).toBeGreaterThanOrEqual(run.started - stored.time);
  expect(age).toBeLessThanOrEqual(run.ended - stored.time);
  const last = (await gauge(policy, 'last_success_timestamp_seconds'))!;
  expect(last).toBeGreaterThanOrEqual(run.started);
  expect(last).toBeLessThanOrEqual(run.ended);

  // the drill stopped its member itself (the container teardown would have killed it, without this line)
  const drillDir = path.join(run.volumeDirs.scratch, 'drill');
  expect(fs.readFileSync(path.join(drillDir, 'member.log'), 'utf8')).toMatch(STOPPED_BY_TERM);
  expect(membersUnder(run.volumeDirs.scratch)).toEqual([]);
  expect(filesOf(drillDir)).not.toContain('member');
  // the stored backup is untouched
  expect(filesOf(dest)).toEqual([stored.name, `${stored.name}.json`]);
});

test('the newest of several backups is drilled; a backup written before keyCount existed is compared by its revision only, and the log says so', async () => {
  const policy = drillPolicy('legacy');
  const dest = tempDir('dest');
  const stored = await backUp(policy, dest);
  const { keyCount, ...legacy } = stored.meta;
  expect(keyCount).toBeDefined();
  fs.writeFileSync(`${stored.file}.json`, JSON.stringify(legacy, null, 2));
  // an older snapshot, another node's newer one, and files that are not snapshots of cp-1
  const older = `etcd-snapshot_legacy_${stamp(stored.time - 3600)}_cp-1.db`;
  fs.writeFileSync(path.join(dest, older), 'older, never read');
  fs.writeFileSync(path.join(dest, `etcd-snapshot_legacy_${stamp(stored.time + 60)}_cp-2.db`), 'another node');
  fs.writeFileSync(path.join(dest, `.etcd-snapshot_legacy_cp-1.partial`), 'partial');

  const run = await drill(policy, dest);
  expect(run.failed).toBeUndefined();
  expect(run.results.restore.stderr).toContain(
    `the metadata of ${stored.name} records no keyCount (written before backups counted keys): compared the revision only`,
  );
  expect(lastLine(run.results.report.stderr)).toContain(
    `${stored.name} restored, revision ${stored.meta.revision} as recorded, ${keyCount} keys (no count recorded)`,
  );
  expect(await gauge(policy, 'success')).toBe(1);
});

describe('a backup that changed after it was stored fails the drill: failure pushed, exit 1, one error line', () => {
  /**
   * Flips a byte inside one value, in every copy of it (bbolt leaves stale copies in free pages):
   * bbolt's structure stays intact, the live value does not.
   */
  const flipValueBytes = (f: string) => {
    const b = fs.readFileSync(f);
    const value = Buffer.from(`value-30-${'x'.repeat(30)}`);
    let flipped = 0;
    for (let at = b.indexOf(value); at >= 0; at = b.indexOf(value, at + 1)) {
      b[at + 20] ^= 0xff;
      flipped++;
    }
    expect(flipped).toBeGreaterThan(0);
    fs.writeFileSync(f, b);
  };

  test('flipped bytes: snapshot status finds another hash than the backup recorded; the last success stays', async () => {
    const policy = drillPolicy('flipped');
    const dest = tempDir('dest');
    const stored = await backUp(policy, dest);
    const good = await drill(policy, dest);
    expect(good.failed).toBeUndefined();
    const lastSuccess = await gauge(policy, 'last_success_timestamp_seconds');

    flipValueBytes(stored.file);
    const run = await drill(policy, dest);
    const line = expectFailed(
      run,
      'restore',
      new RegExp(
        `integrity check failed: ${path.basename(etcd.tools.snapshotTool)} snapshot status reports hash \\d+ for ${stored.name}, its metadata recorded ${stored.meta.hash}: the backup changed after it was stored`,
      ),
    );
    expect(line).toContain(`(${stored.name}, `);
    expect(await gauge(policy, 'success')).toBe(0);
    expect(await gauge(policy, 'last_success_timestamp_seconds')).toBe(lastSuccess);
    expect(membersUnder(run.volumeDirs.scratch)).toEqual([]);
  });

  test('another snapshot under its name: it ends with another sha256 than the backup recorded', async () => {
    const policy = drillPolicy('replaced');
    const dest = tempDir('dest');
    const first = await backUp(policy, dest);
    // an hour older, so that the next backup gets another name
    const older = path.join(dest, `etcd-snapshot_replaced_${stamp(first.time - 3600)}_cp-1.db`);
    fs.renameSync(first.file, older);
    fs.renameSync(`${first.file}.json`, `${older}.json`);
    await etcd.etcdctl(['put', '/replaced/by/a/later/snapshot', 'x']);
    const later = await backUp(policy, dest);
    fs.renameSync(older, later.file);
    const run = await drill(policy, dest);
    expectFailed(
      run,
      'restore',
      new RegExp(
        `integrity check failed: ${later.name} ends with the sha256 ${first.meta.sha256}, its metadata recorded ${later.meta.sha256}: the backup changed after it was stored`,
      ),
    );
  });

  test('a truncated snapshot', async () => {
    const policy = drillPolicy('truncated');
    const dest = tempDir('dest');
    const stored = await backUp(policy, dest);
    fs.truncateSync(stored.file, fs.statSync(stored.file).size - 100);
    const run = await drill(policy, dest);
    expectFailed(
      run,
      'restore',
      /integrity check failed: .* does not end with etcd's 32-byte sha256 after whole 512-byte blocks: truncated or not a snapshot/,
    );
    expect(await gauge(policy, 'success')).toBe(0);
    expect(await gauge(policy, 'last_success_timestamp_seconds')).toBeUndefined();
  });
});

test('a newest backup older than maxBackupAge fails the drill before anything is restored; its age is pushed', async () => {
  const policy = drillPolicy('stale', { drill: { schedule: '@weekly', maxBackupAge: '1h' } });
  const dest = tempDir('dest');
  const stored = await backUp(policy, dest);
  // the same snapshot, as if taken two hours ago
  const oldTime = stored.time - 2 * 3600;
  const old = `etcd-snapshot_stale_${stamp(oldTime)}_cp-1.db`;
  fs.renameSync(stored.file, path.join(dest, old));
  fs.renameSync(`${stored.file}.json`, path.join(dest, `${old}.json`));

  const run = await drill(policy, dest);
  expectFailed(run, 'fetch', new RegExp(`the newest backup ${old} is \\d+s old; spec.drill.maxBackupAge allows 3600s`));
  expect(run.results.restore.stderr).toContain('skipped: an earlier step of this drill failed');
  expect(await gauge(policy, 'success')).toBe(0);
  expect(await gauge(policy, 'backup_age_seconds')).toBeGreaterThanOrEqual(run.started - oldTime);
});

test('no backup yet: the drill fails with one line naming where it looked', async () => {
  const policy = drillPolicy('empty');
  const run = await drill(policy, tempDir('dest'));
  expectFailed(
    run,
    'fetch',
    /no backup among node cp-1's snapshots at .*\/etcd-snapshot_empty_<time>_cp-1\.db: nothing to drill/,
  );
  expect(await gauge(policy, 'success')).toBe(0);
  expect(await gauge(policy, 'backup_age_seconds')).toBeUndefined();
});

describe('encrypted backups (<name>.age, metadata <name>.json)', () => {
  /** A fresh identity file and its recipient, from the real age-keygen. */
  function identity(): { file: string; recipient: string } {
    const file = path.join(tempDir('age'), 'identity.txt');
    execFileSync('age-keygen', ['-o', file], { stdio: 'ignore' });
    return { file, recipient: execFileSync('age-keygen', ['-y', file], { encoding: 'utf8' }).trim() };
  }

  /** A real backup of a policy that encrypts to `recipient` (spec.encryption): `<name>.age`, metadata `<name>.json`. */
  async function encryptedBackup(
    name: string,
    dest: string,
    recipient: string,
  ): Promise<{ policy: BackupPolicy; stored: Stored }> {
    const policy = drillPolicy(name, {
      encryption: {
        age: {
          recipients: [recipient],
          identitySecret: { name: 'etcd-age', key: 'identity' },
          image: 'alpine-age:3.20',
        },
      },
    });
    const stored = await backUp(policy, dest);
    expect(stored.name).toMatch(/\.db\.age$/);
    return { policy, stored };
  }

  const secretsOf = (identityFile: string) => ({ 'etcd-age': { identity: fs.readFileSync(identityFile, 'utf8') } });

  test('decrypted with the right identity, then drilled like any backup', async () => {
    const key = identity();
    const dest = tempDir('dest');
    const { policy, stored } = await encryptedBackup('sealed', dest, key.recipient);
    const run = await drill(policy, dest, { secrets: secretsOf(key.file) });
    expect(run.log).not.toMatch(/ error /);
    expect(run.failed).toBeUndefined();
    expect(Object.keys(run.results)).toEqual(['fetch', 'decrypt', 'tools', 'restore', 'report']);
    expect(run.results.decrypt.stderr).toContain(`decrypted ${stored.name} with the identity in `);
    expect(lastLine(run.results.report.stderr)).toContain(
      `${stored.name} restored, revision ${stored.meta.revision} and ${stored.meta.keyCount} keys, as recorded`,
    );
    expect(await gauge(policy, 'success')).toBe(1);
    // the decrypted copy lived in scratch only, and is gone
    expect(filesOf(path.join(run.volumeDirs.scratch, 'drill')).filter((f) => f.endsWith('.db'))).toEqual([]);
    expect(filesOf(dest)).toEqual([stored.name, `${stored.name.slice(0, -4)}.json`]);
  });

  test("a wrong identity fails cleanly with age's message; nothing restored", async () => {
    const key = identity();
    const wrong = identity();
    const dest = tempDir('dest');
    const { policy, stored } = await encryptedBackup('wrong-key', dest, key.recipient);
    const run = await drill(policy, dest, { secrets: secretsOf(wrong.file) });
    expectFailed(
      run,
      'decrypt',
      new RegExp(
        `cannot decrypt .*/${stored.name.replace(/\./g, '\\.')}: age: error: no identity matched any of the recipients`,
      ),
    );
    expect(run.results.restore.stderr).toContain('skipped: an earlier step of this drill failed');
    expect(filesOf(path.join(run.volumeDirs.scratch, 'drill')).filter((f) => f.endsWith('.db'))).toEqual([]);
    expect(await gauge(policy, 'success')).toBe(0);
  });

  test('without spec.encryption an encrypted newest backup cannot be drilled: one clear line', async () => {
    const key = identity();
    const dest = tempDir('dest');
    // stored while the policy encrypted; the policy no longer does
    const { stored } = await encryptedBackup('no-identity', dest, key.recipient);
    const policy = drillPolicy('no-identity');
    const run = await drill(policy, dest);
    expectFailed(
      run,
      'restore',
      new RegExp(
        `the newest backup ${stored.name.replace(/\./g, '\\.')} is encrypted \\(\\.age\\) and the policy sets no spec\\.encryption to decrypt it with`,
      ),
    );
  });
});

test("TERM (the Job's deadline) while the temporary member runs: the member is stopped, its data removed, the failure reported", async () => {
  const policy = drillPolicy('deadline');
  const dest = tempDir('dest');
  await backUp(policy, dest);
  // a stand-in etcdctl: the real one for every call, but `endpoint status` (the member is up) waits until the test resumes it
  const bin = tempDir('etcdctl-bin');
  const paused = path.join(bin, 'paused');
  fs.writeFileSync(
    path.join(bin, 'etcdctl'),
    [
      '#!/bin/sh',
      `case " $* " in *" endpoint status "*) : >'${paused}'; while :; do sleep 0.02; done ;; esac`,
      `exec '${etcd.tools.etcdctl}' "$@"`,
      '',
    ].join('\n'),
    { mode: 0o755 },
  );

  const volumeDirs: Record<string, string> = {};
  const run = drill(policy, dest, { pathPrepend: [bin], volumeDirs });
  let ended: DrillRun | undefined;
  run.then(
    (r) => {
      ended = r;
    },
    () => undefined,
  );
  await waitFor('the drill reading its temporary member', () => {
    if (ended) throw new Error(`the drill ended before pausing:\n${ended.log}`);
    return fs.existsSync(paused);
  });
  const step = await waitFor('the restore step', () => containerProcess('etcd-drill'));
  const members = membersUnder(volumeDirs.scratch);
  expect(members).toHaveLength(1);
  process.kill(step.pid, 'SIGTERM');
  const r = await run;

  expect(r.results.restore.code).toBe(0);
  expect(r.results.restore.timedOut).toBe(false);
  expect(errorLines(r.results.restore)).toEqual([
    expect.stringMatching(
      /stopped by SIGTERM \(the Job's deadline, or the pod was deleted\) while reading the temporary etcd member at http:\/\/127\.0\.0\.1:\d+$/,
    ),
  ]);
  expect(processes().filter((p) => p.pid === members[0].pid)).toEqual([]);
  const drillDir = path.join(r.volumeDirs.scratch, 'drill');
  expect(fs.readFileSync(path.join(drillDir, 'member.log'), 'utf8')).toMatch(STOPPED_BY_TERM);
  expect(filesOf(drillDir)).not.toContain('member');
  expectFailed(r, 'restore', /stopped by SIGTERM/);
  expect(await gauge(policy, 'success')).toBe(0);
});

test('the restore step needs only etcd, etcdctl and etcdutl from the etcd image, and busybox (distroless)', async () => {
  const policy = drillPolicy('distroless');
  const dest = tempDir('dest');
  await backUp(policy, dest);
  // The busybox image: its applets only. The distroless etcd image (3.5.7 and newer): etcd, etcdctl and
  // etcdutl, the real ones (of 3.6 when the suite runs 3.4, whose image has a shell).
  const busyboxImage = tempDir('busybox-image');
  const busybox = requireCommands('busybox').busybox;
  for (const applet of (await runOk(busybox, ['--list'])).split('\n').filter(Boolean))
    fs.symlinkSync(busybox, path.join(busyboxImage, applet));
  fs.symlinkSync(busybox, path.join(busyboxImage, 'busybox'));
  const etcdImage = tempDir('etcd-image');
  const distroless = etcd.tools.etcdutl ? etcd.tools : etcdTools('3.6');
  fs.symlinkSync(distroless.etcd, path.join(etcdImage, 'etcd'));
  fs.symlinkSync(distroless.etcdctl, path.join(etcdImage, 'etcdctl'));
  fs.symlinkSync(distroless.etcdutl!, path.join(etcdImage, 'etcdutl'));

  const cj = cronJobOfComponent(policy, 'restore-drill');
  const volumeDirs: Record<string, string> = {};
  const fetch = await runContainer(cj, 'fetch', { volumeDirs, volumes: { backup: dest }, env: { PATH: busyboxImage } });
  expect(fetch.stderr).not.toMatch(/ error /);
  const tools = await runContainer(cj, 'tools', { volumeDirs, env: { PATH: busyboxImage } });
  expect(tools.code).toBe(0);
  const restore = await runContainer(cj, 'restore', {
    volumeDirs,
    volumes: { backup: dest },
    env: { PATH: `${path.join(volumeDirs.scratch, 'tools')}:${etcdImage}` },
    timeoutMs: 60000,
  });
  expect(restore.stderr).not.toMatch(/ error /);
  expect(restore.stderr).toMatch(
    /restored etcd-snapshot_distroless_.* with etcdutl and started a temporary etcd member on it: revision \d+ and \d+ keys, as recorded/,
  );
  expect(fs.existsSync(path.join(volumeDirs.scratch, 'drill', 'result'))).toBe(true);
});
