// Retention of etcd snapshots, through the rendered `finalize` container (which
// runs lib/scripts/retention.sh) after a real verified snapshot. Every rule, the
// prune cases of reference/etcd.md §8.2 and the k3s scope case of §8.5 under our
// documented semantics: pruning runs AFTER the new snapshot is stored (steady
// state N, not N+1), the newest is never deleted, sizes have explicit units, a
// size budget never deletes the newest, only this policy's names are touched,
// and the scope (node or cluster) is explicit.
import * as fs from 'fs';
import * as path from 'path';
import { planRetention } from '../../../../../lib/retention';
import type { RetentionRules } from '../../../../../lib/retention';
import { runContainer } from '../../../../support/run-container';
import { EtcdTlsHandle, startEtcdTls, stopAll } from '../../../../support/services';
import { cronJobOf, errorLines, etcdPolicy, filesOf, removeTempDirs, runPod, stamp, tempDir } from '../fixtures';

jest.setTimeout(120000);

const GiB = 1024 ** 3;
/** The new snapshot's time in every vector: Sunday 2026-03-15 12:00:00 UTC. */
const T0 = Date.UTC(2026, 2, 15, 12, 0, 0) / 1000;
const H = 3600;
const D = 86400;

let etcd: EtcdTlsHandle;
/** A real snapshot that passed the snapshot step's checks, and the scratch files that step wrote about it. */
let verified: { snapshot: Buffer; scratch: Record<string, Buffer> };

beforeAll(async () => {
  etcd = await startEtcdTls();
  for (let i = 0; i < 20; i++) await etcd.etcdctl(['put', `/registry/k${i}`, `v${i}`]);
  const dest = tempDir('template');
  const volumeDirs: Record<string, string> = {};
  const cj = cronJobOf(etcdPolicy({ endpoint: etcd.endpoint }));
  const run = await runPod(cj, {
    volumes: { backup: dest, 'etcd-certs': etcd.pkiDir },
    volumeDirs,
    only: ['tools', 'snapshot'],
  });
  if (run.failed) throw new Error(run.log);
  const scratch: Record<string, Buffer> = {};
  for (const f of [
    'status.json',
    'verified-size',
    'verified-sha256',
    'verified-tool',
    'verified-restore',
    'verified-key-count',
    'verified-key-count-revision',
    'verified-key-count-error',
  ]) {
    scratch[f] = fs.readFileSync(path.join(volumeDirs.scratch, f));
  }
  verified = { snapshot: fs.readFileSync(path.join(dest, '.etcd-snapshot_etcd_cp-1.partial')), scratch };
});

afterAll(async () => {
  await stopAll();
  removeTempDirs();
});

/** The name of a snapshot of policy `etcd` taken at `t` on `node`. */
const snap = (t: number, node = 'cp-1', prefix = 'etcd-snapshot_etcd_') => `${prefix}${stamp(t)}_${node}.db`;

interface Vector {
  readonly retention?: Record<string, unknown>;
  readonly etcd?: Record<string, unknown>;
  readonly defaults?: Record<string, unknown>;
  /** Existing snapshots (each gets a `.json` sidecar) and their sizes (sparse files). */
  readonly existing?: readonly { name: string; size?: number }[];
  /** Other files already in the directory, left without a sidecar. */
  readonly other?: readonly string[];
  /** The node running the backup. @default 'cp-1' */
  readonly node?: string;
  /** The run's start (the new snapshot's name). @default T0 */
  readonly started?: number;
}

