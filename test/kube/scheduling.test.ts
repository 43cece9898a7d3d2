// The real kube-scheduler places the package's pods as the docs promise: pinning to control-plane and
// database nodes, and serialization by pod anti-affinity (a group's pods run one at a time per node,
// or in the cluster), with finished pods never blocking the next run. Placement runs Jobs made from
// the CronJobs' templates (as `kubectl create job --from=cronjob/…` does); the serialization tests let
// the real CronJob controller start four shards at the same minute.
import * as fs from 'fs';
import { Manifest } from '../../lib';
import { KubeApi } from './support/api';
import { applyObjects } from './support/apply';
import { testCluster } from './support/cluster';
import { createNode, provisionScratch } from './support/control-plane';
import { FakeKubelet, PodHistory, PodView } from './support/fake-kubelet';
import { CONTROL_PLANE_LABEL, DATABASE_LABEL } from './support/nodes';
import { PolicyDoc, cronJobsOf, examplePolicy, render, jobFrom } from './support/policies';
import { sleep, until } from './support/wait';

const MINUTE = 60_000;
const GROUP_LABEL = 'backup-cronjobs.io/serialization-group';

let api: KubeApi;
let kubelet: FakeKubelet;
const namespaces: string[] = [];

beforeAll(async () => {
  api = (await testCluster()).api;
  kubelet = new FakeKubelet(api, namespaces).start();
});
afterAll(async () => {
  await kubelet?.stop();
});

async function namespace(prefix: string): Promise<string> {
  const ns = await (await testCluster()).createNamespace(prefix);
  namespaces.push(ns);
  return ns;
}

async function boundPod(ns: string, job: string, timeoutMs = 60_000): Promise<PodView> {
  return until(
    `the pod of Job ${ns}/${job} is bound`,
    async () => (await kubelet.pods(ns, `batch.kubernetes.io/job-name=${job}`)).find((p) => p.spec.nodeName),
    timeoutMs,
  );
}

async function nodeLabels(name: string): Promise<Record<string, string>> {
  return (await api.get(`/api/v1/nodes/${name}`)).metadata.labels ?? {};
}

/** The Vitess example with one keyspace of these shards in one schedule, placement and scratch replaced. */
function vitessShards(
  ns: string,
  shards: readonly string[],
  schedule: string,
  placement: Record<string, unknown>,
): PolicyDoc {
  const doc = examplePolicy('vitess-commerce-customer.yaml', ns);
  const vitess = { ...(doc.spec.vitess as Record<string, unknown>) };
  delete vitess.scratch; // the scratch PVC has its own test
  vitess.schedules = [{ name: 'nightly', schedule, strategies: [{ keyspace: 'customer', shards }] }];
  return { ...doc, spec: { ...doc.spec, defaults: { ...doc.spec.defaults, placement }, vitess } };
}

/** A pool of fresh nodes labelled `pool=<name>`, untainted. */
async function pool(name: string, size: number): Promise<string[]> {
  const nodes = Array.from({ length: size }, (_, i) => `${name}-${i + 1}`);
  for (const n of nodes) await createNode(api, { name: n, labels: { 'backup-cronjobs.io/test-pool': name } });
  return nodes;
}

/** The next whole minute at least 30 s away, as a daily UTC schedule, and its instant. */
function dueMinute(): { schedule: string; at: number } {
  const at = Math.ceil((Date.now() + 30_000) / MINUTE) * MINUTE;
  const d = new Date(at);
  return { schedule: `${d.getUTCMinutes()} ${d.getUTCHours()} * * *`, at };
}

/**
 * Serves a group's pods as a kubelet would with runs of `runMs`: starts every pod the scheduler binds,
 * ends it after `runMs`; returns when `count` pods have ended. Records the most pods of the group
 * running at once, per node and in all.
 */
