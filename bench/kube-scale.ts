// npm run bench:kube: serialization at scale on the real controllers and scheduler (not a test).
// One Vitess policy of SHARDS shards, staggered over WINDOW minutes, on NODES fake database nodes,
// in one per-node serialization group. The fake kubelet ends each pod RUN_SECONDS after it starts.
// Reports, per run: the time from each Job's scheduled time to its pod's start and end, the most pods
// of the group running at once on one node (must be 1), the share of runs that ended inside the
// window, the CronJob controller's lag (scheduled time to Job) and the scheduler's (pod to binding).
//
//   SHARDS=1000 NODES=50 WINDOW=60 RUN_SECONDS=60 npm run bench:kube      (the defaults)
import { startControlPlane, createNode } from '../test/kube/support/control-plane';
import { KubeApi, KubeItem } from '../test/kube/support/api';
import { applyObjects, ensureNamespace } from '../test/kube/support/apply';
import { FakeKubelet } from '../test/kube/support/fake-kubelet';
import { examplePolicy, render } from '../test/kube/support/policies';
import { sleep } from '../test/kube/support/wait';
import { stopAll } from '../test/support/services/processes';

const SHARDS = Number(process.env.SHARDS ?? 1000);
const NODES = Number(process.env.NODES ?? 50);
const WINDOW_MIN = Number(process.env.WINDOW ?? 60);
const RUN_MS = Number(process.env.RUN_SECONDS ?? 60) * 1000;
const MINUTE = 60_000;
const NS = 'bench';

/** Vitess shard names: SHARDS equal key ranges of a 4-hex-digit keyspace id. */
function shardNames(n: number): string[] {
  const bound = (i: number): string =>
    i === 0 || i === n
      ? ''
      : Math.floor((i * 0x10000) / n)
          .toString(16)
          .padStart(4, '0');
  return Array.from({ length: n }, (_, i) => `${bound(i)}-${bound(i + 1)}`);
}

const quantile = (xs: number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))] : NaN;
};
const seconds = (ms: number): string => (ms / 1000).toFixed(1);
const summary = (xs: number[]): string =>
  `median ${seconds(quantile(xs, 0.5))} s, p95 ${seconds(quantile(xs, 0.95))} s, max ${seconds(Math.max(...xs))} s`;

async function main(): Promise<void> {
  const cp = await startControlPlane();
  const api = new KubeApi({ server: cp.server, ca: cp.ca, cert: cp.adminCert, key: cp.adminKey });
  try {
    for (let i = 1; i <= NODES; i++)
      await createNode(api, { name: `bench-db-${i}`, labels: { 'backup-cronjobs.io/bench': 'true' } });
    await ensureNamespace(api, NS);
    const start = Math.ceil((Date.now() + 3 * MINUTE) / MINUTE) * MINUTE;
    const at = new Date(start);
    const doc = examplePolicy('vitess-commerce-customer.yaml', NS);
    const vitess = { ...(doc.spec.vitess as Record<string, unknown>) };
    delete vitess.scratch;
    vitess.schedules = [
      {
        name: 'nightly',
        schedule: `${at.getUTCMinutes()} ${at.getUTCHours()} * * *`,
        stagger: { window: `${WINDOW_MIN}m` },
        strategies: [{ keyspace: 'customer', shards: shardNames(SHARDS) }],
      },
    ];
    doc.spec.vitess = vitess;
    doc.spec.defaults = {
      ...doc.spec.defaults,
      timeZone: 'Etc/UTC',
      placement: {
        nodeSelector: { 'backup-cronjobs.io/bench': 'true' },
        serializationGroup: { name: 'bench', scope: 'node' },
      },
      pod: { resources: { requests: { cpu: '10m', memory: '16Mi' } } },
    };
    doc.spec.retention = undefined;
    const objects = render(doc);
    const applied = Date.now();
    const cronJobs = objects.filter((o) => o.kind === 'CronJob').length;
    if (cronJobs !== SHARDS) throw new Error(`the policy renders ${cronJobs} CronJobs, not ${SHARDS}`);
    const refused = await applyObjects(api, objects);
    if (refused.length) throw new Error(`refused: ${JSON.stringify(refused.slice(0, 3))}`);
    process.stderr.write(
      `${objects.length} objects applied in ${Date.now() - applied} ms; first run at ${at.toISOString()}\n`,
    );

    const kubelet = new FakeKubelet(api, [NS], { autoRunMs: RUN_MS, pollMs: 500, activeOnly: true }).start();
    const windowEnd = start + WINDOW_MIN * MINUTE;
    let maxPerNode = 0;
    let maxRunning = 0;
    const deadline = windowEnd + 30 * MINUTE;
    for (;;) {
      const running = [...kubelet.history.values()].filter((h) => h.running !== undefined && h.ended === undefined);
      const perNode = new Map<string, number>();
      for (const h of running) perNode.set(h.node!, (perNode.get(h.node!) ?? 0) + 1);
      maxPerNode = Math.max(maxPerNode, ...perNode.values(), 0);
      maxRunning = Math.max(maxRunning, running.length);
      const ended = [...kubelet.history.values()].filter((h) => h.ended !== undefined).length;
      if (ended >= SHARDS || Date.now() > deadline) break;
      await sleep(1000);
    }
    await kubelet.stop();

    const jobs = await api.list<KubeItem>(`/apis/batch/v1/namespaces/${NS}/jobs`);
    const scheduledOf = new Map(
      jobs.map((j) => [
        j.metadata.name,
        Date.parse(j.metadata.annotations?.['batch.kubernetes.io/cronjob-scheduled-timestamp'] ?? ''),
      ]),
    );
    const controllerLag = jobs.map(
      (j) => Date.parse(j.metadata.creationTimestamp!) - scheduledOf.get(j.metadata.name)!,
    );
    const runs = [...kubelet.history.values()].map((h) => {
      const job = h.labels['batch.kubernetes.io/job-name'];
      const scheduled = scheduledOf.get(job) ?? NaN;
      return { scheduled, created: h.created, bound: h.boundSeen, running: h.running, ended: h.ended };
    });
    const endedRuns = runs.filter((r) => r.ended !== undefined);
    console.log(
      [
        `shards ${SHARDS}, nodes ${NODES}, window ${WINDOW_MIN} min, run ${RUN_MS / 1000} s, Kubernetes ${cp.version}`,
        `runs ended: ${endedRuns.length} of ${SHARDS}; inside the window: ${((100 * endedRuns.filter((r) => r.ended! <= windowEnd).length) / SHARDS).toFixed(1)} %`,
        `most pods of the group running at once on one node: ${maxPerNode}; in all: ${maxRunning}`,
        `CronJob controller lag (scheduled → Job): ${summary(controllerLag)}`,
        `scheduler lag (pod → bound, seen by the kubelet's poll): ${summary(runs.filter((r) => r.bound).map((r) => r.bound! - r.created))}`,
        `scheduled → pod start: ${summary(endedRuns.map((r) => r.running! - r.scheduled))}`,
        `scheduled → pod end: ${summary(endedRuns.map((r) => r.ended! - r.scheduled))}`,
        `last run ended ${seconds(Math.max(...endedRuns.map((r) => r.ended!)) - windowEnd)} s after the window`,
      ].join('\n'),
    );
  } finally {
    api.close();
    await cp.stop();
    await stopAll();
  }
}

main().catch((e: Error) => {
  process.stderr.write(`${e.stack ?? e.message}\n`);
  process.exitCode = 1;
});