/** Runs the rendered `finalize` on a verified snapshot in a directory holding `existing`. */
async function finalize(v: Vector) {
  const node = v.node ?? 'cp-1';
  const started = v.started ?? T0;
  const dest = tempDir('dest');
  for (const e of v.existing ?? []) {
    const fd = fs.openSync(path.join(dest, e.name), 'w');
    fs.ftruncateSync(fd, e.size ?? 1000);
    fs.closeSync(fd);
    fs.writeFileSync(path.join(dest, `${e.name}.json`), '{}');
  }
  for (const o of v.other ?? []) fs.writeFileSync(path.join(dest, o), 'not ours');
  fs.writeFileSync(path.join(dest, `.etcd-snapshot_etcd_${node}.partial`), verified.snapshot);
  const scratch = tempDir('scratch');
  for (const [f, b] of Object.entries(verified.scratch)) fs.writeFileSync(path.join(scratch, f), b);
  fs.writeFileSync(path.join(scratch, 'started'), `${started}\n`);
  const policy = etcdPolicy({ endpoint: etcd.endpoint, ...v.etcd }, { retention: v.retention, defaults: v.defaults });
  const r = await runContainer(cronJobOf(policy), 'finalize', {
    volumes: { backup: dest },
    volumeDirs: { scratch },
    pod: { nodeName: node },
    env: { RETENTION_NOW: String(started + 5) },
  });
  const newName = snap(started, node);
  const snapshots = filesOf(dest).filter((f) => !f.endsWith('.json'));
  // every remaining snapshot keeps its sidecar; deleted ones lose it
  for (const f of snapshots.filter((f) => !(v.other ?? []).includes(f)))
    expect(fs.existsSync(path.join(dest, `${f}.json`))).toBe(true);
  expect(
    filesOf(dest)
      .filter((f) => f.endsWith('.json'))
      .map((f) => f.slice(0, -5))
      .sort(),
  ).toEqual(snapshots.filter((f) => !(v.other ?? []).includes(f)));
  return {
    r,
    dest,
    newName,
    snapshots,
    deleted: (v.existing ?? []).map((e) => e.name).filter((n) => !snapshots.includes(n)),
  };
}

const olds = (...hoursAgo: number[]) => hoursAgo.map((h) => ({ name: snap(T0 - h * H) }));

describe('keepLast (OpenShift TestRetainByNumber, pruned after the new snapshot: N kept, never N+1)', () => {
  const existing = olds(1, 2, 3, 4, 5);
  test.each([
    [6, 5],
    [5, 4],
    [3, 2],
    [1, 0],
  ])(
    'keepLast %i with 5 earlier snapshots keeps the new one and the %i newest earlier ones',
    async (keepLast, earlier) => {
      const { r, snapshots, newName } = await finalize({ retention: { keepLast }, existing });
      expect(r.code).toBe(0);
      expect(snapshots).toEqual([...existing.slice(0, earlier).map((e) => e.name), newName].sort());
      expect(snapshots).toHaveLength(keepLast);
    },
  );
});

describe('maxTotalSize (OpenShift TestRetainBySize, explicit units, never deleting the newest)', () => {
  const S = () => verified.snapshot.length;
  /** A byte-exact size in the policy's grammar (decimal kilobytes: 0.001k is one byte). */
  const bytes = (n: number) => `${(n / 1000).toFixed(3)}k`;
  test('4 x 1 GiB earlier, budget 4Gi: the new one and the 3 newest fit; the 4th goes over', async () => {
    const existing = [1, 2, 3, 4].map((h) => ({ name: snap(T0 - h * H), size: GiB }));
    const { snapshots, deleted } = await finalize({ retention: { maxTotalSize: '4Gi' }, existing });
    expect(deleted).toEqual([existing[3].name]);
    expect(snapshots).toHaveLength(4);
  });

  test('a budget that is met exactly keeps the last one that fits (equal is kept)', async () => {
    const existing = [1, 2, 3].map((h) => ({ name: snap(T0 - h * H), size: GiB }));
    const { deleted } = await finalize({ retention: { maxTotalSize: bytes(S() + 2 * GiB) }, existing });
    expect(deleted).toEqual([existing[2].name]);
  });

  test('new S, earlier 1 byte, budget S bytes: the earlier one is deleted', async () => {
    const existing = [{ name: snap(T0 - H), size: 1 }];
    const { deleted } = await finalize({ retention: { maxTotalSize: bytes(S()) }, existing });
    expect(deleted).toEqual([existing[0].name]);
  });

  test('prefix semantics: once over budget, an older small snapshot is deleted too', async () => {
    const existing = [
      { name: snap(T0 - H), size: GiB },
      { name: snap(T0 - 2 * H), size: 1 },
    ];
    const { deleted } = await finalize({ retention: { maxTotalSize: '1Gi' }, existing });
    expect(deleted).toEqual(existing.map((e) => e.name));
  });

  test('the newest alone over budget is kept (OpenShift deletes everything here)', async () => {
    const existing = [
      { name: snap(T0 - H), size: 1 },
      { name: snap(T0 - 2 * H), size: 1 },
    ];
    const { r, snapshots, newName } = await finalize({ retention: { maxTotalSize: '1k' }, existing });
    expect(r.code).toBe(0);
    expect(snapshots).toEqual([newName]);
  });

  test('G is decimal and Gi binary: 1e9 bytes fit 1Gi but not 1G next to the new snapshot', async () => {
    const existing = [{ name: snap(T0 - H), size: 1e9 }];
    expect((await finalize({ retention: { maxTotalSize: '1G' }, existing })).deleted).toEqual([existing[0].name]);
    expect((await finalize({ retention: { maxTotalSize: '1Gi' }, existing })).deleted).toEqual([]);
  });
});

