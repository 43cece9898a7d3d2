// The etcd engine on every etcd its users run: Debian's 3.4 (etcdctl alone: its snapshot status and
// restore), and 3.5 and 3.6 built from the Go module proxy (tools/etcd-3.5, tools/etcd-3.6: etcdutl does
// the offline snapshot commands). The whole etcd suite runs on MAIN_ETCD_VERSION; this file runs, on
// each other version, the paths whose tools or output formats differ between versions -- the backup
// (`endpoint status -w json`, `snapshot save`, `snapshot status -w json`, the restore check, the key
// count), the restore Job, the restore drill (a temporary member of that version), the alarms and the
// defragmentation of a 3-member cluster -- and on every version the content check after a compaction at
// the head (issue 33: it must count what the snapshot holds, and never pass what it could not count).
// Every run is the rendered pod, its containers run with the version's binaries first on PATH; etcd with
// mutual TLS on loopback, a real Pushgateway.
import * as fs from 'fs';
import * as path from 'path';
import { renderPolicy } from '../../../../../lib';
import type { BackupPolicy, Manifest } from '../../../../../lib';
import {
  ETCD_VERSIONS,
  MAIN_ETCD_VERSION,
  etcdTools,
  requireCommands,
  runOk,
  startEtcdCluster,
  startEtcdFromDataDir,
  startEtcdTls,
  startPushgateway,
  stopAll,
} from '../../../../support/services';
import type { EtcdClusterHandle, EtcdTlsHandle, EtcdVersion, PushgatewayHandle } from '../../../../support/services';
import {
  cronJobs,
  errorLines,
  etcdPolicy,
  filesOf,
  metricValue,
  parseSnapshotMetadata,
  removeTempDirs,
  restoreJobOf,
  runPod,
  tempDir,
} from '../fixtures';
import type { SnapshotMetadata, SnapshotStatus } from '../fixtures';

jest.setTimeout(300000);

const OTHER_VERSIONS = ETCD_VERSIONS.filter((v) => v !== MAIN_ETCD_VERSION);
const NODE = 'cp-1';
const SNAPSHOT = /^etcd-snapshot_\S+_\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ_cp-1\.db$/;

let gateway: PushgatewayHandle;
const clusters: EtcdClusterHandle[] = [];

beforeAll(async () => {
  requireCommands('busybox', 'openssl', 'curl');
  // every version's binaries, or a clear error naming what to build (never a skip)
  for (const v of ETCD_VERSIONS) etcdTools(v);
  gateway = await startPushgateway();
});

afterAll(async () => {
  await Promise.all(clusters.map((c) => c.stop()));
  await stopAll();
  removeTempDirs();
});

const component = (cj: Manifest) => (cj.metadata.labels as Record<string, string>)['app.kubernetes.io/component'];
const cronJobOfComponent = (policy: BackupPolicy, c: string) => {
  const cj = cronJobs(renderPolicy(policy)).find((o) => component(o) === c);
  if (!cj) throw new Error(`no ${c} CronJob rendered`);
  return cj;
};

/** A perNode policy for node cp-1 of `etcd` (hostPath destination), pushing to the gateway, with weekly drills. */
function policyOf(etcd: { endpoint: string }, name: string, spec: Record<string, unknown> = {}): BackupPolicy {
  return etcdPolicy(
    // curl for the metrics push comes with images.shell (the default busybox has none)
    { endpoint: etcd.endpoint, mode: 'perNode', nodes: [NODE], images: { shell: 'curlimages/curl:8.10.1' } },
    { metrics: { pushgatewayUrl: gateway.url }, drill: { schedule: '@weekly' }, ...spec },
    name,
  );
}

