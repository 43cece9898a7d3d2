// The Grafana dashboard (issue 21.4) against real metrics: real Redis backup runs (one good, its content
// checked, one failed, one with a shard the policy leaves out) and a real restore drill push to a real
// Pushgateway, a real Prometheus (Debian's) scrapes it, and every panel's query returns series with
// the values the runs pushed.
import type { Manifest } from '../../../../../lib';
import { DASHBOARD_PANELS, grafanaDashboard, metricPrefixes } from '../../../../../lib/model/dashboard';
import { resolvePodSpec, runPod } from '../../../../support/run-container';
import { PrometheusHandle, startPrometheus } from '../../../../support/services';
import { renderAll, runBackupPod, secrets, startRedisServices, stopRedisServices } from './fixtures';

jest.setTimeout(180000);

let prometheus: PrometheusHandle;

const cronJob = (objects: Manifest[], component: string, shard: string): Manifest => {
  const found = objects.find(
    (o) =>
      o.kind === 'CronJob' &&
      o.metadata.labels?.['app.kubernetes.io/component'] === component &&
      o.metadata.labels?.['backup-cronjobs.io/shard'] === shard,
  );
  if (!found) throw new Error(`no ${component} CronJob of ${shard}`);
  return found;
};

/** A panel's query as Grafana sends it for the Redis prefix, every namespace and policy, over the last hour. */
const queryOf = (expr: string) =>
  expr
    .replace(/\$\{prefix\}/g, 'redis_backup')
    .replace(/\$namespace|\$policy/g, '.*')
    .replace(/\$__range/g, '1h');

beforeAll(async () => {
  const { gateway } = await startRedisServices({ replicas: { shard01: 1, shard02: 1, shard03: 1 }, bigKeys: 16 });
  prometheus = await startPrometheus([new URL(gateway.url).host]);
  // shard03 is left out: the runs count it as uncovered
  const objects = renderAll({ shards: ['shard01', 'shard02'] }, { drill: { schedule: '0 4 * * *' } }, 'dash');
  const good = await runBackupPod(cronJob(objects, 'backup', 'shard01'));
  expect([good.dump.code, good.upload.code]).toEqual([0, 0]);
  const bad = await runBackupPod(cronJob(objects, 'backup', 'shard02'), {
    secrets: secrets({ 'redis-auth': { password: 'wrong' } }),
  });
  expect(bad.dump.code).not.toBe(0);
  const { results } = await runPod(
    resolvePodSpec(JSON.parse(JSON.stringify(cronJob(objects, 'restore-drill', 'shard01')))),
    { secrets: secrets(), timeoutMs: 90000 },
  );
  expect(Object.values(results).map((r) => r.code)).toEqual(Object.values(results).map(() => 0));
  await prometheus.scraped();
});
afterAll(async () => {
  await prometheus?.stop();
  await stopRedisServices();
});

test.each(DASHBOARD_PANELS.map((p) => [p.title, p] as const))('%s: its query returns series', async (_title, panel) => {
  const result = await prometheus.query(queryOf(panel.expr));
  expect(result.length).toBeGreaterThan(0);
  for (const s of result) expect(s.metric.policy).toBe('dash');
});

test("the values are the runs': shard01 succeeded and drilled green, shard02 failed, one shard uncovered", async () => {
  const byShard = async (title: string) => {
    const panel = DASHBOARD_PANELS.find((p) => p.title === title)!;
    return Object.fromEntries(
      (await prometheus.query(queryOf(panel.expr))).map((s) => [s.metric.shard, Number(s.value[1])]),
    );
  };
  expect(await byShard('Last run succeeded')).toEqual({ shard01: 1, shard02: 0 });
  expect((await byShard('Failed runs')).shard02).toBeGreaterThanOrEqual(1);
  expect(await byShard('Restore drill succeeded')).toEqual({ shard01: 1 });
  expect((await byShard('Size of the last backup')).shard01).toBeGreaterThan(0);
  // the content check of the good run: the shard's keys, no shrink (its first backup)
  expect((await byShard('Keys in the last checked backup')).shard01).toBeGreaterThan(0);
  expect(await byShard('Backup shrank')).toEqual({ shard01: 0 });
  const uncovered = await prometheus.query(queryOf(DASHBOARD_PANELS.find((p) => p.title === 'Uncovered shards')!.expr));
  expect(uncovered.map((s) => Number(s.value[1]))).toEqual([1]);
});

test("the dashboard JSON: one target per panel with its query, the engines' prefixes as the prefix variable", () => {
  const d = grafanaDashboard() as {
    panels: { title: string; targets: { expr: string }[] }[];
    templating: { list: { name: string; options?: { value: string }[] }[] };
  };
  expect(d.panels.map((p) => [p.title, p.targets.map((t) => t.expr)])).toEqual(
    DASHBOARD_PANELS.map((p) => [p.title, [p.expr]]),
  );
  expect(d.templating.list.find((v) => v.name === 'prefix')!.options!.map((o) => o.value)).toEqual(metricPrefixes());
  expect(metricPrefixes()).toEqual(expect.arrayContaining(['backup_cronjobs', 'etcd_backup', 'redis_backup']));
});
