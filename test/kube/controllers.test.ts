// The real CronJob and Job controllers run the package's CronJobs (the Redis example, in a namespace
// of each scenario, scheduled every minute). The fake kubelet moves the pods on the test's command.
// The scenarios run at the same time (they wait for minute boundaries); each test awaits its own.
import { Manifest } from '../../lib';
import { KubeApi, KubeItem } from './support/api';
import { applyObjects } from './support/apply';
import { testCluster } from './support/cluster';
import { FakeKubelet, PodView } from './support/fake-kubelet';
import { cronJobsOf, redisPolicy, render } from './support/policies';
import { sleep, until } from './support/wait';

interface JobView extends KubeItem {
  readonly spec: { readonly backoffLimit?: number; readonly activeDeadlineSeconds?: number };
  readonly status: {
    readonly active?: number;
    readonly succeeded?: number;
    readonly failed?: number;
    readonly conditions?: readonly { type: string; status: string; reason?: string }[];
  };
}

const EVERY_MINUTE = '* * * * *';
const MINUTE = 60_000;

let api: KubeApi;
let kubelet: FakeKubelet;
const namespaces: string[] = [];
const scenarios = new Map<string, Promise<unknown>>();

async function jobsOf(ns: string, cronJob: string): Promise<JobView[]> {
  const jobs = await api.list<JobView>(`/apis/batch/v1/namespaces/${ns}/jobs`);
  return jobs
    .filter((j) => j.metadata.ownerReferences?.some((r) => r.kind === 'CronJob' && r.name === cronJob))
    .sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
}

async function podsOf(ns: string, job: string): Promise<PodView[]> {
  return kubelet.pods(ns, `batch.kubernetes.io/job-name=${job}`);
}

const finished = (j: JobView, type: 'Complete' | 'Failed'): boolean =>
  j.status.conditions?.some((c) => c.type === type && c.status === 'True') ?? false;

/** Waits for the n-th Job (1-based) of a CronJob and its bound pod; returns both. */
async function nthJob(
  ns: string,
  cronJob: string,
  n: number,
  timeoutMs = 2 * MINUTE,
): Promise<{ job: JobView; pod: PodView }> {
  const job = await until(`Job ${n} of ${ns}/${cronJob}`, async () => (await jobsOf(ns, cronJob))[n - 1], timeoutMs);
  const pod = await until(
    `a bound pod of Job ${job.metadata.name}`,
    async () => (await podsOf(ns, job.metadata.name)).find((p) => p.spec.nodeName && p.status.phase === 'Pending'),
    60_000,
  );
  return { job, pod };
}

async function applyPolicy(objects: Manifest[]): Promise<string[]> {
  expect(await applyObjects(api, objects)).toEqual([]);
  return cronJobsOf(objects).map((o) => o.metadata.name);
}

async function setSuspend(ns: string, cronJob: string, suspend: boolean): Promise<void> {
  await api.patch(`/apis/batch/v1/namespaces/${ns}/cronjobs/${cronJob}`, { spec: { suspend } });
}

/** Starts a scenario now, in a namespace of its own; the test of the same name awaits it. */
function scenario(name: string, run: (ns: string) => Promise<unknown>): void {
  const started = (async () => {
    const ns = (await testCluster()).createNamespace(`ctl-${name}`);
    namespaces.push(await ns);
    return run(await ns);
  })();
  started.catch(() => undefined);
  scenarios.set(name, started);
}