test('maxAge: snapshots up to exactly that old are kept, older ones deleted', async () => {
  // now = T0 + 5 s
  const existing = [T0 - H, T0 - 2 * D, T0 + 5 - 3 * D, T0 + 4 - 3 * D].map((t) => ({ name: snap(t) }));
  const { deleted } = await finalize({ retention: { maxAge: '3d' }, existing });
  expect(deleted).toEqual([existing[3].name]);
});

describe('hourly / daily / weekly / monthly buckets: the newest of each of the last N periods that have a snapshot', () => {
  test('hourly 3: two snapshots in one hour count once; a gap does not use up a slot', async () => {
    // T0 = 12:00 (hour 12). Earlier: 11:40 and 11:10 (hour 11), 09:30 (hour 9), 08:59 (hour 8)
    const existing = [T0 - 20 * 60, T0 - 50 * 60, T0 - 150 * 60, T0 - 181 * 60].map((t) => ({ name: snap(t) }));
    const { deleted } = await finalize({ retention: { hourly: 3 }, existing });
    expect(deleted).toEqual([existing[1].name, existing[3].name]);
  });

  test('daily 3 and weekly 2 and monthly 2 together', async () => {
    const times = [
      T0 - 2 * H, // Sun 15 Mar (same day as new)
      T0 - 1 * D, // Sat 14 Mar
      T0 - 1 * D - 3 * H, // Sat 14 Mar, older
      T0 - 3 * D, // Thu 12 Mar
      T0 - 6 * D - H, // Mon 9 Mar (ISO week 11)
      T0 - 8 * D, // Sat 7 Mar (week 10)
      T0 - 20 * D, // Sun 23 Feb (week 8)
      T0 - 45 * D, // 29 Jan
    ];
    const existing = times.map((t) => ({ name: snap(t) }));
    const rules = { daily: 3, weekly: 2, monthly: 2 };
    const { snapshots, newName } = await finalize({ retention: rules, existing });
    // new: daily 03-15, weekly W11, monthly 03; 14 Mar: daily; 12 Mar: daily; 7 Mar: weekly W10; 23 Feb: monthly 02
    const kept = [newName, existing[1].name, existing[3].name, existing[5].name, existing[6].name].sort();
    expect(snapshots).toEqual(kept);
    // ... which is exactly what the TypeScript reference planner decides
    expect(snapshots).toEqual(plannedKeeps(rules, [...existing.map((e) => e.name), newName], 'UTC'));
  });

  test('buckets in the policy time zone (Europe/Berlin) follow the reference planner', async () => {
    const times = [T0 - 11 * H - 30 * 60, T0 - 12 * H - 30 * 60, T0 - 13 * H, T0 - 35 * H, T0 - 36 * H, T0 - 37 * H];
    const existing = times.map((t) => ({ name: snap(t) }));
    const rules = { daily: 2, hourly: 2 };
    const { r, snapshots, newName } = await finalize({
      retention: rules,
      existing,
      defaults: { timeZone: 'Europe/Berlin' },
      etcd: { images: { shell: 'alpine:3.20' } },
    });
    expect(r.code).toBe(0);
    expect(snapshots).toEqual(plannedKeeps(rules, [...existing.map((e) => e.name), newName], 'Europe/Berlin'));
    expect(r.stdout).toContain('time zone Europe/Berlin');
  });
});

/** What lib/retention's planner keeps of these names (time from the name). */
function plannedKeeps(rules: RetentionRules, names: string[], timeZone: string): string[] {
  const entries = names.map((name) => ({ name, size: 0, time: Date.parse(/_(\d{4}-.*?Z)_/.exec(name)![1]) / 1000 }));
  return planRetention(entries, rules, { now: T0 + 5, timeZone })
    .entries.filter((e) => e.keep)
    .map((e) => e.name)
    .sort();
}

