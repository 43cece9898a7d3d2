// Provenance annotations: generator and version, policy, and the schedule as written when the CronJob runs
// a resolved one; on every object; the version is package.json's, read at run time.
import { readFileSync } from 'fs';
import { join } from 'path';
import { renderPolicy } from '../../../lib';
import { renderCronJobs } from '../../support/render';
import { generatorName } from '../../../lib/model/provenance';
import { redisPolicy } from '../engines/redis/fixtures';
import { vitessPolicy } from '../engines/vitess/fixtures';
import { etcdPolicy, restoreJobOf } from '../engines/etcd/fixtures';

const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as {
  name: string;
  version: string;
};

test('the generator is this package and its package.json version', () => {
  expect(pkg.name).toBe('backup-cronjobs');
  expect(generatorName()).toBe(`backup-cronjobs@${pkg.version}`);
});

test('every object of every kind carries the generator and the policy', () => {
  const objects = [
    ...renderPolicy(
      vitessPolicy(
        {},
        { metrics: { pushgatewayUrl: 'http://gw:9091', prometheusRule: {} }, scripts: { mode: 'configMap' } },
      ),
    ),
    ...renderPolicy(etcdPolicy({ destination: { s3: { bucket: 'etcd-backups', region: 'us-east-1' } } })),
    restoreJobOf(etcdPolicy({ destination: { s3: { bucket: 'etcd-backups', region: 'us-east-1' } } }), [
      '--node',
      'cp-9',
      '--snapshot',
      'etcd-snapshot_etcd_2026-01-01T00:00:00Z_cp-9.db',
    ]),
  ];
  expect(new Set(objects.map((o) => o.kind))).toEqual(new Set(['ConfigMap', 'CronJob', 'Job', 'PrometheusRule']));
  for (const o of objects) {
    expect({ kind: o.kind, annotations: o.metadata.annotations }).toEqual({
      kind: o.kind,
      annotations: expect.objectContaining({
        'backup-cronjobs.io/generator': `backup-cronjobs@${pkg.version}`,
        'backup-cronjobs.io/policy': expect.stringMatching(/^(example|etcd)$/) as unknown,
      }) as unknown,
    });
  }
});

test('the schedule as written, only where the CronJob runs another one (H fields hashed, stagger)', () => {
  const [hashed] = renderCronJobs(
    redisPolicy({ shards: ['shard01'] }, { defaults: { schedule: 'H 2 * * *' } }),
  ) as unknown as { metadata: { annotations: Record<string, string> }; spec: { schedule: string } }[];
  expect(hashed.spec.schedule).toMatch(/^\d+ 2 \* \* \*$/);
  expect(hashed.metadata.annotations['backup-cronjobs.io/schedule']).toBe('H 2 * * *');

  const staggered = renderCronJobs(
    redisPolicy({}, { defaults: { schedule: '0 2 * * *', stagger: { window: '30m' } } }),
  ) as unknown as { metadata: { annotations: Record<string, string> }; spec: { schedule: string } }[];
  const moved = staggered.filter((o) => o.spec.schedule !== '0 2 * * *');
  expect(moved.length).toBeGreaterThan(0);
  for (const o of staggered)
    expect(o.metadata.annotations['backup-cronjobs.io/schedule']).toBe(
      o.spec.schedule === '0 2 * * *' ? undefined : '0 2 * * *',
    );

  const plain = renderPolicy(redisPolicy({}, { defaults: { schedule: '15 3 * * *' } }));
  for (const o of plain) expect(o.metadata.annotations).not.toHaveProperty(['backup-cronjobs.io/schedule']);
});

test("on the objects only: job and pod templates keep the policy's own annotations", () => {
  const [cronJob] = renderCronJobs(
    redisPolicy({ shards: ['shard01'] }, { defaults: { schedule: 'H 2 * * *' } }),
  ) as unknown as {
    spec: {
      jobTemplate: {
        metadata: { annotations?: Record<string, string> };
        spec: { template: { metadata: { annotations?: Record<string, string> } } };
      };
    };
  }[];
  expect(cronJob.spec.jobTemplate.metadata.annotations).toBeUndefined();
  expect(cronJob.spec.jobTemplate.spec.template.metadata.annotations).toBeUndefined();
});
