// etcd retention on its own schedule (`spec.retention.schedule`): what is
// rendered (one retention-prune CronJob per node for hostPath, one for a PVC
// or S3, in the etcd-snapshot serialization group, least privilege per
// destination; the backups then prune nothing), what is refused, and the
// rendered prune container run for real against directories holding several
// nodes' snapshots and other policies' files.
import * as fs from 'fs';
import * as path from 'path';
import { renderPolicy } from '../../../../../lib';
import type { Manifest } from '../../../../../lib';
import { planRetention } from '../../../../../lib/retention';
import type { RetentionRules } from '../../../../../lib/retention';
import { expectValidManifests } from '../../../../support/k8s-validate';
import { runContainer } from '../../../../support/run-container';
import { requireCommands, runOk } from '../../../../support/services';
import {
  containerOf,
  cronJobs,
  envOf,
  errorLines,
  etcdPolicy,
  filesOf,
  podOf,
  problems,
  removeTempDirs,
  restoreJobOf,
  stamp,
  tempDir,
} from '../fixtures';
import { jobSpecOf } from '../../../../support/kube';
import type { V1EnvVar } from '@kubernetes/client-node';

jest.setTimeout(60000);

afterAll(() => removeTempDirs());

const SCHEDULE = '30 5 * * *';
const named = (objs: Manifest[], name: string): Manifest => {
  const o = objs.find((x) => x.metadata.name === name);
  if (!o) throw new Error(`no object ${name} in ${objs.map((x) => x.metadata.name).join(', ')}`);
  return o;
};
const component = (o: Manifest) => o.metadata.labels?.['app.kubernetes.io/component'];
const prunes = (objs: Manifest[]) => cronJobs(objs).filter((o) => component(o) === 'retention-prune');
const backups = (objs: Manifest[]) => cronJobs(objs).filter((o) => component(o) === 'backup');
const retentionKeys = (env: Record<string, unknown>) => Object.keys(env).filter((k) => k.startsWith('RETENTION_'));
const jobSpec = jobSpecOf;
const pvc = { persistentVolumeClaim: { claimName: 'etcd-backups' } };
const s3 = {
  s3: {
    bucket: 'etcd-backups',
    path: 'prod/etcd',
    region: 'eu-west-1',
    credentialsSecret: { name: 's3-creds' },
    serverSideEncryption: 'AES256' as const,
  },
};

