// The shipped dashboard file is the generator's output (npm run docs writes it); the queries it holds
// are checked against real metrics in test/lib/engines/redis/scripts/redis-dashboard.test.ts.
import { readFileSync } from 'fs';
import { join } from 'path';
import { runCli } from '../../../lib/cli';
import { renderPolicy } from '../../../lib';
import type { Manifest } from '../../../lib';
import { grafanaDashboard } from '../../../lib/model/dashboard';
import { expectValidManifests } from '../../support/k8s-validate';
import { redisPolicy } from '../engines/redis/fixtures';

test('examples/grafana/backup-cronjobs-dashboard.json is what `backup-cronjobs dashboard` prints (run npm run docs after a change)', () => {
  let printed = '';
  expect(runCli(['dashboard'], { stdout: (t) => (printed += t), stderr: () => undefined })).toBe(0);
  expect(readFileSync(join(__dirname, '../../../examples/grafana/backup-cronjobs-dashboard.json'), 'utf8')).toBe(
    printed,
  );
  expect(JSON.parse(printed)).toEqual(JSON.parse(JSON.stringify(grafanaDashboard())));
});

describe("spec.metrics.grafanaDashboard: a ConfigMap for Grafana's dashboard sidecar", () => {
  const policy = (metrics: Record<string, unknown>) => redisPolicy({}, { metrics }, 'cache');
  const dashboardOf = (objects: Manifest[]) =>
    objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'cache-grafana-dashboard');

  test("rendered last, labelled for the sidecar, holding this policy's dashboard (own uid and title, variables set to it)", () => {
    const objects = renderPolicy(
      policy({ pushgatewayUrl: 'http://pushgateway.monitoring.svc:9091', grafanaDashboard: {} }),
    );
    const cm = dashboardOf(objects)!;
    expect(objects[objects.length - 1]).toBe(cm);
    expect(cm.metadata.labels).toMatchObject({
      grafana_dashboard: '1',
      'app.kubernetes.io/component': 'dashboard',
      'backup-cronjobs.io/policy': 'cache',
    });
    const data = (cm as unknown as { data: Record<string, string> }).data;
    expect(Object.keys(data)).toEqual(['backup-cronjobs-example-cache.json']);
    const dashboard = JSON.parse(data['backup-cronjobs-example-cache.json']) as {
      uid: string;
      title: string;
      templating: { list: { name: string; current?: { value: string } }[] };
    };
    expect(dashboard).toEqual(
      JSON.parse(JSON.stringify(grafanaDashboard({ namespace: 'example', policy: 'cache', prefix: 'redis_backup' }))),
    );
    expect(dashboard.title).toBe('backup-cronjobs: example/cache');
    expect(dashboard.uid).toMatch(/^backup-cronjobs-[0-9a-f]{8}$/);
    expect(Object.fromEntries(dashboard.templating.list.map((v) => [v.name, v.current?.value]))).toMatchObject({
      prefix: 'redis_backup',
      namespace: 'example',
      policy: 'cache',
    });
    expectValidManifests(objects);
  });

  test('its own labels replace the default; no ConfigMap without the option', () => {
    const cm = dashboardOf(
      renderPolicy(
        policy({
          pushgatewayUrl: 'http://pg:9091',
          grafanaDashboard: { labels: { 'grafana.example.com/dashboard': 'backups' } },
        }),
      ),
    )!;
    expect(cm.metadata.labels?.['grafana.example.com/dashboard']).toBe('backups');
    expect(cm.metadata.labels?.grafana_dashboard).toBeUndefined();
    expect(dashboardOf(renderPolicy(policy({ pushgatewayUrl: 'http://pg:9091' })))).toBeUndefined();
  });

  test('without a Pushgateway, and with a bad label key: refused, both at once', () => {
    const refused = () => renderPolicy(policy({ grafanaDashboard: { labels: { 'bad key': 'x' } } }));
    expect(refused).toThrow(/invalid BackupPolicy \(2 problems\)/);
    expect(refused).toThrow(/spec\.metrics\.grafanaDashboard\.labels\["bad key"\]: the key: received "bad key"/);
    expect(refused).toThrow(
      /spec\.metrics\.grafanaDashboard: applies to the Pushgateway only: set spec\.metrics\.pushgatewayUrl too, or remove it/,
    );
  });
});