/** `count` keys /registry/k<n> (n from `from`), 100 puts to a transaction (etcd's default --max-txn-ops is 128). */
async function putKeys(etcd: EtcdTlsHandle, count: number, from = 0): Promise<void> {
  for (let start = from; start < from + count; start += 100) {
    const puts = [];
    for (let i = start; i < Math.min(start + 100, from + count); i++)
      puts.push(`put /registry/k${String(i).padStart(4, '0')} v${i}`);
    // `etcdctl txn` on standard input: the compares, a blank line, the success requests, a blank line, the failure ones
    const r = await etcd.etcdctlRaw(['txn'], { input: `\n${puts.join('\n')}\n\n\n` });
    if (r.code !== 0 || !r.stdout.toString().startsWith('SUCCESS\n')) throw new Error(`etcdctl txn: ${r.stderr}`);
  }
}

/** The member's revision (`endpoint status -w json`). */
async function revisionOf(etcd: EtcdTlsHandle): Promise<number> {
  return Number(/"revision":(\d+)/.exec(await etcd.etcdctl(['endpoint', 'status', '-w', 'json']))![1]);
}

interface Stored {
  readonly name: string;
  readonly file: string;
  readonly meta: SnapshotMetadata;
}

/** The snapshot a run stored in `dest` that was not in `before`. */
function storedSince(dest: string, before: readonly string[]): Stored {
  const [name, ...more] = filesOf(dest).filter((f) => SNAPSHOT.test(f) && !before.includes(f));
  if (!name || more.length) throw new Error(`expected one new snapshot in ${dest}: ${filesOf(dest).join(', ')}`);
  const file = path.join(dest, name);
  return { name, file, meta: parseSnapshotMetadata(fs.readFileSync(`${file}.json`)) };
}

/** One run of the policy's backup pod on `version`'s binaries; waits a second so that names differ. */
async function backUp(etcd: EtcdTlsHandle, policy: BackupPolicy, dest: string, opts: { pathPrepend?: string[] } = {}) {
  const cj = cronJobOfComponent(policy, 'backup');
  const run = await runPod(cj, {
    volumes: { backup: dest, 'etcd-certs': etcd.pkiDir },
    etcd: etcd.tools.version,
    ...opts,
  });
  await new Promise((resolve) => setTimeout(resolve, 1100));
  return { run, target: cj.metadata.name };
}

/** The tool the scripts check and restore snapshots with on `version`: the one its users have. */
const toolOf = (version: EtcdVersion) => (version === '3.4' ? 'etcdctl' : 'etcdutl');

