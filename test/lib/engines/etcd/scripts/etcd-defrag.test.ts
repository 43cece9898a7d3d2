// The defragmentation CronJob (spec.etcd.defragmentation) run for real: its rendered pod (tools, defrag, report)
// against a real three-member etcd cluster on 127.0.0.1 with mutual TLS (client and peer certificates of one
// CA; MAIN_ETCD_VERSION), pushing to a real Pushgateway. The cluster is fragmented for real: values written,
// deleted and compacted away leave free pages in every member's database file until a defragmentation.
// One stand-in only: an etcdctl whose `defrag` fails (the real one otherwise), for the failure path.
import * as fs from 'fs';
import * as path from 'path';
import { renderPolicy } from '../../../../../lib';
import type { BackupPolicy, EtcdDefragmentation, Manifest } from '../../../../../lib';
import { requireCommands, startEtcdCluster, startPushgateway, stopAll } from '../../../../support/services';
import type { EtcdClusterHandle, PushgatewayHandle } from '../../../../support/services';
import { cronJobs, errorLines, etcdPolicy, removeTempDirs, runPod, tempDir } from '../fixtures';

jest.setTimeout(180000);

let gateway: PushgatewayHandle;
const clusters: EtcdClusterHandle[] = [];

beforeAll(async () => {
  requireCommands('etcd', 'etcdctl', 'busybox', 'openssl', 'curl');
  gateway = await startPushgateway();
});

afterAll(async () => {
  await Promise.all(clusters.map((c) => c.stop()));
  await stopAll();
  removeTempDirs();
});

async function cluster(quotaBackendBytes?: number): Promise<EtcdClusterHandle> {
  const c = await startEtcdCluster({ members: 3, tls: true, quotaBackendBytes });
  clusters.push(c);
  return c;
}

/** What `endpoint status -w json` says of one member. */
interface MemberStatus {
  readonly id: string;
  readonly leader: string;
  readonly dbSize: number;
  readonly dbSizeInUse: number;
}

/** The member's status; the ids are read as text (uint64s lose digits as JS numbers). */
async function status(c: EtcdClusterHandle, i: number): Promise<MemberStatus> {
  const text = await c.etcdctl(['endpoint', 'status', '-w', 'json'], i);
  const num = (key: string) => new RegExp(`"${key}":(\\d+)`).exec(text)?.[1] ?? '';
  return {
    id: num('member_id'),
    leader: num('leader'),
    dbSize: Number(num('dbSize')),
    dbSizeInUse: Number(num('dbSizeInUse')),
  };
}

const fragmentation = (s: MemberStatus) => (s.dbSize - s.dbSizeInUse) / s.dbSize;

/**
 * About 4 MB of values written and deleted, the revisions compacted away (`--physical`: compact returns once
 * the deletions are done), then small writes until every member's freed pages show in dbSizeInUse (they do
 * once a later transaction commits): every member ends up mostly free pages.
 */