test('only names of this policy are ever touched: other prefixes, temporary files, bad timestamps, other nodes (scope node)', async () => {
  const other = [
    'etcd-snapshot_other-policy_2026-01-01T00:00:00Z_cp-1.db',
    '.etcd-snapshot_etcd_cp-1.partial.part',
    '.etcd-snapshot_etcd_2026-01-01T00:00:00Z_cp-1.db.json.partial',
    'etcd-snapshot_etcd_2026-02-30T00:00:00Z_cp-1.db',
    'etcd-snapshot_etcd_2026-01-01T00:00:00Z_cp-1.db.bak',
    'etcd-snapshot_etcd_2026-01-01T00:00:00Z_cp-10.db',
    'snapshot.db',
  ];
  const existing = [{ name: snap(T0 - H) }, { name: snap(T0 - 2 * H, 'cp-2') }];
  const { deleted, snapshots } = await finalize({ retention: { keepLast: 1 }, existing, other });
  expect(deleted).toEqual([existing[0].name]);
  for (const o of other) expect(snapshots).toContain(o);
});

describe('scope (k3s §8.5: a-100, b-101, c-102, a-200, b-201, c-202 with retention 5)', () => {
  // c-202 is the new snapshot, taken on node c
  const existing = [
    { name: snap(T0 - 6 * H, 'a') },
    { name: snap(T0 - 5 * H, 'b') },
    { name: snap(T0 - 4 * H, 'c') },
    { name: snap(T0 - 3 * H, 'a') },
    { name: snap(T0 - 2 * H, 'b') },
  ];
  const pvc = { destination: { persistentVolumeClaim: { claimName: 'etcd-backups' } } };

  test('scope cluster counts every node: only a-100 is deleted (what k3s does on S3)', async () => {
    const { r, deleted } = await finalize({
      retention: { keepLast: 5 },
      existing,
      node: 'c',
      etcd: { ...pvc, retentionScope: 'cluster' },
    });
    expect(r.code).toBe(0);
    expect(deleted).toEqual([existing[0].name]);
    expect(r.stdout).toContain('# backups: 6, keep: 5, delete: 1');
  });

  test('scope node counts each node on its own: nothing is deleted, and keepLast 1 only prunes node c', async () => {
    expect((await finalize({ retention: { keepLast: 5 }, existing, node: 'c', etcd: pvc })).deleted).toEqual([]);
    const { deleted, r } = await finalize({ retention: { keepLast: 1 }, existing, node: 'c', etcd: pvc });
    expect(deleted).toEqual([existing[2].name]);
    expect(r.stdout).toContain('# backups: 2, keep: 1, delete: 1');
  });
});

test('dry run: the plan is printed, nothing is deleted', async () => {
  const existing = olds(1, 2, 3);
  const { r, deleted } = await finalize({ retention: { keepLast: 1, dryRun: true }, existing });
  expect(r.code).toBe(0);
  expect(deleted).toEqual([]);
  expect(r.stdout.split('\n').filter((l) => l.startsWith('delete\t'))).toHaveLength(3);
  expect(r.stderr).toContain('dry run (RETENTION_DRY_RUN=true): 3 backup(s)');
});

test('no rules: every snapshot is kept, and the destination is not even listed', async () => {
  const { r, deleted } = await finalize({ existing: olds(1, 2, 3) });
  expect(r.code).toBe(0);
  expect(deleted).toEqual([]);
  expect(r.stdout).not.toContain('# retention plan');
  expect(r.stderr).not.toMatch(/retention at /);
});

test('a snapshot named later than the new one (clock skew): the new one is stored, nothing is pruned, the run fails', async () => {
  const existing = [{ name: snap(T0 + H) }, ...olds(1, 2)];
  const { r, snapshots, newName } = await finalize({ retention: { keepLast: 1 }, existing });
  expect(r.code).not.toBe(0);
  expect(snapshots).toContain(newName);
  expect(snapshots).toHaveLength(4);
  const errors = errorLines(r);
  expect(errors).toHaveLength(1);
  expect(errors[0]).toMatch(/refusing to prune .*is not the newest listed/);
});