describe.each(OTHER_VERSIONS)('etcd %s', (version) => {
  const KEYS = 60;
  let etcd: EtcdTlsHandle;

  beforeAll(async () => {
    etcd = await startEtcdTls({ version });
    await putKeys(etcd, KEYS);
  });

  test("the backup: taken, checked and restore-checked with the version's tool, its keys counted; the restore Job's data directory starts and holds them", async () => {
    expect(etcd.tools.release.startsWith(`${version}.`)).toBe(true);
    const dest = tempDir(`backup-${version}`);
    const policy = policyOf(etcd, `etcd-${version.replace('.', '')}`);
    const revision = await revisionOf(etcd);
    const { run } = await backUp(etcd, policy, dest);
    expect(run.failed).toBeUndefined();
    expect(run.log).not.toMatch(/ (warn|error) /);
    expect(run.log).toContain(`info etcd ${etcd.tools.release} at ${etcd.endpoint}: revision ${revision}`);
    expect(run.log).toMatch(
      new RegExp(`snapshot verified with ${toolOf(version)}: revision ${revision}, .*, restorable`),
    );
    const { name, file, meta } = storedSince(dest, []);
    // what the version's own tool reads in the stored file
    const status = JSON.parse(
      await runOk(etcd.tools.snapshotTool, ['snapshot', 'status', file, '-w', 'json']),
    ) as SnapshotStatus;
    expect(meta).toMatchObject({
      revision,
      hash: status.hash,
      totalKey: status.totalKey,
      totalSize: status.totalSize,
      keyCount: KEYS,
      keyCountRevision: revision,
      verifiedWith: toolOf(version),
      restoreChecked: true,
    });

    const job = restoreJobOf(policy, ['--target', NODE, '--snapshot', name]);
    const target = tempDir(`restore-${version}`);
    const restore = await runPod(job, { volumes: { backup: dest, restore: target }, etcd: version });
    expect(restore.failed).toBeUndefined();
    expect(restore.results.restore.stderr).toContain(`restored ${name} (revision ${revision}, `);
    expect(restore.results.restore.stderr).toContain(` with ${toolOf(version)} as member ${NODE} of `);
    const restored = await startEtcdFromDataDir(path.join(target, `${name}.restored`), { name: NODE, version });
    try {
      expect(await restored.etcdctl(['get', '/registry/k0042', '--print-value-only'])).toBe('v42\n');
      expect(
        (await restored.etcdctl(['get', '/registry/', '--prefix', '--keys-only'])).split('\n').filter(Boolean),
      ).toHaveLength(KEYS);
    } finally {
      await restored.stop();
    }

    // --bump-revision (spec.etcd.restore.bumpRevision): etcdutl has it; etcdctl 3.4 has not, and says so
    const bumped = restoreJobOf(
      etcdPolicy(
        { endpoint: etcd.endpoint, mode: 'perNode', nodes: [NODE], restore: { bumpRevision: 1000 } },
        {},
        policy.metadata.name,
      ),
      ['--target', NODE, '--snapshot', name],
    );
    const bumpTarget = tempDir(`restore-bumped-${version}`);
    const bump = await runPod(bumped, { volumes: { backup: dest, restore: bumpTarget }, etcd: version });
    if (version === '3.4') {
      expect(bump.failed).toBe('restore');
      expect(errorLines(bump.results.restore)).toEqual([
        expect.stringMatching(/etcdctl snapshot restore of .* failed: Error: unknown flag: --bump-revision$/),
      ]);
      expect(filesOf(bumpTarget)).toEqual([]);
    } else {
      expect(bump.failed).toBeUndefined();
      const member = await startEtcdFromDataDir(path.join(bumpTarget, `${name}.restored`), { name: NODE, version });
      try {
        expect(Number(/"revision":(\d+)/.exec(await member.etcdctl(['endpoint', 'status', '-w', 'json']))![1])).toBe(
          revision + 1000,
        );
        expect(await member.etcdctl(['get', '/registry/k0042', '--print-value-only'])).toBe('v42\n');
      } finally {
        await member.stop();
      }
    }
  });

  test('the restore drill: a temporary member of this version on the restored snapshot, at the revision and with the keys recorded', async () => {
    const dest = tempDir(`drill-${version}`);
    const policy = policyOf(etcd, `etcd-drill-${version.replace('.', '')}`);
    expect((await backUp(etcd, policy, dest)).run.failed).toBeUndefined();
    const { meta, name } = storedSince(dest, []);
    const drill = await runPod(cronJobOfComponent(policy, 'restore-drill'), {
      volumes: { backup: dest },
      etcd: version,
    });
    expect(drill.failed).toBeUndefined();
    expect(drill.log).not.toMatch(/ (warn|error) /);
    expect(drill.log).toContain(
      `restored ${name} with ${toolOf(version)} and started a temporary etcd member on it: revision ${meta.revision} and ${KEYS} keys, as recorded`,
    );
    expect(
      await metricValue(gateway, 'etcd_backup_restore_drill_success', `${policy.metadata.name}-drill-${NODE}`),
    ).toBe(1);
  });

  test("a cluster that raised NOSPACE: the backup warns, takes the snapshot and pushes the alarm (this version's endpoint status)", async () => {
    const full = await startEtcdTls({ version, quotaBackendBytes: 2 * 1024 * 1024 });
    const value = 'x'.repeat(100_000);
    let refused = '';
    for (let i = 0; i < 60 && !refused; i++) {
      const r = await full.etcdctlRaw(['put', `/registry/big-${i}`, value]);
      if (r.code !== 0) refused = r.stderr;
    }
    expect(refused).toContain('database space exceeded');
    const dest = tempDir(`alarm-${version}`);
    const { run, target } = await backUp(full, policyOf(full, `etcd-full-${version.replace('.', '')}`), dest);
    expect(run.failed).toBeUndefined();
    expect(run.log).toMatch(
      /the etcd cluster has raised the alarm\(s\) NOSPACE \(etcdctl alarm list; .*\): taking the snapshot all the same/,
    );
    expect(filesOf(dest).filter((f) => SNAPSHOT.test(f))).toHaveLength(1);
    expect(await metricValue(gateway, 'etcd_backup_source_alarm', target)).toBeDefined();
    const gauges = (await gateway.metrics())
      .split('\n')
      .filter((l) => l.startsWith('etcd_backup_source_alarm{') && l.includes(`target="${target}"`));
    expect(gauges.map((l) => `${/alarm="([A-Z]+)"/.exec(l)![1]} ${l.slice(l.lastIndexOf(' ') + 1)}`).sort()).toEqual([
      'CORRUPT 0',
      'NOSPACE 1',
    ]);
    await full.stop();
  });

  test('the defragmentation of a fragmented 3-member cluster: every member, one at a time, the leader last; smaller after', async () => {
    const c = await startEtcdCluster({ members: 3, tls: true, version });
    clusters.push(c);
    const value = 'x'.repeat(100_000);
    for (let i = 0; i < 40; i++) await c.etcdctl(['put', `/registry/big-${i}`, value]);
    await c.etcdctl(['del', '--prefix', '/registry/big-']);
    const revision = /"revision":(\d+)/.exec(await c.etcdctl(['endpoint', 'status', '-w', 'json']))![1];
    await c.etcdctl(['compact', '--physical', revision]);
    const sizes = async () =>
      Promise.all(
        [0, 1, 2].map(async (i) => {
          const text = await c.etcdctl(['endpoint', 'status', '-w', 'json'], i);
          return { db: Number(/"dbSize":(\d+)/.exec(text)![1]), inUse: Number(/"dbSizeInUse":(\d+)/.exec(text)![1]) };
        }),
      );
    let before = await sizes();
    for (let attempt = 0; attempt < 100 && !before.every((s) => (s.db - s.inUse) / s.db > 0.5); attempt++) {
      await c.etcdctl(['put', '/registry/kept', String(attempt)]);
      before = await sizes();
    }
    expect(before.every((s) => (s.db - s.inUse) / s.db > 0.5)).toBe(true);

    const policy = etcdPolicy(
      {
        endpoint: c.members[0].endpoint,
        images: { shell: 'curlimages/curl:8.10.1' },
        defragmentation: { schedule: '30 3 * * 0' },
      },
      { metrics: { pushgatewayUrl: gateway.url } },
      `etcd-defrag-${version.replace('.', '')}`,
    );
    const cj = cronJobOfComponent(policy, 'maintenance');
    const run = await runPod(cj, { volumes: { 'etcd-certs': c.pkiDir! }, etcd: version });
    expect(run.failed).toBeUndefined();
    expect(errorLines(run.results.defrag)).toEqual([]);
    expect(run.log).toMatch(/3 of 3 members defragmented \(the leader last\)/);
    const order = [...run.log.matchAll(/ info defragmenting (the leader, )?member (\S+) /g)];
    expect(order.map((m) => m[2]).sort()).toEqual(['m1', 'm2', 'm3']);
    expect(order[2][1]).toBe('the leader, ');
    const after = await sizes();
    for (const [i, s] of after.entries()) expect(s.db).toBeLessThan(before[i].db / 4);
    expect(await metricValue(gateway, 'etcd_backup_defrag_last_run', cj.metadata.name)).toBeDefined();
  });
});

