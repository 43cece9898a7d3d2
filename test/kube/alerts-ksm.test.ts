// The alerts that need no Pushgateway, from real series: kube-state-metrics (tools/kube-state-metrics,
// built from the Go module proxy) watches the package's CronJobs and their Jobs on the test control
// plane, and a real Prometheus (Debian's) scrapes it every second and evaluates the policy's
// PrometheusRule. Three CronJobs of one Redis policy, every minute: `good` succeeds (its first Job
// after a failed pod and a retry), `failing` succeeded once and then fails, `never` never succeeds.
// The fake kubelet ends their pods; the Jobs come from the CronJob controller on schedule and, to
// be quick, from the test as the controller makes them (owner reference, `<cronjob>-<minute>` name),
// and one as `kubectl create job --from=cronjob/…` makes it (owner reference, a free name).
import * as fs from 'fs';
import * as path from 'path';
import { stringify } from 'yaml';
import { Manifest } from '../../lib';
import { KubeApi, KubeItem } from './support/api';
import { applyObjects } from './support/apply';
import { testCluster } from './support/cluster';
import { FakeKubelet } from './support/fake-kubelet';
import { KubeStateMetricsHandle, startKubeStateMetrics } from './support/kube-state-metrics';
import { cronJobsOf, jobFrom, redisPolicy, render } from './support/policies';
import { sleep, until } from './support/wait';
import { PrometheusAlert, PrometheusHandle, startPrometheus } from '../support/services/prometheus';
import { makeTempDir, removeTempDir } from '../support/services/processes';
import { AlertingRule, alertingRulesOf, prometheusRuleSpecOf } from '../support/kube';

const MINUTE = 60_000;
const POLICY = 'redis-backup';
const JOB_NAME_LABEL = 'batch.kubernetes.io/job-name';

let api: KubeApi;
let ns: string;
let kubelet: FakeKubelet;
let ksm: KubeStateMetricsHandle;
let prometheus: PrometheusHandle;
let rulesDir: string;
let objects: Manifest[];
let rules: readonly AlertingRule[];
let cronJob: { good: Manifest; failing: Manifest; never: Manifest };
let stopPods: (() => Promise<void>) | undefined;

/** What the fake kubelet does with the n-th pod (0-based) of a Job: succeed, fail, or not yet. */
let podAction: (job: string, n: number) => 'succeed' | 'fail' | undefined = () => undefined;

/** Runs every bound pod of the namespace and ends it as podAction says, until stopped. */
function endPods(): () => Promise<void> {
  const seen = new Map<string, number>(); // pod → its index among the pods of its Job
  const perJob = new Map<string, number>();
  const done = new Set<string>();
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      for (const pod of await kubelet.pods(ns).catch(() => [])) {
        const name = pod.metadata.name;
        const job = pod.metadata.labels?.[JOB_NAME_LABEL];
        if (!job || done.has(name) || !pod.spec.nodeName || pod.status.phase !== 'Pending') continue;
        if (pod.metadata.deletionTimestamp) continue;
        if (!seen.has(name)) {
          seen.set(name, perJob.get(job) ?? 0);
          perJob.set(job, (perJob.get(job) ?? 0) + 1);
        }
        const action = podAction(job, seen.get(name)!);
        if (!action) continue;
        done.add(name);
        await kubelet.run(ns, name);
        await (action === 'succeed' ? kubelet.succeed(ns, name) : kubelet.fail(ns, name));
      }
      await sleep(200);
    }
  })();
  return async () => {
    stopped = true;
    await loop;
  };
}

interface CronJobView extends KubeItem {
  readonly status: { readonly lastSuccessfulTime?: string };
}

interface JobView extends KubeItem {
  readonly status: { readonly conditions?: readonly { type: string; status: string }[] };
}

