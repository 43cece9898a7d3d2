// The scratch PVC of a generic ephemeral volume, made and removed by the real controllers; and an
// upgrade applied with `kubectl apply --prune`, as docs/operations/upgrades.md tells users to.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Manifest, toYaml } from '../../lib';
import { KubeApi, KubeItem } from './support/api';
import { applyObjects } from './support/apply';
import { TestCluster, testCluster } from './support/cluster';
import { provisionScratch } from './support/control-plane';
import { FakeKubelet } from './support/fake-kubelet';
import { PolicyDoc, cronJobsOf, examplePolicy, redisPolicy, render, jobFrom } from './support/policies';
import { until } from './support/wait';

let cluster: TestCluster;
let api: KubeApi;
let kubelet: FakeKubelet;
const namespaces: string[] = [];

beforeAll(async () => {
  cluster = await testCluster();
  api = cluster.api;
  kubelet = new FakeKubelet(api, namespaces).start();
});
afterAll(async () => {
  await kubelet?.stop();
});

const claimsOf = (ns: string): Promise<KubeItem[]> => api.list(`/api/v1/namespaces/${ns}/persistentvolumeclaims`);

test('a scratch PVC is made for its pod, bound, and deleted with the pod', async () => {
  const ns = await cluster.createNamespace('scratch');
  namespaces.push(ns);
  const doc = examplePolicy('vitess-commerce-customer.yaml', ns);
  // This cluster's StorageClass is `scratch` (the example names its own cluster's `standard`).
  doc.spec.vitess = {
    ...(doc.spec.vitess as Record<string, unknown>),
    scratch: { size: '20Gi', storageClassName: 'scratch' },
  };
  const objects = render(doc);
  expect(
    await applyObjects(
      api,
      objects.filter((o) => o.kind !== 'CronJob'),
    ),
  ).toEqual([]);
  const [volume] = await provisionScratch(api, `scratch-${ns}`, 1, '25Gi');
  const cronJob = cronJobsOf(objects).find((c) => c.metadata.labels?.['app.kubernetes.io/component'] === 'backup')!;
  expect(await applyObjects(api, [jobFrom(cronJob, 'with-scratch')])).toEqual([]);

  const pod = await until(
    'the pod is bound',
    async () => (await kubelet.pods(ns)).find((p) => p.spec.nodeName),
    60_000,
  );
  const [claim] = await claimsOf(ns);
  // The ephemeral-volume controller named the claim <pod>-<volume> and made the pod its owner.
  const ephemeral = pod.spec.volumes!.find((v) => v.ephemeral)!;
  expect(claim.metadata.name).toBe(`${pod.metadata.name}-${String(ephemeral.name)}`);
  expect(claim.metadata.ownerReferences?.map((r) => [r.kind, r.name])).toEqual([['Pod', pod.metadata.name]]);
  expect(claim.spec).toMatchObject({
    storageClassName: 'scratch',
    resources: { requests: { storage: '20Gi' } },
    volumeName: volume,
  });
  expect((await api.get(`/api/v1/persistentvolumes/${volume}`)).status).toMatchObject({ phase: 'Bound' });

  await kubelet.run(ns, pod.metadata.name);
  await kubelet.succeed(ns, pod.metadata.name);
  // Deleting the Job deletes its pod (garbage collector), which deletes the claim.
  await api.delete(`/apis/batch/v1/namespaces/${ns}/jobs/with-scratch`, {
    kind: 'DeleteOptions',
    apiVersion: 'v1',
    propagationPolicy: 'Background',
  });
  await until('the claim is deleted with its pod', async () => (await claimsOf(ns)).length === 0, 60_000);
  expect((await kubelet.pods(ns)).length).toBe(0);
  // The volume is released: its reclaim policy (Retain) keeps it for the administrator.
  await until(
    'the volume is Released',
    async () => (await api.get(`/api/v1/persistentvolumes/${volume}`)).status?.phase === 'Released',
    30_000,
  );
}, 180_000);