async function serve(
  ns: string,
  count: number,
  runMs: number,
): Promise<{ history: PodHistory[]; maxPerNode: number; maxInAll: number }> {
  const running = new Map<string, { node: string; since: number }>();
  const done = new Set<string>();
  let maxPerNode = 0;
  let maxInAll = 0;
  const deadline = Date.now() + 8 * MINUTE;
  while (done.size < count) {
    if (Date.now() > deadline) throw new Error(`serve ${ns}: ${done.size} of ${count} pods ended in 8 minutes`);
    for (const p of await kubelet.pods(ns)) {
      const name = p.metadata.name;
      if (!p.spec.nodeName || done.has(name)) continue;
      if (p.status.phase === 'Pending' && !running.has(name)) {
        await kubelet.run(ns, name);
        running.set(name, { node: p.spec.nodeName, since: Date.now() });
      }
    }
    const perNode = new Map<string, number>();
    for (const r of running.values()) perNode.set(r.node, (perNode.get(r.node) ?? 0) + 1);
    maxPerNode = Math.max(maxPerNode, ...perNode.values());
    maxInAll = Math.max(maxInAll, running.size);
    for (const [name, r] of [...running]) {
      if (Date.now() - r.since < runMs) continue;
      await kubelet.succeed(ns, name);
      running.delete(name);
      done.add(name);
    }
    await sleep(200);
  }
  const history = [...kubelet.history.values()]
    .filter((h) => h.namespace === ns)
    .sort((a, b) => (a.running ?? 0) - (b.running ?? 0));
  return { history, maxPerNode, maxInAll };
}

function report(name: string, value: unknown): void {
  const file = process.env.BACKUP_CRONJOBS_KUBE_REPORT;
  if (file) fs.appendFileSync(file, JSON.stringify({ name, value }) + '\n');
}

describe('pinning', () => {
  test('every per-node etcd pod lands on its own node; cluster-mode etcd pods on a control-plane node', async () => {
    const ns = await namespace('pin-etcd');
    const perNode = render(examplePolicy('etcd-kubeadm-per-node.yaml', ns));
    const cluster = render(examplePolicy('etcd-cluster-s3.yaml', ns));
    expect(await applyObjects(api, [...perNode, ...cluster])).toEqual([]);
    const snapshots = cronJobsOf(perNode).filter(
      (c) => c.metadata.labels?.['app.kubernetes.io/component'] === 'backup',
    );
    expect(snapshots.map((c) => c.metadata.name)).toEqual(['etcd-cp-1', 'etcd-cp-2', 'etcd-cp-3']);
    // One at a time: the snapshots share a cluster-wide serialization group.
    for (const cj of snapshots) {
      const job = `${cj.metadata.name}-manual`;
      expect(await applyObjects(api, [jobFrom(cj, job)])).toEqual([]);
      const pod = await boundPod(ns, job);
      expect({ job, node: pod.spec.nodeName }).toEqual({ job, node: cj.metadata.name.replace(/^etcd-/, '') });
      await kubelet.run(ns, pod.metadata.name);
      await kubelet.succeed(ns, pod.metadata.name);
    }
    const clusterBackup = cronJobsOf(cluster).find(
      (c) => c.metadata.labels?.['app.kubernetes.io/component'] === 'backup',
    )!;
    const jobs = [1, 2, 3].map((i) => `${clusterBackup.metadata.name}-manual-${i}`);
    for (const job of jobs) {
      expect(await applyObjects(api, [jobFrom(clusterBackup, job)])).toEqual([]);
      const pod = await boundPod(ns, job);
      expect(await nodeLabels(pod.spec.nodeName!)).toHaveProperty([CONTROL_PLANE_LABEL]);
      await kubelet.run(ns, pod.metadata.name);
      await kubelet.succeed(ns, pod.metadata.name);
    }
  }, 300_000);

  test('Vitess and Redis pods land only on nodes that match their selector and affinity', async () => {
    const ns = await namespace('pin-db');
    const vitess = render(examplePolicy('vitess-commerce-customer.yaml', ns)).filter(
      (o) => o.kind !== 'CronJob' || o.metadata.labels?.['app.kubernetes.io/component'] === 'backup',
    );
    // The example's scratch claim names the StorageClass `standard`; this cluster's is `scratch`.
    const vitessJobs = cronJobsOf(vitess).map((cj) => {
      const job = jobFrom(cj, `${cj.metadata.name}-manual`) as unknown as {
        spec: { template: { spec: { volumes?: Record<string, unknown>[] } } };
      };
      for (const v of job.spec.template.spec.volumes ?? []) {
        const claim = (v.ephemeral as { volumeClaimTemplate?: { spec: Record<string, unknown> } } | undefined)
          ?.volumeClaimTemplate;
        if (claim) delete claim.spec.storageClassName;
      }
      return job as unknown as Manifest;
    });
    const redisDoc = examplePolicy('redis-sharded.yaml', ns);
    const [poolNode] = await pool(`redis-${ns}`, 1);
    redisDoc.spec.defaults = {
      ...redisDoc.spec.defaults,
      placement: { nodeAffinity: [{ key: 'backup-cronjobs.io/test-pool', operator: 'In', values: [`redis-${ns}`] }] },
    };
    const redis = render(redisDoc);
    expect(await applyObjects(api, [...vitess.filter((o) => o.kind !== 'CronJob'), ...redis])).toEqual([]);
    const redisJobs = cronJobsOf(redis).map((cj) => jobFrom(cj, `${cj.metadata.name}-manual`));
    expect(await applyObjects(api, redisJobs)).toEqual([]);
    for (const job of redisJobs) expect((await boundPod(ns, job.metadata.name)).spec.nodeName).toBe(poolNode);
    // Vitess: the database nodes (label and toleration). Its scratch claims bind to volumes made here.
    await provisionScratch(api, `pin-${ns}`, 2, '20Gi');
    expect(await applyObjects(api, vitessJobs.slice(0, 2))).toEqual([]);
    for (const job of vitessJobs.slice(0, 2)) {
      const pod = await boundPod(ns, job.metadata.name);
      expect(await nodeLabels(pod.spec.nodeName!)).toMatchObject({ [DATABASE_LABEL]: 'true' });
    }
  }, 300_000);
});