describe.each(ETCD_VERSIONS)('etcd %s: the content check after a compaction at the head (issue 33)', (version) => {
  const KEPT = 51;
  const KEYS = 1051;
  let etcd: EtcdTlsHandle;

  beforeAll(async () => {
    etcd = await startEtcdTls({ version });
    await putKeys(etcd, KEYS);
  });

  const metric = (name: string, target: string) => metricValue(gateway, `etcd_backup_${name}`, target);

  test('1,051 keys backed up, all but 51 deleted, compacted at the head: the next runs count the 51 keys the snapshot holds; onShrink fail stores nothing, warn stores it with a warning; its drill passes', async () => {
    const dest = tempDir(`head-${version}`);
    const name = `etcd-head-${version.replace('.', '')}`;
    const fail = policyOf(etcd, name, { contentChecks: { onShrink: 'fail' } });
    const warn = policyOf(etcd, name);
    const first = await backUp(etcd, fail, dest);
    expect(first.run.failed).toBeUndefined();
    const earlier = storedSince(dest, []);
    expect(earlier.meta.keyCount).toBe(KEYS);

    // the deletions, 100 keys to a revision, then a compaction at the head: its newest revision is a compacted delete
    for (let start = KEPT; start < KEYS; start += 100) {
      const dels = [];
      for (let i = start; i < Math.min(start + 100, KEYS); i++)
        dels.push(`del /registry/k${String(i).padStart(4, '0')}`);
      const r = await etcd.etcdctlRaw(['txn'], { input: `\n${dels.join('\n')}\n\n\n` });
      expect(r.code).toBe(0);
    }
    const head = await revisionOf(etcd);
    await etcd.etcdctl(['compact', '--physical', String(head)]);

    const before = filesOf(dest);
    const refused = await backUp(etcd, fail, dest);
    expect(refused.run.failed).toBe('finalize');
    const errors = errorLines(refused.run.results.finalize);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      new RegExp(
        `the snapshot at revision ${head} holds ${KEPT} keys, the newest earlier backup ${earlier.name.replace(/\./g, '\\.')} ${KEYS}: less than 50% of them \\(spec\\.contentChecks\\.shrinkBelowPercent\\); nothing stored \\(onShrink: fail\\)$`,
      ),
    );
    expect(filesOf(dest)).toEqual(before);
    expect(await metric('content_keys', refused.target)).toBe(KEPT);
    expect(await metric('content_shrunk', refused.target)).toBe(1);
    expect(await metric('content_checked', refused.target)).toBe(1);

    const stored = await backUp(etcd, warn, dest);
    expect(stored.run.failed).toBeUndefined();
    expect(stored.run.log).toMatch(
      /warn the snapshot at revision \d+ holds 51 keys, .* 1051: less than 50% of them .*stored all the same \(onShrink: warn\)/,
    );
    const { meta } = storedSince(dest, before);
    expect(meta.keyCount).toBe(KEPT);
    expect(meta.keyCountRevision).toBe(head);
    // etcd 3.4's compaction removes the tombstones at the compacted revision too, so its snapshot's newest
    // revision is below the head; 3.5 and 3.6 keep them (server/mvcc/key_index.go, compact)
    if (version === '3.4') expect(meta.revision).toBeLessThan(head);
    else expect(meta.revision).toBe(head);
    expect(await metric('content_shrunk', stored.target)).toBe(1);
    expect(await metric('content_checked', stored.target)).toBe(1);

    // the restored member starts at the revision the keys were counted at, with those keys
    const drill = await runPod(cronJobOfComponent(warn, 'restore-drill'), { volumes: { backup: dest }, etcd: version });
    expect(drill.failed).toBeUndefined();
    expect(drill.log).toContain(`revision ${head} and ${KEPT} keys, as recorded`);
  });

  test("compacted past the snapshot's revision before the count: nothing stored with onShrink fail; with warn stored with a warning and content_checked 0 pushed", async () => {
    const dest = tempDir(`compacted-${version}`);
    const name = `etcd-compacted-${version.replace('.', '')}`;
    expect((await backUp(etcd, policyOf(etcd, name), dest)).run.failed).toBeUndefined();
    const before = filesOf(dest);
    // a stand-in etcdctl: the real one for every call (it prints what etcdctl prints); before `get`, it
    // writes and compacts the member past every revision so far, as a compaction between save and count does
    const real = etcd.tools.etcdctl;
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

    const refused = await backUp(etcd, policyOf(etcd, name, { contentChecks: { onShrink: 'fail' } }), dest, {
      pathPrepend: [bin],
    });
    expect(refused.run.failed).toBe('finalize');
    const errors = errorLines(refused.run.results.finalize);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      /the snapshot at revision \d+ has no key count \(cannot count the keys at revision \d+ at https:\/\/127\.0\.0\.1:\d+: .*required revision has been compacted\): its content cannot be checked; nothing stored \(onShrink: fail\)$/,
    );
    expect(filesOf(dest)).toEqual(before);
    expect(await metric('last_run_success', refused.target)).toBe(0);
    expect(await metric('content_checked', refused.target)).toBe(0);

    const stored = await backUp(etcd, policyOf(etcd, name), dest, { pathPrepend: [bin] });
    expect(stored.run.failed).toBeUndefined();
    const warnings = stored.run.log.split('\n').filter((l) => / warn /.test(l));
    expect(warnings).toEqual([
      expect.stringMatching(
        /cannot count the keys at revision \d+ at .*required revision has been compacted: the metadata records no keyCount; the content checks decide whether the snapshot is stored$/,
      ),
      expect.stringMatching(
        /the snapshot at revision \d+ has no key count \(.*\): its content cannot be checked; stored all the same \(onShrink: warn\)$/,
      ),
    ]);
    const { meta } = storedSince(dest, before);
    expect(meta.keyCount).toBeUndefined();
    expect(await metric('last_run_success', stored.target)).toBe(1);
    expect(await metric('content_checked', stored.target)).toBe(0);

    // the next run that counts is compared with the newest backup that recorded a count, not with the uncounted one
    const next = await backUp(etcd, policyOf(etcd, name), dest);
    expect(next.run.failed).toBeUndefined();
    expect(next.run.log).toMatch(/the newest earlier backup\(s\) \S+ record no key count: compared with \S+/);
    expect(await metric('content_checked', next.target)).toBe(1);
  });
});