beforeAll(async () => {
  const cluster = await testCluster();
  api = cluster.api;
  kubelet = new FakeKubelet(api, namespaces).start();

  // concurrencyPolicy Forbid: a Job still running holds back the next one.
  scenario('forbid', async (ns) => {
    const [cj] = await applyPolicy(render(redisPolicy(ns, ['shard01'], { schedule: EVERY_MINUTE })));
    const first = await nthJob(ns, cj, 1);
    await kubelet.run(ns, first.pod.metadata.name);
    const held = Date.now() + MINUTE + 20_000; // one more schedule point passes while it runs
    await sleep(held - Date.now());
    const whileRunning = (await jobsOf(ns, cj)).map((j) => j.metadata.name);
    await kubelet.succeed(ns, first.pod.metadata.name);
    await until('the first Job completes', async () => finished((await jobsOf(ns, cj))[0], 'Complete'), 30_000);
    const second = await nthJob(ns, cj, 2, 75_000);
    await setSuspend(ns, cj, true);
    return { whileRunning, first: first.job.metadata.name, second: second.job.metadata.name };
  });

  // suspend: no Job while suspended; a run missed inside startingDeadlineSeconds starts on resume.
  scenario('suspend', async (ns) => {
    const [cj] = await applyPolicy(render(redisPolicy(ns, ['shard01'], { schedule: EVERY_MINUTE, suspend: true })));
    await sleep(MINUTE + 15_000);
    const whileSuspended = (await jobsOf(ns, cj)).length;
    await setSuspend(ns, cj, false); // the default startingDeadline (30m in the example) still covers the missed run
    const resumed = Date.now();
    const job = await nthJob(ns, cj, 1, 40_000);
    await setSuspend(ns, cj, true);
    const scheduled = Date.parse(
      job.job.metadata.annotations?.['batch.kubernetes.io/cronjob-scheduled-timestamp'] ?? '',
    );
    return { whileSuspended, scheduledBeforeResume: scheduled < resumed };
  });

  // startingDeadlineSeconds: a run missed by more than the deadline is not started late.
  scenario('deadline', async (ns) => {
    const [cj] = await applyPolicy(
      render(redisPolicy(ns, ['shard01'], { schedule: EVERY_MINUTE, suspend: true, startingDeadline: '10s' })),
    );
    // Resume 25 s past a schedule point: that run is 15 s past its 10 s deadline.
    const now = Date.now();
    const point = Math.floor(now / MINUTE) * MINUTE + MINUTE;
    await sleep(point + 25_000 - now);
    await setSuspend(ns, cj, false);
    await sleep(20_000); // still before the next point (at +60 s)
    const late = (await jobsOf(ns, cj)).length;
    const next = await nthJob(ns, cj, 1, 40_000);
    await setSuspend(ns, cj, true);
    const scheduled = next.job.metadata.annotations?.['batch.kubernetes.io/cronjob-scheduled-timestamp'];
    return { late, scheduled: Date.parse(scheduled ?? ''), expected: point + MINUTE };
  });

  // Both history limits: two CronJobs of one policy at limit 1, one whose runs succeed, one whose runs fail.
  scenario('history', async (ns) => {
    const [ok, bad] = await applyPolicy(
      render(
        redisPolicy(ns, ['good', 'bad'], {
          schedule: EVERY_MINUTE,
          successfulJobsHistoryLimit: 1,
          failedJobsHistoryLimit: 1,
          backoffLimit: 0,
        }),
      ),
    );
    const names: Record<string, string[]> = { [ok]: [], [bad]: [] };
    for (let n = 1; n <= 3; n++) {
      await Promise.all(
        [ok, bad].map(async (cj) => {
          const { job, pod } = await nthJobAfter(ns, cj, names[cj]);
          names[cj].push(job.metadata.name);
          await kubelet.run(ns, pod.metadata.name);
          if (cj === ok) await kubelet.succeed(ns, pod.metadata.name);
          else await kubelet.fail(ns, pod.metadata.name);
        }),
      );
    }
    await setSuspend(ns, ok, true);
    await setSuspend(ns, bad, true);
    // The controller removes the older finished Jobs at its next sync of each CronJob.
    const kept = await until(
      'the history limits applied',
      async () => {
        const good = (await jobsOf(ns, ok)).map((j) => j.metadata.name);
        const failed = (await jobsOf(ns, bad)).map((j) => j.metadata.name);
        return good.length === 1 && failed.length === 1 ? { good, failed } : undefined;
      },
      90_000,
      1000,
    );
    return { kept, names, ok, bad };
  });

  // activeDeadlineSeconds: a pod kept Running past it ends, and the Job fails as DeadlineExceeded.
  scenario('timeout', async (ns) => {
    const [cj] = await applyPolicy(render(redisPolicy(ns, ['shard01'], { schedule: EVERY_MINUTE, timeout: '20s' })));
    const { job, pod } = await nthJob(ns, cj, 1);
    await setSuspend(ns, cj, true);
    await kubelet.run(ns, pod.metadata.name);
    const failed = await until(
      'the Job fails',
      async () => (await jobsOf(ns, cj)).find((j) => j.metadata.name === job.metadata.name && finished(j, 'Failed')),
      90_000,
    );
    const podGone = await until(
      'the pod is deleted',
      async () => (await podsOf(ns, job.metadata.name)).length === 0,
      60_000,
    );
    return { job: failed, activeDeadlineSeconds: job.spec.activeDeadlineSeconds, podGone };
  });

  // backoffLimit: with 1, a failed pod is replaced once, and the second failure fails the Job.
  scenario('backoff', async (ns) => {
    const [cj] = await applyPolicy(render(redisPolicy(ns, ['shard01'], { schedule: EVERY_MINUTE, backoffLimit: 1 })));
    const { job, pod } = await nthJob(ns, cj, 1);
    await setSuspend(ns, cj, true);
    await kubelet.run(ns, pod.metadata.name);
    await kubelet.fail(ns, pod.metadata.name);
    const retry = await until(
      'a second pod',
      async () =>
        (await podsOf(ns, job.metadata.name)).find(
          (p) => p.metadata.name !== pod.metadata.name && p.spec.nodeName && p.status.phase === 'Pending',
        ),
      90_000,
    );
    await kubelet.run(ns, retry.metadata.name);
    await kubelet.fail(ns, retry.metadata.name);
    const failed = await until(
      'the Job fails',
      async () => (await jobsOf(ns, cj)).find((j) => finished(j, 'Failed')),
      60_000,
    );
    return { failed, backoffLimit: job.spec.backoffLimit, pods: (await podsOf(ns, job.metadata.name)).length };
  });

  // timeZone: a daily schedule at the next minute of Asia/Kolkata's clock (UTC+05:30) runs then.
  scenario('timezone', async (ns) => {
    const at = Math.floor(Date.now() / MINUTE) * MINUTE + 2 * MINUTE;
    const kolkata = new Date(at + 330 * MINUTE);
    const schedule = `${kolkata.getUTCMinutes()} ${kolkata.getUTCHours()} * * *`;
    const [cj] = await applyPolicy(render(redisPolicy(ns, ['shard01'], { schedule, timeZone: 'Asia/Kolkata' })));
    const { job } = await nthJob(ns, cj, 1, 3 * MINUTE);
    await setSuspend(ns, cj, true);
    const scheduled = job.metadata.annotations?.['batch.kubernetes.io/cronjob-scheduled-timestamp'];
    return { schedule, scheduled: Date.parse(scheduled ?? ''), expected: at };
  });
}, 60_000);

