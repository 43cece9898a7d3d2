// A chart's namespace is the policy's namespace, rendered everywhere the policy names its namespace.
import { mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { Chart, Testing } from 'cdk8s';
import { BackupPolicy, RedisBackupSchedule } from '../../../constructs/cdk8s';
import { documentYaml, renderPolicy } from '../../../lib';
import type { Manifest } from '../../../lib';
import { redisSchedulePolicy } from '../../../lib/engines/redis/props';
import { vitessPolicy } from '../../lib/engines/vitess/fixtures';
import { podSpecOf, prometheusRuleSpecOf } from '../../support/kube';
import { redisProps } from './fixtures';

/** Every namespace an object names: its own, its pods' affinity terms', its alert selectors'. */
function namespacesIn(m: Manifest): string[] {
  const own = [m.metadata.namespace ?? '(none)'];
  if (m.kind === 'CronJob') {
    const affinity = podSpecOf(m).affinity ?? {};
    const terms = [
      ...(affinity.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []),
      ...(affinity.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? []).map(
        (t) => t.podAffinityTerm,
      ),
    ];
    return [...own, ...terms.flatMap((t) => t.namespaces ?? ['(none)'])];
  }
  if (m.kind === 'PrometheusRule') {
    const exprs = prometheusRuleSpecOf(m).groups.flatMap((g) => g.rules.map((r) => r.expr));
    return [...own, ...exprs.map((e) => /namespace="([^"]*)"/.exec(e)?.[1] ?? '(none)')];
  }
  return own;
}

test("without a namespace in the props, the objects are what the core renders for the chart's namespace, inside them too", () => {
  // GIVEN
  const chart = new Chart(Testing.app(), 'backups', { namespace: 'cache' });
  // WHEN
  const schedule = new RedisBackupSchedule(chart, 'cache', redisProps);
  // THEN
  const objects = Testing.synth(chart) as Manifest[];
  expect(objects).toEqual(renderPolicy(redisSchedulePolicy({ ...redisProps, namespace: 'cache' } as never)));
  expect(objects.map((m) => m.kind)).toEqual([
    'ConfigMap',
    'CronJob',
    'CronJob',
    'CronJob',
    'CronJob',
    'PrometheusRule',
  ]);
  const named = objects.flatMap(namespacesIn);
  expect(named.length).toBeGreaterThan(objects.length + 4); // affinity terms and alert expressions name it too
  expect(new Set(named)).toEqual(new Set(['cache']));
  expect(schedule.namespace).toBe('cache');
});

test("a namespace in the props wins over the chart's", () => {
  const chart = new Chart(Testing.app(), 'backups', { namespace: 'cache' });
  new RedisBackupSchedule(chart, 'cache', { ...redisProps, namespace: 'redis' });
  expect(new Set((Testing.synth(chart) as Manifest[]).flatMap(namespacesIn))).toEqual(new Set(['redis']));
});

test('without a namespace anywhere, "default", as the CLI renders the policy', () => {
  const chart = new Chart(Testing.app(), 'backups');
  new RedisBackupSchedule(chart, 'cache', redisProps);
  expect(new Set((Testing.synth(chart) as Manifest[]).flatMap(namespacesIn))).toEqual(new Set(['default']));
});

test("BackupPolicy and BackupPolicy.fromFile: a policy without metadata.namespace lands in the chart's namespace; one with it stays", () => {
  const withoutNamespace = { ...vitessPolicy(), metadata: { name: 'example' } };
  const dir = mkdtempSync(join(tmpdir(), 'bcj-cdk8s-ns-'));
  const file = join(dir, 'policy.yaml');
  writeFileSync(file, documentYaml(withoutNamespace));
  const chart = new Chart(Testing.app(), 'backups', { namespace: 'db' });
  const fromProps = new BackupPolicy(chart, 'props', withoutNamespace);
  const fromFile = BackupPolicy.fromFile(chart, 'file', file);
  rmSync(dir, { recursive: true });
  const kept = new BackupPolicy(chart, 'kept', {
    ...vitessPolicy(),
    metadata: { name: 'other', namespace: 'example' },
  });
  expect([fromProps, fromFile, kept].map((p) => [p.namespace, ...p.manifests.flatMap(namespacesIn)])).toEqual([
    ['db', 'db', 'db'],
    ['db', 'db', 'db'],
    ['example', 'example', 'example'],
  ]);
});