test('a backup taken on etcd 3.5 drills on etcd 3.6 (a cluster upgraded since): the snapshot checks out, though the two count totalKey differently', async () => {
  const etcd = await startEtcdTls({ version: '3.5' });
  await putKeys(etcd, 30);
  const dest = tempDir('upgraded');
  const policy = policyOf(etcd, 'etcd-upgraded');
  expect((await backUp(etcd, policy, dest)).run.failed).toBeUndefined();
  const { name, file, meta } = storedSince(dest, []);
  const newer = JSON.parse(
    await runOk(etcdTools('3.6').snapshotTool, ['snapshot', 'status', file, '-w', 'json']),
  ) as SnapshotStatus;
  // etcdutl 3.6 counts the live keys (etcdutl/snapshot/v3_snapshot.go, seenKeys); 3.5 every entry of every bucket
  expect(newer.totalKey).toBe(30);
  expect(meta.totalKey).toBeGreaterThan(30);
  expect(newer.hash).toBe(meta.hash);
  const drill = await runPod(cronJobOfComponent(policy, 'restore-drill'), { volumes: { backup: dest }, etcd: '3.6' });
  expect(drill.failed).toBeUndefined();
  expect(drill.log).toContain(
    `restored ${name} with etcdutl and started a temporary etcd member on it: revision ${meta.revision} and 30 keys, as recorded`,
  );
});