/** The next Job of a CronJob that is not one of `seen`, with its bound pod. */
async function nthJobAfter(
  ns: string,
  cronJob: string,
  seen: readonly string[],
): Promise<{ job: JobView; pod: PodView }> {
  const job = await until(
    `a new Job of ${ns}/${cronJob}`,
    async () => (await jobsOf(ns, cronJob)).find((j) => !seen.includes(j.metadata.name)),
    2 * MINUTE,
  );
  const pod = await until(
    `a bound pod of Job ${job.metadata.name}`,
    async () => (await podsOf(ns, job.metadata.name)).find((p) => p.spec.nodeName && p.status.phase === 'Pending'),
    60_000,
  );
  return { job, pod };
}

afterAll(async () => {
  await Promise.allSettled(scenarios.values());
  await kubelet?.stop();
});

const result = <T>(name: string): Promise<T> => scenarios.get(name) as Promise<T>;
const LONG = 8 * MINUTE;

test(
  'concurrencyPolicy Forbid: a Job still running holds back the next one',
  async () => {
    const r = await result<{ whileRunning: string[]; first: string; second: string }>('forbid');
    expect(r.whileRunning).toEqual([r.first]);
    expect(r.second).not.toBe(r.first);
  },
  LONG,
);

test(
  'suspend: no Job while suspended; on resume the missed run starts within its deadline',
  async () => {
    const r = await result<{ whileSuspended: number; scheduledBeforeResume: boolean }>('suspend');
    expect(r.whileSuspended).toBe(0);
    // the first Job after the resume is the run missed while suspended, not the next one
    expect(r.scheduledBeforeResume).toBe(true);
  },
  LONG,
);

test(
  'startingDeadlineSeconds: a run missed by more than the deadline is skipped, the next one runs',
  async () => {
    const r = await result<{ late: number; scheduled: number; expected: number }>('deadline');
    expect(r.late).toBe(0);
    expect(new Date(r.scheduled).toISOString()).toBe(new Date(r.expected).toISOString());
  },
  LONG,
);

test(
  'successfulJobsHistoryLimit and failedJobsHistoryLimit keep the newest finished Job of each',
  async () => {
    const r = await result<{
      kept: { good: string[]; failed: string[] };
      names: Record<string, string[]>;
      ok: string;
      bad: string;
    }>('history');
    expect(r.kept.good).toEqual([r.names[r.ok][2]]);
    expect(r.kept.failed).toEqual([r.names[r.bad][2]]);
  },
  LONG,
);

test(
  'activeDeadlineSeconds: a pod kept Running past the timeout ends, the Job fails as DeadlineExceeded',
  async () => {
    const r = await result<{ job: JobView; activeDeadlineSeconds: number; podGone: boolean }>('timeout');
    expect(r.activeDeadlineSeconds).toBe(20);
    expect(r.job.status.conditions).toEqual(
      expect.arrayContaining([expect.objectContaining({ type: 'Failed', status: 'True', reason: 'DeadlineExceeded' })]),
    );
    expect(r.podGone).toBe(true);
  },
  LONG,
);

test(
  'backoffLimit: one retry, then the Job fails as BackoffLimitExceeded',
  async () => {
    const r = await result<{ failed: JobView; backoffLimit: number; pods: number }>('backoff');
    expect(r.backoffLimit).toBe(1);
    expect(r.failed.status.failed).toBe(2);
    expect(r.failed.status.conditions).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded' }),
      ]),
    );
  },
  LONG,
);

test(
  'timeZone: the controller reads the schedule on the time zone’s clock',
  async () => {
    const r = await result<{ schedule: string; scheduled: number; expected: number }>('timezone');
    expect(new Date(r.scheduled).toISOString()).toBe(new Date(r.expected).toISOString());
  },
  LONG,
);