/** A Job of a CronJob's template, as the CronJob controller makes the one of `minute` (Unix minutes). */
async function createJob(cj: Manifest, minute: number): Promise<string> {
  const live = await api.get(`/apis/batch/v1/namespaces/${ns}/cronjobs/${cj.metadata.name}`);
  const job = jobFrom(cj, `${cj.metadata.name}-${minute}`);
  await api.post(`/apis/batch/v1/namespaces/${ns}/jobs`, {
    ...job,
    metadata: {
      ...job.metadata,
      annotations: {
        ...job.metadata.annotations,
        'batch.kubernetes.io/cronjob-scheduled-timestamp': new Date(minute * MINUTE).toISOString(),
      },
      ownerReferences: [
        {
          apiVersion: 'batch/v1',
          kind: 'CronJob',
          name: live.metadata.name,
          uid: live.metadata.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
  });
  return job.metadata.name;
}

/** A Job of a CronJob with a free name, made by the real `kubectl create job --from=cronjob/<cronjob> <name>`. */
async function createManualJob(cj: Manifest, name: string): Promise<string> {
  await (await testCluster()).kubectl(['create', 'job', `--from=cronjob/${cj.metadata.name}`, name, '-n', ns]);
  return name;
}

const finished = async (job: string, type: 'Complete' | 'Failed'): Promise<boolean> =>
  (await api.get<JobView>(`/apis/batch/v1/namespaces/${ns}/jobs/${job}`)).status.conditions?.some(
    (c) => c.type === type && c.status === 'True',
  ) ?? false;

/** The alerts of the policy's rules, pending or firing, as `<alertname> <cronjob> <state>`. */
async function alertsNow(): Promise<string[]> {
  return (await prometheus.alerts())
    .filter((a: PrometheusAlert) => a.labels.policy === POLICY)
    .map((a) => `${a.labels.alertname} ${a.labels.cronjob} ${a.state}`)
    .sort();
}

beforeAll(async () => {
  const cluster = await testCluster();
  api = cluster.api;
  ns = await cluster.createNamespace('alerts-ksm');
  // No Pushgateway: the rules read kube-state-metrics alone. Every minute, a 20 s run timeout and
  // one schedule interval: a CronJob is stale 60 + 20 = 80 s after its last success.
  const doc = redisPolicy(ns, ['good', 'failing', 'never'], { schedule: '* * * * *', timeout: '20s' });
  const { pushgatewayUrl: _, ...metrics } = doc.spec.metrics as Record<string, unknown>;
  objects = render({
    ...doc,
    spec: { ...doc.spec, metrics: { ...metrics, prometheusRule: { staleAfterIntervals: 1 } } },
  });
  const [good, failing, never] = cronJobsOf(objects);
  cronJob = { good, failing, never };
  const rule = objects.find((o) => o.kind === 'PrometheusRule')!;
  rules = alertingRulesOf(rule);

  // The rule file as the Prometheus Operator writes it (spec.groups). Only `for` is rewritten, to 0s
  // (the rules wait 1m and 10m): an alert fires at the first evaluation its expression holds. Every
  // `expr` is the rendered one, byte for byte; what this test checks is the expressions on real series.
  const spec = prometheusRuleSpecOf(rule);
  rulesDir = await makeTempDir('alerts-ksm');
  const rulesFile = path.join(rulesDir, 'rules.yaml');
  fs.writeFileSync(
    rulesFile,
    stringify({ groups: spec.groups.map((g) => ({ ...g, rules: g.rules.map((r) => ({ ...r, for: '0s' })) })) }),
  );

  ksm = await startKubeStateMetrics(cluster.kubeconfig, [ns]);
  prometheus = await startPrometheus([ksm.address], { job: 'kube-state-metrics', ruleFiles: [rulesFile] });
  kubelet = new FakeKubelet(api, [ns]).start(); // ends the pods of Jobs past their deadline
  stopPods = endPods();
  expect(await applyObjects(api, objects)).toEqual([]);
}, 120_000);

afterAll(async () => {
  await stopPods?.();
  await kubelet?.stop();
  await prometheus?.stop();
  await ksm?.stop();
  if (rulesDir) await removeTempDir(rulesDir);
});

test(
  'a failing CronJob and one that never succeeded fire their alerts from the series kube-state-metrics exports; a healthy one (even with a failed pod its Job retried) fires none',
  async () => {
    const name = (cj: Manifest) => cj.metadata.name;
    // Jobs of the two minutes before the CronJobs existed: never the name of a scheduled run.
    const created = (await api.get(`/apis/batch/v1/namespaces/${ns}/cronjobs/${name(cronJob.good)}`)).metadata
      .creationTimestamp!;
    const minute = Math.floor(Date.parse(created) / MINUTE);
    const goodJob = `${name(cronJob.good)}-${minute - 1}`;
    const failingOk = `${name(cronJob.failing)}-${minute - 2}`;
    let retry = false;
    podAction = (job, n) => {
      if (job === goodJob) return n === 0 ? 'fail' : retry ? 'succeed' : undefined;
      if (job === failingOk || job.startsWith(`${name(cronJob.good)}-`)) return 'succeed';
      return 'fail'; // every other run of failing and never
    };

    // good: its first pod fails; while the Job waits to retry, the series say a pod failed…
    await createJob(cronJob.good, minute - 1);
    await createJob(cronJob.failing, minute - 2);
    await until(
      'kube-state-metrics reports the failed pod of the retrying Job',
      async () => (await prometheus.query(`kube_job_status_failed{job_name="${goodJob}"} > 0`)).length > 0,
      60_000,
    );
    await prometheus.evaluated();
    await prometheus.evaluated();
    // (ksm exports it as kube_job_status_failed{reason=""} 1; a Job that succeeds after the retry
    // keeps it), but the Job has no Failed condition: kube_job_failed has no series of it.
    expect(await prometheus.query(`kube_job_failed{job_name="${goodJob}"}`)).toEqual([]);
    // …but the Job has not failed: no alert for good.
    expect((await alertsNow()).filter((a) => a.includes(` ${name(cronJob.good)} `))).toEqual([]);
    retry = true;
    await until('the retried Job of good completes', () => finished(goodJob, 'Complete'), 60_000);

    // failing: a success, then (a second later: start times are in seconds) a run that fails
    const lastSuccess = await until(
      'failing has a last successful time',
      async () =>
        (await api.get<CronJobView>(`/apis/batch/v1/namespaces/${ns}/cronjobs/${name(cronJob.failing)}`)).status
          .lastSuccessfulTime,
      60_000,
    );
    await sleep(Date.parse(lastSuccess) + 1500 - Date.now());
    const failingJob = await createJob(cronJob.failing, minute - 1);
    const neverJob = await createJob(cronJob.never, minute - 1);
    await until(
      'the runs of failing and never fail',
      async () => (await finished(failingJob, 'Failed')) && (await finished(neverJob, 'Failed')),
      60_000,
    );

    const expected = [
      `BackupFailed ${name(cronJob.failing)} firing`,
      `BackupFailed ${name(cronJob.never)} firing`,
      `BackupNeverSucceeded ${name(cronJob.never)} firing`,
      `BackupStale ${name(cronJob.failing)} firing`,
    ];
    // Stale and never succeeded 80 s after the last success and the creation
    await until(
      'the alerts of failing and never fire',
      async () => {
        const now = await alertsNow();
        return expected.every((e) => now.includes(e)) && now;
      },
      2 * MINUTE,
    );
    await prometheus.evaluated();
    expect(await alertsNow()).toEqual(expected);
    const firing = (await prometheus.alerts()).filter((a) => a.labels.policy === POLICY);
    for (const a of firing) {
      expect(Object.keys(a.labels).sort()).toEqual(['alertname', 'cronjob', 'namespace', 'policy', 'severity']);
      expect(a.labels).toMatchObject({ namespace: ns, severity: 'warning' });
    }

    // A Job made by hand from good (kubectl create job --from=cronjob/…), with a free name, that
    // fails after good's last success: the CronJob is its controller, so BackupFailed fires for good.
    // (good, whose scheduled runs succeed, since failing's and never's scheduled runs fail too.)
    // Right after one of good's scheduled successes, so that the next one is most of a minute away.
    const goodSuccess = async () =>
      (await api.get<CronJobView>(`/apis/batch/v1/namespaces/${ns}/cronjobs/${name(cronJob.good)}`)).status
        .lastSuccessfulTime;
    const before = await goodSuccess();
    const goodLast = await until(
      'a scheduled run of good succeeds',
      async () => {
        const t = await goodSuccess();
        return t !== before && t;
      },
      2 * MINUTE,
    );
    await sleep(Date.parse(goodLast) + 1500 - Date.now());
    const manualJob = await createManualJob(cronJob.good, `manual-${minute}`);
    await until('the hand-made Job of good fails', () => finished(manualJob, 'Failed'), MINUTE);
    await until(
      'BackupFailed fires for good',
      async () => (await alertsNow()).includes(`BackupFailed ${name(cronJob.good)} firing`),
      MINUTE,
    );
    // the owner series as kube-state-metrics exports it
    expect((await prometheus.query(`kube_job_owner{job_name="${manualJob}"}`)).map((x) => x.metric)).toEqual([
      expect.objectContaining({
        namespace: ns,
        job_name: manualJob,
        owner_kind: 'CronJob',
        owner_name: name(cronJob.good),
        owner_is_controller: 'true',
      }),
    ]);
  },
  6 * MINUTE,
);

test('every kube-state-metrics series the rules select exists, with the labels they match on', async () => {
  const selectors = new Set(rules.flatMap((r) => r.expr.match(/kube_[a-z_]+\{[^}]*\}/g) ?? []));
  expect(selectors.size).toBeGreaterThan(0);
  // the Jobs' owners (Jobs are linked to their CronJob by it), the Jobs' failure and start time
  for (const metric of ['kube_job_owner', 'kube_job_failed', 'kube_job_status_start_time'])
    expect([...selectors].some((s) => s.startsWith(`${metric}{`))).toBe(true);
  for (const s of selectors) {
    const series = await prometheus.query(s);
    expect({ selector: s, found: series.length > 0 }).toEqual({ selector: s, found: true });
    for (const x of series) expect(x.metric.namespace).toBe(ns);
  }
});