async function fragment(c: EtcdClusterHandle): Promise<void> {
  const value = 'x'.repeat(100_000);
  for (let i = 0; i < 40; i++) await c.etcdctl(['put', `/registry/big-${i}`, value]);
  await c.etcdctl(['del', '--prefix', '/registry/big-']);
  const revision = /"revision":(\d+)/.exec(await c.etcdctl(['endpoint', 'status', '-w', 'json']))![1];
  await c.etcdctl(['compact', '--physical', revision]);
  let last: MemberStatus[] = [];
  for (let attempt = 0; attempt < 100; attempt++) {
    await c.etcdctl(['put', '/registry/kept', String(attempt)]);
    last = await Promise.all([0, 1, 2].map((i) => status(c, i)));
    if (last.every((s) => fragmentation(s) > 0.5)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the members are not fragmented: ${JSON.stringify(last)}`);
}

/** The member names by ID (`member list`). */
async function namesById(c: EtcdClusterHandle): Promise<Record<string, string>> {
  const text = await c.etcdctl(['member', 'list', '-w', 'json']);
  const out: Record<string, string> = {};
  for (const m of text.matchAll(/"ID":(\d+),"name":"([^"]*)"/g)) out[m[1]] = m[2];
  return out;
}

const component = (cj: Manifest) => (cj.metadata.labels as Record<string, string>)['app.kubernetes.io/component'];

function defragPolicy(c: EtcdClusterHandle, name: string, defrag: Partial<EtcdDefragmentation> = {}): BackupPolicy {
  return etcdPolicy(
    {
      endpoint: c.members[0].endpoint,
      images: { shell: 'curlimages/curl:8.10.1' },
      defragmentation: { schedule: '30 3 * * 0', ...defrag },
    },
    { metrics: { pushgatewayUrl: gateway.url } },
    name,
  );
}

/** Runs the rendered defragmentation pod of `policy` against the cluster. */
async function defragment(c: EtcdClusterHandle, policy: BackupPolicy, pathPrepend?: string[]) {
  const cj = cronJobs(renderPolicy(policy)).find((o) => component(o) === 'maintenance');
  if (!cj) throw new Error('no maintenance CronJob rendered');
  const run = await runPod(cj, { volumes: { 'etcd-certs': c.pkiDir! }, pathPrepend });
  return { run, target: cj.metadata.name };
}

/** The pushed values of `etcd_backup_<metric>` of `target`, by the value of `label`. */
async function pushed(target: string, metric: string, label: string): Promise<Record<string, number>> {
  const found: Record<string, number> = {};
  for (const line of (await gateway.metrics()).split('\n')) {
    const m = new RegExp(`^etcd_backup_${metric}\\{(.*)\\} (\\S+)$`).exec(line);
    if (!m || !m[1].includes(`target="${target}"`)) continue;
    const key = new RegExp(`${label}="([^"]*)"`).exec(m[1]);
    if (key) found[key[1]] = Number(m[2]);
  }
  return found;
}

/** The defragmentation lines of the run's log, in order: the member each one names. */
const defragmentedInOrder = (log: string): string[] =>
  [...log.matchAll(/ info defragmenting (?:the leader, )?member (\S+) /g)].map((m) => m[1]);

test('a fragmented cluster: every member above the threshold is defragmented, one at a time, the leader last; sizes pushed, smaller after', async () => {
  const c = await cluster();
  await fragment(c);
  const names = await namesById(c);
  const leader = names[(await status(c, 0)).leader];
  const before = await Promise.all([0, 1, 2].map((i) => status(c, i)));

  const { run, target } = await defragment(c, defragPolicy(c, 'etcd-frag'));
  expect(run.failed).toBeUndefined();
  expect(errorLines(run.results.defrag)).toEqual([]);
  const order = defragmentedInOrder(run.log);
  expect([...order].sort()).toEqual(['m1', 'm2', 'm3']);
  expect(order[2]).toBe(leader);
  expect(run.log).toContain(`info defragmenting the leader, member ${leader} `);
  expect(run.log).toMatch(/3 of 3 members defragmented \(the leader last\)/);

  const sizeBefore = await pushed(target, 'defrag_db_size_before_bytes', 'member');
  const sizeAfter = await pushed(target, 'defrag_db_size_after_bytes', 'member');
  const fragBefore = await pushed(target, 'defrag_fragmentation_before_ratio', 'member');
  const fragAfter = await pushed(target, 'defrag_fragmentation_after_ratio', 'member');
  // the figures of the report
  console.log(
    'defragmentation of a fragmented 3-member cluster (bytes, fragmentation):\n' +
      ['m1', 'm2', 'm3']
        .map(
          (m) =>
            `${m}${m === leader ? ' (leader)' : ''}: ${sizeBefore[m]} -> ${sizeAfter[m]}, ${fragBefore[m]} -> ${fragAfter[m]}`,
        )
        .join('\n'),
  );
  for (const [i, m] of ['m1', 'm2', 'm3'].entries()) {
    expect(sizeBefore[m]).toBe(before[i].dbSize);
    expect(sizeAfter[m]).toBeLessThan(sizeBefore[m] / 4);
    expect(fragBefore[m]).toBeGreaterThan(0.5);
    expect(fragAfter[m]).toBeLessThan(fragBefore[m]);
    expect((await status(c, i)).dbSize).toBe(sizeAfter[m]);
  }
  // each member logs its defragmentation (the test of the alarm below relies on it)
  for (const m of c.members) expect(m.logs()).toMatch(/defragment/i);
  expect(await pushed(target, 'defrag_defragmented', 'member')).toEqual({ m1: 1, m2: 1, m3: 1 });
  expect(Object.keys(await pushed(target, 'defrag_member_duration_seconds', 'member')).sort()).toEqual([
    'm1',
    'm2',
    'm3',
  ]);
  expect(await pushed(target, 'defrag_last_run', 'outcome')).toEqual({ success: 1, skipped: 0, failed: 0 });
  expect(await pushed(target, 'source_alarm', 'alarm')).toEqual({ NOSPACE: 0, CORRUPT: 0 });
  const gauges = await gateway.metrics();
  expect(gauges).toMatch(
    new RegExp(`^etcd_backup_defrag_last_success_timestamp_seconds\\{[^}]*target="${target}"`, 'm'),
  );
});