describe('an upgrade applied with kubectl apply --prune', () => {
  const PRUNE = [
    '--prune-allowlist=core/v1/ConfigMap',
    '--prune-allowlist=batch/v1/CronJob',
    '--prune-allowlist=monitoring.coreos.com/v1/PrometheusRule',
  ];

  async function applyDir(ns: string, objects: readonly Manifest[], policy: string): Promise<string> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bcj-upgrade-'));
    try {
      fs.writeFileSync(path.join(dir, `${policy}.k8s.yaml`), toYaml(objects));
      return await cluster.kubectl([
        'apply',
        '-n',
        ns,
        '-f',
        dir,
        '--prune',
        '-l',
        `backup-cronjobs.io/policy=${policy}`,
        ...PRUNE,
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }

  test('the old ConfigMap is pruned, every CronJob names the new one, a running Job keeps the old', async () => {
    const ns = await cluster.createNamespace('upgrade');
    namespaces.push(ns);
    const before: PolicyDoc = redisPolicy(ns, ['shard01', 'shard02', 'shard03'], { backoffLimit: 1 });
    // The change: a policy that no longer pushes metrics needs fewer script files: a new scripts ConfigMap.
    const after: PolicyDoc = { ...before, spec: { ...before.spec } };
    delete after.spec.metrics;
    const v1 = render(before);
    const v2 = render(after);
    const configMap = (objects: readonly Manifest[]): string =>
      objects.find((o) => o.kind === 'ConfigMap')!.metadata.name;
    expect(configMap(v2)).not.toBe(configMap(v1));

    await applyDir(ns, v1, 'redis-backup');
    // A Job of the old version runs during the upgrade.
    expect(await applyObjects(api, [jobFrom(cronJobsOf(v1)[0], 'during-upgrade')])).toEqual([]);
    const running = await until(
      'the old Job’s pod is bound',
      async () => (await kubelet.pods(ns)).find((p) => p.spec.nodeName),
      60_000,
    );
    await kubelet.run(ns, running.metadata.name);

    const output = await applyDir(ns, v2, 'redis-backup');
    expect(output).toContain(`configmap/${configMap(v1)} pruned`);
    const configMaps = (
      await api.list(`/api/v1/namespaces/${ns}/configmaps?labelSelector=backup-cronjobs.io/policy=redis-backup`)
    ).map((c) => c.metadata.name);
    expect(configMaps).toEqual([configMap(v2)]);
    const live = await api.list<{
      metadata: { name: string };
      spec: { jobTemplate: { spec: { template: { spec: { volumes: { configMap?: { name: string } }[] } } } } };
    }>(`/apis/batch/v1/namespaces/${ns}/cronjobs`);
    expect(
      live.map((c) => [
        c.metadata.name,
        c.spec.jobTemplate.spec.template.spec.volumes.find((v) => v.configMap)?.configMap?.name,
      ]),
    ).toEqual(cronJobsOf(v2).map((c) => [c.metadata.name, configMap(v2)]));

    // The Job keeps the template it was made from: its retry after the upgrade names the pruned ConfigMap
    // (on a node, its kubelet would report FailedMount until the Job's deadline: docs/operations/upgrades.md).
    const active = await cluster.kubectl([
      '-n', ns, 'get', 'jobs', '-l', 'backup-cronjobs.io/policy=redis-backup',
      '-o', 'jsonpath={range .items[?(@.status.active)]}{.metadata.name}{"\\n"}{end}',
    ]); // prettier-ignore
    expect(active).toBe('during-upgrade\n');
    await kubelet.fail(ns, running.metadata.name);
    const retry = await until(
      'the retried pod',
      async () => (await kubelet.pods(ns)).find((p) => p.metadata.name !== running.metadata.name && p.spec.nodeName),
      60_000,
    );
    const mounts = (retry.spec.volumes ?? [])
      .map((v) => (v.configMap as { name?: string } | undefined)?.name)
      .filter(Boolean);
    expect(mounts).toEqual([configMap(v1)]);
    const found = await cluster.kubectlRaw(['-n', ns, 'get', 'configmap', configMap(v1)]);
    expect(found.stderr).toContain('NotFound');
  }, 240_000);
});