describe('hostPath, perNode: one retention-prune CronJob per node', () => {
  const policy = etcdPolicy(
    {
      mode: 'perNode',
      nodes: [
        'cp-1',
        'cp-2',
        { name: 'cp-3', timeZone: 'Etc/UTC', pod: { resources: { limits: { memory: '64Mi' } } } },
      ],
      restore: { initialCluster: 'cp-1=https://10.0.0.1:2380,cp-2=https://10.0.0.2:2380,cp-3=https://10.0.0.3:2380' },
    },
    { defaults: { schedule: '0 */4 * * *', timeout: '20m' }, retention: { keepLast: 6, daily: 7, schedule: SCHEDULE } },
  );
  const objs = renderPolicy(policy);

  test('the backups as before, then <policy>-prune-<node> for every node, in node order', () => {
    expect(objs.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
      expect.stringMatching(/^ConfigMap\/etcd-scripts-[0-9a-f]{10}$/),
      'CronJob/etcd-cp-1',
      'CronJob/etcd-cp-2',
      'CronJob/etcd-cp-3',
      'CronJob/etcd-prune-cp-1',
      'CronJob/etcd-prune-cp-2',
      'CronJob/etcd-prune-cp-3',
    ]);
    for (const p of prunes(objs)) {
      expect(p.metadata.labels).toMatchObject({
        'app.kubernetes.io/component': 'retention-prune',
        'backup-cronjobs.io/policy': 'etcd',
        'backup-cronjobs.io/etcd-mode': 'perNode',
      });
      expect(p.spec).toMatchObject({ schedule: SCHEDULE, concurrencyPolicy: 'Forbid', startingDeadlineSeconds: 600 });
      // the common settings: spec.defaults.timeout is the prune's deadline too
      expect(jobSpec(p).activeDeadlineSeconds).toBe(1200);
    }
    expect(named(objs, 'etcd-prune-cp-2').metadata.labels?.['backup-cronjobs.io/node']).toBe('cp-2');
    expectValidManifests(objs);
  });

  test('pinned to its node by hostname, on the control-plane role with its tolerations, serialized with the snapshots', () => {
    const pod = podOf(named(objs, 'etcd-prune-cp-2'));
    const backupPod = podOf(named(objs, 'etcd-cp-2'));
    expect(pod.nodeSelector).toEqual({ 'kubernetes.io/hostname': 'cp-2' });
    expect(pod.affinity).toEqual(backupPod.affinity);
    expect(pod.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution).toEqual([
      {
        labelSelector: { matchLabels: { 'backup-cronjobs.io/serialization-group': 'etcd-snapshot' } },
        topologyKey: 'kubernetes.io/os',
        namespaces: ['kube-system'],
      },
    ]);
    expect(pod.tolerations).toEqual(backupPod.tolerations);
    expect(
      jobSpec(named(objs, 'etcd-prune-cp-2')).template.metadata?.labels?.['backup-cronjobs.io/serialization-group'],
    ).toBe('etcd-snapshot');
  });

  test('least privilege: only the backup directory (same hostPath), uid 0 without capabilities, no host network, no token, no certificates', () => {
    const pod = podOf(named(objs, 'etcd-prune-cp-1'));
    expect(pod.volumes).toEqual([
      { name: 'backup', hostPath: { path: '/var/lib/etcd-backup', type: 'DirectoryOrCreate' } },
      { name: 'scratch', emptyDir: {} },
      { name: 'scripts', configMap: { name: objs[0].metadata.name } },
    ]);
    expect(podOf(named(objs, 'etcd-cp-1')).volumes).toContainEqual(pod.volumes?.[0]);
    expect(pod.containers.map((c) => c.name)).toEqual(['retention-prune']);
    expect(pod.initContainers).toBeUndefined();
    const c = containerOf(named(objs, 'etcd-prune-cp-1'), 'retention-prune');
    expect(c.image).toBe('busybox:1.36.1-musl');
    expect(c.command?.slice(-1)).toEqual(['etcd-prune']);
    expect(c.command?.[2]).toMatch(/^# backup-cronjobs: main of etcd-prune\.sh; /);
    expect(c.volumeMounts).toEqual([
      { name: 'backup', mountPath: '/backup' },
      { name: 'scratch', mountPath: '/scratch' },
      { name: 'scripts', mountPath: '/scripts', readOnly: true },
    ]);
    expect(c.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
      readOnlyRootFilesystem: true,
    });
    expect(pod.securityContext).toEqual({
      runAsUser: 0,
      runAsGroup: 0,
      runAsNonRoot: false,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(pod.hostNetwork).toBeUndefined();
    // the snapshots' priority: in their serialization group a snapshot would preempt a prune of lower priority
    expect(pod.priorityClassName).toBe('system-node-critical');
    expect(JSON.stringify(pod)).not.toContain('etcd-certs');
  });

  test("env: this node's names (the node from the pod, as in the backups), the rules, scope node", () => {
    const env = envOf(named(objs, 'etcd-prune-cp-1'), 'retention-prune');
    expect(env).toMatchObject({
      ETCD_BACKUP_NODE: { fieldRef: { fieldPath: 'spec.nodeName' } },
      BACKUP_DEST_KIND: 'dir',
      BACKUP_DIR: '/backup',
      BACKUP_NAME_PREFIX: 'etcd-snapshot_etcd_',
      BACKUP_NAME_SUFFIX: '_$(ETCD_BACKUP_NODE).db',
      BACKUP_SIDECAR_SUFFIXES: '.json .control-plane-files.tar.gz',
      ETCD_BACKUP_EXTENSION: '.db',
      ETCD_BACKUP_RETENTION_SCOPE: 'node',
      RETENTION_KEEP_LAST: '6',
      RETENTION_DAILY: '7',
      RETENTION_DRY_RUN: 'false',
      RETENTION_TIME_ZONE: 'UTC',
      TMPDIR: '/scratch',
      HOME: '/scratch',
    });
    // ETCD_BACKUP_NODE comes before the suffix that refers to it
    const names = (containerOf(named(objs, 'etcd-prune-cp-1'), 'retention-prune').env ?? []).map((e) => e.name);
    expect(names.indexOf('ETCD_BACKUP_NODE')).toBeLessThan(names.indexOf('BACKUP_NAME_SUFFIX'));
  });

  test("a node's own settings apply to its prune job (time zone of the buckets, pod options)", () => {
    const p3 = named(objs, 'etcd-prune-cp-3');
    expect((p3.spec as { timeZone?: string }).timeZone).toBe('Etc/UTC');
    expect(envOf(p3, 'retention-prune').RETENTION_TIME_ZONE).toBe('Etc/UTC');
    // the node's memory limit over the shell step's default requests
    expect(containerOf(p3, 'retention-prune').resources).toEqual({
      requests: { cpu: '10m', memory: '16Mi' },
      limits: { memory: '64Mi' },
    });
  });

  test('the backups prune nothing themselves: no RETENTION_* env, the restore Jobs are unchanged', () => {
    const restoreJob = (p: typeof policy) =>
      restoreJobOf(p, ['--target', 'cp-2', '--snapshot', 'etcd-snapshot_etcd_2026-01-01T00:00:00Z_cp-1.db']);
    for (const b of backups(objs)) expect(retentionKeys(envOf(b, 'finalize'))).toEqual([]);
    const without = renderPolicy(
      etcdPolicy(policy.spec.etcd, { ...policy.spec, retention: { keepLast: 6, daily: 7 } }),
    );
    expect(prunes(without)).toEqual([]);
    expect(retentionKeys(envOf(named(without, 'etcd-cp-1'), 'finalize')).sort()).toEqual([
      'RETENTION_DAILY',
      'RETENTION_DRY_RUN',
      'RETENTION_KEEP_LAST',
      'RETENTION_TIME_ZONE',
    ]);
    expect(restoreJob(policy)).toEqual(
      restoreJob(etcdPolicy(policy.spec.etcd, { ...policy.spec, retention: { keepLast: 6, daily: 7 } })),
    );
    // apart from the RETENTION_* env of finalize and the script ConfigMap's name (the prune adds etcd-prune.sh), the backup CronJobs are the same
    const strip = (o: Manifest): unknown =>
      JSON.parse(JSON.stringify(o), (k, v: unknown) =>
        k === 'env' && Array.isArray(v)
          ? (v as V1EnvVar[]).filter((e) => !e.name.startsWith('RETENTION_'))
          : k === 'configMap' && /-scripts-[0-9a-f]{10}$/.test(String((v as { name?: string } | undefined)?.name))
            ? { name: '<scripts>' }
            : v,
      );
    expect(backups(objs).map(strip)).toEqual(backups(without).map(strip));
  });

  test('names go through joinName: long policy and node names stay within 52 characters, distinct', () => {
    const longNodes = [
      'control-plane-node-number-one.eu-west-1.compute.internal',
      'control-plane-node-number-two.eu-west-1.compute.internal',
    ];
    const long = renderPolicy(
      etcdPolicy(
        { mode: 'perNode', nodes: longNodes },
        { retention: { keepLast: 2, schedule: SCHEDULE } },
        'a-rather-long-etcd-backup-policy-name',
      ),
    );
    const names = prunes(long).map((o) => o.metadata.name);
    expect(names).toHaveLength(2);
    expect(new Set(names).size).toBe(2);
    for (const n of names) {
      expect(n.length).toBeLessThanOrEqual(52);
      expect(n).toMatch(/^a-rather-long-etcd-backup-policy-name-prune-(.*-)?[0-9a-f]{8}$/);
    }
    expectValidManifests(long);
  });
});

describe('PVC and S3: one retention-prune CronJob for the policy', () => {
  test("PVC, cluster mode: <policy>-prune on the control-plane role (not pinned), the claim, uid 0, every node's names", () => {
    const objs = renderPolicy(
      etcdPolicy({ destination: pvc, retentionScope: 'cluster' }, { retention: { maxAge: '7d', schedule: SCHEDULE } }),
    );
    expect(cronJobs(objs).map((o) => o.metadata.name)).toEqual(['etcd', 'etcd-prune']);
    const p = named(objs, 'etcd-prune');
    const pod = podOf(p);
    expect(pod.nodeSelector).toBeUndefined();
    expect(pod.affinity).toEqual(podOf(named(objs, 'etcd')).affinity);
    expect(pod.tolerations).toEqual(podOf(named(objs, 'etcd')).tolerations);
    expect(pod.volumes).toEqual([
      { name: 'backup', persistentVolumeClaim: { claimName: 'etcd-backups' } },
      { name: 'scratch', emptyDir: {} },
      { name: 'scripts', configMap: { name: objs[0].metadata.name } },
    ]);
    expect(pod.securityContext?.runAsUser).toBe(0);
    expect(pod.hostNetwork).toBeUndefined();
    const env = envOf(p, 'retention-prune');
    expect(env).toMatchObject({
      BACKUP_DEST_KIND: 'dir',
      BACKUP_DIR: '/backup',
      ETCD_BACKUP_RETENTION_SCOPE: 'cluster',
      RETENTION_MAX_AGE_SECONDS: '604800',
    });
    expect(env.BACKUP_NAME_SUFFIX).toBeUndefined();
    expect(env.ETCD_BACKUP_NODE).toBeUndefined();
    expect(p.metadata.labels?.['backup-cronjobs.io/node']).toBeUndefined();
    expect(retentionKeys(envOf(named(objs, 'etcd'), 'finalize'))).toEqual([]);
    expectValidManifests(objs);
  });

  test('PVC, perNode with scope node: still one prune job (it counts each node on its own)', () => {
    const objs = renderPolicy(
      etcdPolicy(
        {
          mode: 'perNode',
          nodes: ['cp-1', 'cp-2'],
          destination: { persistentVolumeClaim: { claimName: 'etcd-backups', subPath: 'etcd' } },
        },
        { retention: { keepLast: 3, schedule: SCHEDULE } },
      ),
    );
    expect(prunes(objs).map((o) => o.metadata.name)).toEqual(['etcd-prune']);
    const p = prunes(objs)[0];
    expect(p.metadata.labels?.['backup-cronjobs.io/etcd-mode']).toBe('perNode');
    expect(containerOf(p, 'retention-prune').volumeMounts?.[0]).toEqual({
      name: 'backup',
      mountPath: '/backup',
      subPath: 'etcd',
    });
    expect(envOf(p, 'retention-prune').ETCD_BACKUP_RETENTION_SCOPE).toBe('node');
    expectValidManifests(objs);
  });

  test("S3: the aws CLI image, non-root (restricted), the backups' nodes and network, credentials by reference, no upload options, no volume but scratch", () => {
    const objs = renderPolicy(
      etcdPolicy({ destination: s3, retentionScope: 'cluster' }, { retention: { keepLast: 10, schedule: SCHEDULE } }),
    );
    const p = named(objs, 'etcd-prune');
    const pod = podOf(p);
    const c = containerOf(p, 'retention-prune');
    expect(c.image).toBe('amazon/aws-cli:2.17.64');
    expect(pod.securityContext).toEqual({
      runAsNonRoot: true,
      runAsUser: 65534,
      runAsGroup: 65534,
      fsGroup: 65534,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(pod.volumes).toEqual([
      { name: 'scratch', emptyDir: {} },
      { name: 'scripts', configMap: { name: objs[0].metadata.name } },
    ]);
    expect(pod.hostNetwork).toBe(true);
    expect(pod.affinity?.nodeAffinity).toEqual(podOf(named(objs, 'etcd')).affinity?.nodeAffinity);
    expect(
      pod.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.[0]?.labelSelector?.matchLabels,
    ).toEqual({ 'backup-cronjobs.io/serialization-group': 'etcd-snapshot' });
    const env = envOf(p, 'retention-prune');
    expect(env).toMatchObject({
      BACKUP_DEST_KIND: 's3',
      S3_BUCKET: 'etcd-backups',
      S3_PREFIX: 'prod/etcd/',
      BACKUP_NAME_PREFIX: 'etcd-snapshot_etcd_',
      BACKUP_SIDECAR_SUFFIXES: '.json .control-plane-files.tar.gz',
      ETCD_BACKUP_RETENTION_SCOPE: 'cluster',
      RETENTION_KEEP_LAST: '10',
      AWS_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: { secretKeyRef: { name: 's3-creds', key: 'AWS_ACCESS_KEY_ID' } },
    });
    expect(env.S3_SSE).toBeUndefined();
    expect(envOf(named(objs, 'etcd'), 'finalize').S3_SSE).toBe('AES256');
    expect(retentionKeys(envOf(named(objs, 'etcd'), 'finalize'))).toEqual([]);
    // hostNetwork: false for the backups means none for the prune either
    expect(
      podOf(
        named(
          renderPolicy(
            etcdPolicy(
              { destination: s3, hostNetwork: false, endpoint: 'https://10.0.0.1:2379' },
              { retention: { keepLast: 1, schedule: SCHEDULE } },
            ),
          ),
          'etcd-prune',
        ),
      ).hostNetwork,
    ).toBeUndefined();
    expectValidManifests(objs);
  });

  test("the policy's placement and pod options reach the prune job as they reach the backups", () => {
    const objs = renderPolicy(
      etcdPolicy(
        { destination: pvc },
        {
          defaults: {
            placement: { tolerations: [{ key: 'dedicated', operator: 'Exists' }] },
            pod: { imagePullSecrets: ['regcred'], priorityClassName: 'backups' },
          },
          retention: { keepLast: 2, schedule: SCHEDULE },
        },
      ),
    );
    const pod = podOf(named(objs, 'etcd-prune'));
    expect(pod.tolerations).toContainEqual({ key: 'dedicated', operator: 'Exists' });
    expect(pod.imagePullSecrets).toEqual([{ name: 'regcred' }]);
    expect(pod.priorityClassName).toBe('backups');
    expectValidManifests(objs);
  });
});

describe('what is refused', () => {
  test('cluster mode with a hostPath destination: the prune jobs would need the node names', () => {
    const found = problems(etcdPolicy({}, { retention: { keepLast: 3, schedule: SCHEDULE } }));
    expect(found).toEqual([
      "spec.retention.schedule: a hostPath destination is pruned by one retention-prune CronJob per control-plane node (each node's directory is visible only there), and cluster mode names no nodes: use mode: perNode and list the control-plane nodes in spec.etcd.nodes, or a persistentVolumeClaim or s3 destination, or drop spec.retention.schedule (each backup then prunes its own node's snapshots)",
    ]);
    expect(
      problems(
        etcdPolicy(
          { destination: { hostPath: { path: '/srv/etcd' } } },
          { retention: { keepLast: 3, schedule: SCHEDULE } },
        ),
      )[0],
    ).toMatch(
      /^spec\.retention\.schedule: a hostPath destination is pruned by one retention-prune CronJob per control-plane node/,
    );
    expect(
      problems(etcdPolicy({ mode: 'perNode', nodes: ['cp-1'] }, { retention: { keepLast: 3, schedule: SCHEDULE } })),
    ).toEqual([]);
  });

  test('bucket rules outside UTC in the prune job need an image with zoneinfo, as in the backups', () => {
    const etcd = { mode: 'perNode' as const, nodes: ['cp-1', { name: 'cp-2', timeZone: 'Europe/Berlin' }] };
    expect(problems(etcdPolicy(etcd, { retention: { daily: 7, schedule: SCHEDULE } }))).toEqual([
      'spec.etcd.images: bucket retention rules in time zone "Europe/Berlin" need zoneinfo, which the default busybox image lacks: set images.shell to an image with tzdata (e.g. alpine) or use timeZone UTC',
    ]);
    const objs = renderPolicy(
      etcdPolicy({ ...etcd, images: { shell: 'alpine:3.20' } }, { retention: { daily: 7, schedule: SCHEDULE } }),
    );
    expect(containerOf(named(objs, 'etcd-prune-cp-2'), 'retention-prune').image).toBe('alpine:3.20');
    expect(envOf(named(objs, 'etcd-prune-cp-2'), 'retention-prune').RETENTION_TIME_ZONE).toBe('Europe/Berlin');
    expect(envOf(named(objs, 'etcd-prune-cp-1'), 'retention-prune').RETENTION_TIME_ZONE).toBe('UTC');
  });

  test('metrics with the default busybox image are refused whether or not retention has its own schedule', () => {
    expect(
      problems(
        etcdPolicy(
          { mode: 'perNode', nodes: ['cp-1'] },
          { metrics: { pushgatewayUrl: 'http://pgw:9091' }, retention: { keepLast: 1, schedule: SCHEDULE } },
        ),
      )[0],
    ).toMatch(/^spec\.etcd\.images: metrics are pushed with curl/);
  });

  test('a schedule without a rule, and a bad schedule (the shared checks)', () => {
    expect(problems(etcdPolicy({ mode: 'perNode', nodes: ['cp-1'] }, { retention: { schedule: SCHEDULE } }))).toEqual([
      'spec.retention.schedule: a retention-prune CronJob needs at least one rule (keepLast, maxAge, ...)',
    ]);
    expect(
      problems(etcdPolicy({ destination: pvc }, { retention: { keepLast: 1, schedule: '61 * * * *' } }))[0],
    ).toMatch(/^spec\.retention\.schedule: received "61 \* \* \* \*"/);
  });
});

// ---------------------------------------------------------------------------------------------
// real runs of the rendered prune container

/** Sunday 2026-03-15 12:00:00 UTC. */
const T0 = Date.UTC(2026, 2, 15, 12, 0, 0) / 1000;
const H = 3600;
const snap = (hoursAgo: number, node: string, prefix = 'etcd-snapshot_etcd_') =>
  `${prefix}${stamp(T0 - hoursAgo * H)}_${node}.db`;

/** Files of other policies and other kinds that no prune may ever touch. */
const FOREIGN = [
  snap(100, 'cp-1', 'etcd-snapshot_other_'),
  `${snap(100, 'cp-1', 'etcd-snapshot_other_')}.json`,
  '.etcd-snapshot_etcd_cp-1.partial',
  '.etcd-snapshot_etcd_cp-2.restore-check',
  'etcd-snapshot_etcd_2026-02-30T00:00:00Z_cp-1.db',
  `${snap(90, 'cp-1')}.bak`,
  'notes.txt',
];

/** A directory holding the given snapshots (each with its `.json`) and FOREIGN. */
function backupDir(snapshots: readonly string[]): string {
  const dir = tempDir('prune');
  for (const s of snapshots) {
    fs.writeFileSync(path.join(dir, s), `snapshot ${s}`);
    fs.writeFileSync(path.join(dir, `${s}.json`), '{}');
  }
  for (const f of FOREIGN) fs.writeFileSync(path.join(dir, f), 'not ours');
  return dir;
}

async function runPrune(cronJob: Manifest, dir: string, node = 'cp-1', env: Record<string, string> = {}) {
  return runContainer(cronJob, 'retention-prune', {
    volumes: { backup: dir },
    pod: { nodeName: node },
    env: { RETENTION_NOW: String(T0 + 5), ...env },
  });
}

/** The default prune image's toolset: a directory of busybox applets, to be the whole PATH. */
async function busyboxImage(): Promise<string> {
  const dir = tempDir('busybox-image');
  const busybox = requireCommands('busybox').busybox;
  for (const applet of (await runOk(busybox, ['--list'])).split('\n').filter(Boolean))
    fs.symlinkSync(busybox, path.join(dir, applet));
  return dir;
}

/** What remains of a directory prepared by backupDir: snapshots only, with their sidecars checked. */
function remaining(dir: string): string[] {
  const files = filesOf(dir);
  for (const f of FOREIGN) expect(files).toContain(f);
  const ours = files.filter((f) => !FOREIGN.includes(f));
  const snaps = ours.filter((f) => !f.endsWith('.json'));
  expect(ours.filter((f) => f.endsWith('.json'))).toEqual(snaps.map((s) => `${s}.json`));
  return snaps;
}

const cp1 = [snap(1, 'cp-1'), snap(5, 'cp-1'), snap(9, 'cp-1'), snap(13, 'cp-1'), snap(17, 'cp-1')];
const cp2 = [snap(2, 'cp-2'), snap(6, 'cp-2'), snap(10, 'cp-2')];
const cp3 = [snap(3, 'cp-3'), snap(7, 'cp-3')];

describe('hostPath: the prune job of a node, run for real', () => {
  const perNode = (retention: Record<string, unknown>) =>
    renderPolicy(
      etcdPolicy({ mode: 'perNode', nodes: ['cp-1', 'cp-2'] }, { retention: { schedule: SCHEDULE, ...retention } }),
    );

  test("keepLast 2 on cp-1: its two newest stay; cp-2's snapshots and every foreign file are untouched", async () => {
    const dir = backupDir([...cp1, ...cp2]);
    const r = await runPrune(named(perNode({ keepLast: 2 }), 'etcd-prune-cp-1'), dir, 'cp-1');
    expect(r.code).toBe(0);
    expect(remaining(dir)).toEqual([...cp1.slice(0, 2), ...cp2].sort());
    expect(r.stdout).toContain('# backups: 5, keep: 2, delete: 3');
    expect(r.stderr).toMatch(
      /retention prune of node cp-1's snapshots at .*\/etcd-snapshot_etcd_<time>_cp-1\.db starting/,
    );
    expect(r.stderr).toContain('deleted 3 backup(s)');
    expect(errorLines(r)).toEqual([]);

    // cp-2's job, run in the same directory, prunes cp-2's only
    const r2 = await runPrune(named(perNode({ keepLast: 2 }), 'etcd-prune-cp-2'), dir, 'cp-2');
    expect(r2.code).toBe(0);
    expect(remaining(dir)).toEqual([...cp1.slice(0, 2), ...cp2.slice(0, 2)].sort());
  });

  test('maxAge 8h: older snapshots of the node go, the newest is kept even when every one is older', async () => {
    const dir = backupDir([...cp1, ...cp2]);
    expect((await runPrune(named(perNode({ maxAge: '8h' }), 'etcd-prune-cp-1'), dir)).code).toBe(0);
    expect(remaining(dir)).toEqual([...cp1.slice(0, 2), ...cp2].sort());
    const old = backupDir([snap(50, 'cp-1'), snap(60, 'cp-1')]);
    expect((await runPrune(named(perNode({ maxAge: '8h' }), 'etcd-prune-cp-1'), old)).code).toBe(0);
    expect(remaining(old)).toEqual([snap(50, 'cp-1')]);
  });

  test('dry run: the plan is printed, nothing is deleted', async () => {
    const dir = backupDir([...cp1, ...cp2]);
    const before = filesOf(dir);
    const r = await runPrune(named(perNode({ keepLast: 1, dryRun: true }), 'etcd-prune-cp-1'), dir);
    expect(r.code).toBe(0);
    expect(filesOf(dir)).toEqual(before);
    expect(r.stdout.split('\n').filter((l) => l.startsWith('delete\t'))).toHaveLength(4);
    expect(r.stderr).toContain('dry run (RETENTION_DRY_RUN=true): 4 backup(s)');
  });

  test('an empty (just created) directory: nothing to do, success', async () => {
    const dir = tempDir('empty');
    const r = await runPrune(named(perNode({ keepLast: 1 }), 'etcd-prune-cp-1'), dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('# backups: 0, keep: 0, delete: 0');
  });

  test('a listing that fails: non-zero, one error line, nothing deleted', async () => {
    const dir = backupDir(cp1);
    const r = await runContainer(named(perNode({ keepLast: 1 }), 'etcd-prune-cp-1'), 'retention-prune', {
      volumes: { backup: dir },
      pod: { nodeName: 'cp-1' },
      env: { RETENTION_NOW: String(T0 + 5), BACKUP_DIR: path.join(dir, 'missing') },
    });
    expect(r.code).not.toBe(0);
    const errors = errorLines(r);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      /listing the backups at .* failed \(directory .*missing does not exist\); nothing deleted/,
    );
    expect(remaining(dir)).toEqual([...cp1].sort());
  });
});

describe("PVC: the policy's prune job, run for real (retentionScope)", () => {
  const pvcPolicy = (etcd: Record<string, unknown>, retention: Record<string, unknown>) =>
    named(
      renderPolicy(etcdPolicy({ destination: pvc, ...etcd }, { retention: { schedule: SCHEDULE, ...retention } })),
      'etcd-prune',
    );

  test("scope node: each node's snapshots counted on their own (keepLast 2 keeps two of every node)", async () => {
    const dir = backupDir([...cp1, ...cp2, ...cp3]);
    const r = await runPrune(pvcPolicy({ mode: 'perNode', nodes: ['cp-1', 'cp-2', 'cp-3'] }, { keepLast: 2 }), dir);
    expect(r.code).toBe(0);
    expect(remaining(dir)).toEqual([...cp1.slice(0, 2), ...cp2.slice(0, 2), ...cp3].sort());
    expect(r.stdout).toContain('# backups: 5, keep: 2, delete: 3');
    expect(r.stdout).toContain('# backups: 3, keep: 2, delete: 1');
    expect(r.stdout).toContain('# backups: 2, keep: 2, delete: 0');
    expect(r.stderr).toContain('pruned the snapshots of 3 node(s)');
  });

  test('scope node also prunes a node that is no longer listed (cluster mode lists none)', async () => {
    const dir = backupDir([...cp1, ...cp2]);
    expect((await runPrune(pvcPolicy({}, { keepLast: 1 }), dir)).code).toBe(0);
    expect(remaining(dir)).toEqual([cp1[0], cp2[0]].sort());
  });

  test("scope cluster: every node's snapshots counted together (keepLast 4: the four newest of all)", async () => {
    const dir = backupDir([...cp1, ...cp2, ...cp3]);
    const r = await runPrune(pvcPolicy({ retentionScope: 'cluster' }, { keepLast: 4 }), dir);
    expect(r.code).toBe(0);
    expect(remaining(dir)).toEqual([snap(1, 'cp-1'), snap(2, 'cp-2'), snap(3, 'cp-3'), snap(5, 'cp-1')].sort());
    expect(r.stdout).toContain('# backups: 10, keep: 4, delete: 6');
    expect(r.stderr).toMatch(/retention at every node's snapshots at .*: deleted 6 backup\(s\)/);
  });

  test('bucket rules: what the TypeScript reference planner keeps, per node', async () => {
    const times = [1, 20, 26, 30, 50, 75, 80];
    const names = (node: string) => times.map((h) => snap(h, node));
    const dir = backupDir([...names('cp-1'), ...names('cp-2').slice(2)]);
    const rules: RetentionRules = { daily: 2, hourly: 1 };
    expect((await runPrune(pvcPolicy({}, { ...rules }), dir)).code).toBe(0);
    expect(remaining(dir)).toEqual(
      [...plannedKeeps(rules, names('cp-1')), ...plannedKeeps(rules, names('cp-2').slice(2))].sort(),
    );
  });

  test("with only the default busybox image's applets on PATH, both scopes prune the same", async () => {
    const PATH = await busyboxImage();
    const node = backupDir([...cp1, ...cp2, ...cp3]);
    const r1 = await runPrune(pvcPolicy({}, { keepLast: 2 }), node, 'cp-1', { PATH });
    expect(r1.code).toBe(0);
    expect(remaining(node)).toEqual([...cp1.slice(0, 2), ...cp2.slice(0, 2), ...cp3].sort());
    const cluster = backupDir([...cp1, ...cp2, ...cp3]);
    const r2 = await runPrune(pvcPolicy({ retentionScope: 'cluster' }, { keepLast: 4 }), cluster, 'cp-1', { PATH });
    expect(r2.code).toBe(0);
    expect(remaining(cluster)).toEqual([snap(1, 'cp-1'), snap(2, 'cp-2'), snap(3, 'cp-3'), snap(5, 'cp-1')].sort());
  });

  test('encrypted snapshots (<name>.age) are found for every node, in both scopes, and go with their sidecars (.json, the files archive)', async () => {
    const cases: [string, string[]][] = [
      ['node', [...cp1.slice(0, 2), ...cp2.slice(0, 2)]],
      ['cluster', [snap(1, 'cp-1'), snap(2, 'cp-2')]],
    ];
    const stored = (s: string) => [`${s}.age`, `${s}.control-plane-files.tar.gz.age`, `${s}.json`];
    for (const [scope, kept] of cases) {
      const dir = tempDir('prune-encrypted');
      for (const f of [...cp1, ...cp2].flatMap(stored)) fs.writeFileSync(path.join(dir, f), 'encrypted');
      const r = await runPrune(pvcPolicy({ retentionScope: scope }, { keepLast: 2 }), dir);
      expect(r.code).toBe(0);
      expect(filesOf(dir)).toEqual(kept.flatMap(stored).sort());
    }
  });

  test('dry run, both scopes: nothing is deleted', async () => {
    for (const scope of ['node', 'cluster']) {
      const dir = backupDir([...cp1, ...cp2, ...cp3]);
      const before = filesOf(dir);
      const r = await runPrune(pvcPolicy({ retentionScope: scope }, { keepLast: 1, dryRun: true }), dir);
      expect(r.code).toBe(0);
      expect(filesOf(dir)).toEqual(before);
      expect(r.stderr).toContain('dry run (RETENTION_DRY_RUN=true)');
    }
  });
});

describe('PVC with fsGroup: the prune pod runs non-root (issue 20.9)', () => {
  const FS_GROUP = 4242;
  const objs = renderPolicy(
    etcdPolicy(
      { destination: { persistentVolumeClaim: { claimName: 'etcd-backups', fsGroup: FS_GROUP } } },
      { retention: { keepLast: 2, schedule: SCHEDULE } },
    ),
  );

  test('rendered: the prune pod as uid 65534 in the fsGroup (restricted), the backups as uid 0 with the same fsGroup', () => {
    expect(podOf(named(objs, 'etcd-prune')).securityContext).toEqual({
      runAsNonRoot: true,
      runAsUser: 65534,
      runAsGroup: 65534,
      fsGroup: FS_GROUP,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(podOf(named(objs, 'etcd')).securityContext).toMatchObject({ runAsUser: 0, fsGroup: FS_GROUP });
    expect(
      podOf(
        named(
          renderPolicy(etcdPolicy({ destination: pvc }, { retention: { keepLast: 2, schedule: SCHEDULE } })),
          'etcd-prune',
        ),
      ).securityContext?.runAsUser,
    ).toBe(0);
    expectValidManifests(objs);
  });

  /** A directory as the backups leave it: root's, 0700, snapshots and metadata 0600. */
  function rootOwnedDir(): string {
    const dir = backupDir(cp1);
    fs.chmodSync(dir, 0o700);
    for (const f of filesOf(dir)) fs.chmodSync(path.join(dir, f), 0o600);
    return dir;
  }
  const enforced = (dir: string, fsGroupVolumes: string[]) =>
    runContainer(named(objs, 'etcd-prune'), 'retention-prune', {
      volumes: { backup: dir },
      env: { RETENTION_NOW: String(T0 + 5) },
      enforceSecurityContext: true,
      fsGroupVolumes,
    });

  test('on a volume that applies fsGroup (as the kubelet does), uid 65534 prunes the root-owned snapshots', async () => {
    const dir = rootOwnedDir();
    const r = await enforced(dir, ['backup']);
    expect(r.code).toBe(0);
    expect(errorLines(r)).toEqual([]);
    expect(remaining(dir)).toEqual(cp1.slice(0, 2).sort());
    expect(fs.statSync(dir).gid).toBe(FS_GROUP);
  });

  test('on a volume that ignores fsGroup (NFS), the non-root prune fails with one error line and deletes nothing: leave fsGroup unset there', async () => {
    const dir = rootOwnedDir();
    const r = await enforced(dir, []);
    expect(r.code).not.toBe(0);
    expect(errorLines(r)).toEqual([
      expect.stringMatching(/listing the snapshots at .* failed \(directory .* is not readable\); nothing deleted/),
    ]);
    expect(remaining(dir)).toEqual([...cp1].sort());
  });
});

/** What lib/retention's planner keeps of these names (time from the name). */
function plannedKeeps(rules: RetentionRules, names: string[]): string[] {
  const entries = names.map((name) => ({ name, size: 0, time: Date.parse(/_(\d{4}-.*?Z)_/.exec(name)![1]) / 1000 }));
  return planRetention(entries, rules, { now: T0 + 5, timeZone: 'UTC' })
    .entries.filter((e) => e.keep)
    .map((e) => e.name)
    .sort();
}