test('a member below the threshold is left alone; the others are defragmented', async () => {
  const c = await cluster();
  await fragment(c);
  const names = await namesById(c);
  const leaderId = (await status(c, 0)).leader;
  // a follower defragmented beforehand: nearly no free page left
  const follower = [0, 1, 2].find((i) => names[leaderId] !== c.members[i].name)!;
  await c.etcdctl(['defrag'], follower);
  const alone = c.members[follower].name;
  const size = (await status(c, follower)).dbSize;

  const { run, target } = await defragment(c, defragPolicy(c, 'etcd-partial', { thresholdPercent: 45 }));
  expect(run.failed).toBeUndefined();
  expect(run.log).toMatch(
    new RegExp(`member ${alone} \\(\\d+ at \\S+\\): fragmentation [0-9.]+% \\(.*\\), not above 45%: left alone`),
  );
  const order = defragmentedInOrder(run.log);
  expect(order).toHaveLength(2);
  expect(order).not.toContain(alone);
  expect(order[1]).toBe(names[leaderId]);
  const defragmented = await pushed(target, 'defrag_defragmented', 'member');
  expect(defragmented[alone]).toBe(0);
  expect(Object.values(defragmented).sort()).toEqual([0, 1, 1]);
  expect((await pushed(target, 'defrag_db_size_after_bytes', 'member'))[alone]).toBe(size);
  expect((await status(c, follower)).dbSize).toBe(size);
  expect(run.log).toMatch(/2 of 3 members defragmented/);
});

test('one member stopped: nothing is defragmented, the run says which member and ends skipped (exit 0), pushed as such', async () => {
  const c = await cluster();
  await fragment(c);
  await c.stopMember(2);

  const { run, target } = await defragment(c, defragPolicy(c, 'etcd-down'));
  expect(run.failed).toBeUndefined();
  expect(defragmentedInOrder(run.log)).toEqual([]);
  for (const m of c.members.slice(0, 2)) expect(m.logs()).not.toMatch(/defragment/i);
  const down = c.members[2];
  expect(run.log).toContain(`warn member m3 (`);
  expect(run.log).toMatch(
    new RegExp(`member m3 \\(\\d+\\) at ${down.endpoint.replace(/\./g, '\\.')} does not answer: no status: `),
  );
  expect(run.log).toMatch(/warn defragmentation skipped, nothing defragmented: member m3 /);
  expect(await pushed(target, 'defrag_last_run', 'outcome')).toEqual({ success: 0, skipped: 1, failed: 0 });
  expect(await pushed(target, 'defrag_db_size_after_bytes', 'member')).toEqual({});
  const metrics = await gateway.metrics();
  expect(metrics).not.toMatch(
    new RegExp(`^etcd_backup_defrag_last_success_timestamp_seconds\\{[^}]*target="${target}"`, 'm'),
  );

  // the member back: the next run defragments the cluster
  await c.startMember(2);
  const again = await defragment(c, defragPolicy(c, 'etcd-down'));
  expect(again.run.failed).toBeUndefined();
  expect(defragmentedInOrder(again.run.log)).toHaveLength(3);
  expect(await pushed(target, 'defrag_last_run', 'outcome')).toEqual({ success: 1, skipped: 0, failed: 0 });
});