describe('serialization', () => {
  const shards = ['-40', '40-80', '80-c0', 'c0-'];

  test('four shards of a per-node group due the same minute on one node run one at a time, and all finish', async () => {
    const ns = await namespace('ser-node');
    const [node] = await pool(`one-${ns}`, 1);
    const { schedule, at } = dueMinute();
    const placement = {
      nodeSelector: { 'backup-cronjobs.io/test-pool': `one-${ns}` },
      serializationGroup: { name: 'vt', scope: 'node' },
    };
    const objects = render(vitessShards(ns, shards, schedule, placement));
    expect(await applyObjects(api, objects)).toEqual([]);
    await until(
      'four Jobs of the same minute',
      async () => (await api.list(`/apis/batch/v1/namespaces/${ns}/jobs`)).length === 4,
      at - Date.now() + MINUTE,
      1000,
    );
    // While the first runs, the other three wait in Pending, unschedulable by the anti-affinity.
    const first = await until(
      'one pod bound',
      async () => {
        const bound = (await kubelet.pods(ns)).filter((p) => p.spec.nodeName);
        return bound.length > 0 ? bound : undefined; // [] is a value: until would return it at once
      },
      30_000,
    );
    const served = serve(ns, 4, 3000);
    await sleep(1500);
    const pending = (await kubelet.pods(ns)).filter((p) => !p.spec.nodeName);
    const { history, maxPerNode } = await served;
    expect(first).toHaveLength(1);
    expect(pending).toHaveLength(3);
    expect(maxPerNode).toBe(1);
    expect(history.map((h) => h.node)).toEqual([node, node, node, node]);
    for (let i = 1; i < history.length; i++) expect(history[i].running!).toBeGreaterThanOrEqual(history[i - 1].ended!);
    report(
      'serialization, one node',
      history.map((h) => ({ pod: h.name, created: h.created - at, running: h.running! - at, ended: h.ended! - at })),
    );
  }, 600_000);

  test('on two nodes the same group runs two at a time; scope cluster allows one in the whole cluster', async () => {
    const nsNode = await namespace('ser-two');
    const nsCluster = await namespace('ser-cluster');
    await pool(`two-${nsNode}`, 2);
    await pool(`two-${nsCluster}`, 2);
    const { schedule, at } = dueMinute();
    const placement = (ns: string, scope: string): Record<string, unknown> => ({
      nodeSelector: { 'backup-cronjobs.io/test-pool': `two-${ns}` },
      serializationGroup: { name: 'vt', scope },
    });
    expect(
      await applyObjects(api, [
        ...render(vitessShards(nsNode, shards, schedule, placement(nsNode, 'node'))),
        ...render(vitessShards(nsCluster, shards, schedule, placement(nsCluster, 'cluster'))),
      ]),
    ).toEqual([]);
    await sleep(Math.max(0, at - Date.now()));
    const [perNode, perCluster] = await Promise.all([serve(nsNode, 4, 3000), serve(nsCluster, 4, 3000)]);
    expect(perNode.maxPerNode).toBe(1);
    expect(perNode.maxInAll).toBe(2);
    expect(new Set(perNode.history.map((h) => h.node)).size).toBe(2);
    expect(perCluster.maxInAll).toBe(1);
    report('serialization, two nodes', {
      perNode: perNode.history.map((h) => [h.node, h.running! - at, h.ended! - at]),
      perCluster: perCluster.history.map((h) => [h.node, h.running! - at, h.ended! - at]),
    });
  }, 600_000);

  test('finished pods kept by the history limits never block the next run; a running one does', async () => {
    const ns = await namespace('ser-done');
    const [node] = await pool(`done-${ns}`, 1);
    const placement = {
      nodeSelector: { 'backup-cronjobs.io/test-pool': `done-${ns}` },
      serializationGroup: { name: 'vt', scope: 'node' },
    };
    const objects = render(vitessShards(ns, ['-80', '80-'], '0 2 * * *', placement));
    expect(await applyObjects(api, objects)).toEqual([]);
    const [a, b] = cronJobsOf(objects);
    // One run succeeds and one fails; their pods stay (the Jobs are kept as the history limits keep them).
    for (const [job, outcome] of [
      ['a-ok', 'succeed'],
      ['a-failed', 'fail'],
    ] as const) {
      expect(await applyObjects(api, [jobFrom(a, job)])).toEqual([]);
      const pod = await boundPod(ns, job);
      await kubelet.run(ns, pod.metadata.name);
      if (outcome === 'succeed') await kubelet.succeed(ns, pod.metadata.name);
      else await kubelet.fail(ns, pod.metadata.name);
    }
    const kept = (await kubelet.pods(ns)).map((p) => [
      p.metadata.labels?.[GROUP_LABEL],
      p.spec.nodeName,
      p.status.phase,
    ]);
    expect(kept).toEqual(
      expect.arrayContaining([
        ['vt', node, 'Succeeded'],
        ['vt', node, 'Failed'],
      ]),
    );
    expect(await applyObjects(api, [jobFrom(b, 'b-next')])).toEqual([]);
    const next = await boundPod(ns, 'b-next', 30_000);
    expect(next.spec.nodeName).toBe(node);
    // A running pod of the group does block: the next one waits until it ends.
    await kubelet.run(ns, next.metadata.name);
    expect(await applyObjects(api, [jobFrom(a, 'a-after')])).toEqual([]);
    await sleep(5000);
    expect(
      (await kubelet.pods(ns, 'batch.kubernetes.io/job-name=a-after')).map((p) => p.spec.nodeName ?? 'pending'),
    ).toEqual(['pending']);
    await kubelet.succeed(ns, next.metadata.name);
    expect((await boundPod(ns, 'a-after', 30_000)).spec.nodeName).toBe(node);
  }, 300_000);

  test('an etcd defragmentation never runs beside a snapshot of its group', async () => {
    const ns = await namespace('ser-defrag');
    const doc = examplePolicy('etcd-kubeadm-per-node.yaml', ns);
    doc.spec.etcd = { ...(doc.spec.etcd as Record<string, unknown>), defragmentation: { schedule: '30 3 * * 0' } };
    const objects = render(doc);
    expect(await applyObjects(api, objects)).toEqual([]);
    const defrag = cronJobsOf(objects).find((c) => c.metadata.name === 'etcd-defrag')!;
    const snapshot = cronJobsOf(objects).find((c) => c.metadata.name === 'etcd-cp-2')!;
    // A snapshot runs on cp-2: the defragmentation (on any control-plane node) waits for it.
    expect(await applyObjects(api, [jobFrom(snapshot, 'snap-1')])).toEqual([]);
    const snap = await boundPod(ns, 'snap-1');
    await kubelet.run(ns, snap.metadata.name);
    expect(await applyObjects(api, [jobFrom(defrag, 'defrag-1')])).toEqual([]);
    await sleep(5000);
    expect(
      (await kubelet.pods(ns, 'batch.kubernetes.io/job-name=defrag-1')).map((p) => p.spec.nodeName ?? 'pending'),
    ).toEqual(['pending']);
    await kubelet.succeed(ns, snap.metadata.name);
    const d = await boundPod(ns, 'defrag-1', 30_000);
    await kubelet.run(ns, d.metadata.name);
    // And the other way round: snapshots of every node wait while it runs.
    expect(
      await applyObjects(api, [
        jobFrom(
          cronJobsOf(objects).find((c) => c.metadata.name === 'etcd-cp-1')!,
          'snap-2',
        ),
      ]),
    ).toEqual([]);
    await sleep(5000);
    expect(
      (await kubelet.pods(ns, 'batch.kubernetes.io/job-name=snap-2')).map((p) => p.spec.nodeName ?? 'pending'),
    ).toEqual(['pending']);
    // The running defragmentation was not preempted for it (same priority as the snapshots).
    expect((await kubelet.pods(ns, 'batch.kubernetes.io/job-name=defrag-1')).map((p) => p.status.phase)).toEqual([
      'Running',
    ]);
    await kubelet.succeed(ns, d.metadata.name);
    expect((await boundPod(ns, 'snap-2', 30_000)).spec.nodeName).toBe('cp-1');
  }, 300_000);
});