test('an alarm raised (NOSPACE): nothing is defragmented, the alarm is pushed as the backups push it', async () => {
  const c = await cluster(2 * 1024 * 1024);
  const value = 'x'.repeat(100_000);
  let refused = '';
  for (let i = 0; i < 60 && !refused; i++) {
    const r = await c.etcdctlRaw(['put', `/registry/big-${i}`, value]);
    if (r.code !== 0) refused = r.stderr;
  }
  expect(refused).toContain('database space exceeded');
  expect(await c.etcdctl(['alarm', 'list'])).toMatch(/alarm:NOSPACE/);
  const sizes = await Promise.all([0, 1, 2].map(async (i) => (await status(c, i)).dbSize));

  const { run, target } = await defragment(c, defragPolicy(c, 'etcd-nospace'));
  expect(run.failed).toBeUndefined();
  expect(defragmentedInOrder(run.log)).toEqual([]);
  expect(run.log).toMatch(/warn the cluster has raised the alarm\(s\) NOSPACE \(etcdctl alarm list\)/);
  expect(run.log).toMatch(/warn defragmentation skipped, nothing defragmented: .*NOSPACE/);
  // no member was defragmented: none logged one (each logs its defragmentation), none shrank
  for (const m of c.members) expect(m.logs()).not.toMatch(/defragment/i);
  const after = await Promise.all([0, 1, 2].map(async (i) => (await status(c, i)).dbSize));
  after.forEach((size, i) => expect(size).toBeGreaterThanOrEqual(sizes[i]));
  expect(await pushed(target, 'source_alarm', 'alarm')).toEqual({ NOSPACE: 1, CORRUPT: 0 });
  expect(await pushed(target, 'defrag_last_run', 'outcome')).toEqual({ success: 0, skipped: 1, failed: 0 });
});

/**
 * A bin directory with an `etcdctl` that runs the real one (of the cluster's version) for every call but
 * `defrag`, which fails the way that etcdctl reports a failed member, exit 1 (etcdctl/ctlv3/command/
 * defrag_command.go: v3.4 and v3.5 `Failed to defragment etcd member[<endpoint>] (<error>)`, v3.6
 * `Failed to defragment etcd member[<endpoint>]. took <duration>. (<error>)`).
 */
function failingDefragEtcdctl(c: EtcdClusterHandle): string {
  const bin = tempDir('etcdctl-bin');
  const took = c.tools.version === '3.6' ? '. took 5.000912301s.' : '';
  fs.writeFileSync(
    path.join(bin, 'etcdctl'),
    [
      '#!/bin/sh',
      `case " $* " in *" defrag "*) ;; *) exec '${c.tools.etcdctl}' "$@" ;; esac`,
      'for a in "$@"; do case $a in --endpoints=*) ep=${a#--endpoints=} ;; esac; done',
      `echo "Failed to defragment etcd member[$ep]${took} (context deadline exceeded)" >&2`,
      'exit 1',
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
  return bin;
}

test('a defragmentation that fails: the run stops there (no other member touched), pushes failed, and fails the Job with one error line', async () => {
  const c = await cluster();
  await fragment(c);
  const { run, target } = await defragment(c, defragPolicy(c, 'etcd-fails'), [failingDefragEtcdctl(c)]);
  expect(run.failed).toBe('report');
  expect(defragmentedInOrder(run.log)).toHaveLength(1);
  expect(errorLines(run.results.report)).toEqual([
    expect.stringMatching(
      /error defragmentation failed after \d+s: defragmenting member m\d \(\d+ at https:\/\/127\.0\.0\.1:\d+\) failed within 300s: Failed to defragment etcd member\[https:\/\/127\.0\.0\.1:\d+\](\. took \S+\.)? \(context deadline exceeded\); the members after it were not defragmented$/,
    ),
  ]);
  for (const m of c.members) expect(m.logs()).not.toMatch(/defragment/i);
  expect(await pushed(target, 'defrag_last_run', 'outcome')).toEqual({ success: 0, skipped: 0, failed: 1 });
  // the member it tried: its sizes before, nothing after
  expect(Object.keys(await pushed(target, 'defrag_db_size_before_bytes', 'member'))).toHaveLength(1);
  expect(await pushed(target, 'defrag_db_size_after_bytes', 'member')).toEqual({});
  const metrics = await gateway.metrics();
  expect(metrics).not.toMatch(
    new RegExp(`^etcd_backup_defrag_last_success_timestamp_seconds\\{[^}]*target="${target}"`, 'm'),
  );
});
