import { ApiObject, Chart, Testing } from 'cdk8s';
import { BackupPolicy, VitessBackupSchedule } from '../../../constructs/cdk8s';
import { PolicyError, renderPolicy } from '../../../lib';
import type { Manifest } from '../../../lib';
import { asCronJob, podSpecOf } from '../../support/kube';
import { vitessPolicy } from '../../lib/engines/vitess/fixtures';
import { etcdPolicy } from '../../lib/engines/etcd/fixtures';

describe('BackupPolicy construct', () => {
  test('synthesizes exactly the core objects', () => {
    // GIVEN
    const chart = Testing.chart();
    const doc = vitessPolicy({
      schedules: [{ name: 'daily', strategies: [{ keyspace: 'customer', shards: ['-80', '80-'] }] }],
    });
    // WHEN
    const policy = new BackupPolicy(chart, 'policy', doc);
    // THEN
    expect(Testing.synth(chart)).toEqual(renderPolicy(doc));
    expect(policy.cronJobs.map((c) => c.name)).toEqual(['example-daily-customer-x-80', 'example-daily-customer-80-x']);
  });

  test('a single object is the default child, for escape hatches (inline scripts: no ConfigMap)', () => {
    const chart = Testing.chart();
    const policy = new BackupPolicy(chart, 'policy', vitessPolicy({}, { scripts: { mode: 'inline' } }));
    expect(policy.node.defaultChild).toBeInstanceOf(ApiObject);
    ApiObject.of(policy.node.defaultChild!).addJsonPatch();
    expect((policy.node.defaultChild as ApiObject).kind).toBe('CronJob');
  });

  test('invalid props throw at construction with every problem and add nothing', () => {
    const chart = Testing.chart();
    const doc = vitessPolicy({ cluster: 'Bad' }, { defaults: { backoffLimit: -1 } });
    expect(() => new BackupPolicy(chart, 'policy', doc)).toThrow(PolicyError);
    expect(() => new BackupPolicy(chart, 'policy2', doc)).toThrow(
      /spec\.defaults\.backoffLimit: received -1; must be >= 0/,
    );
    expect(Testing.synth(chart)).toEqual([]);
  });

  test('a construct whose constructor threw (and was caught) leaves no node: the other constructs of the app synthesize', () => {
    const app = Testing.app();
    const chart = new Chart(app, 'c');
    new BackupPolicy(chart, 'good', vitessPolicy());
    expect(() => new BackupPolicy(chart, 'bad', vitessPolicy({ cluster: 'Bad' }))).toThrow(PolicyError);
    expect(chart.node.tryFindChild('bad')).toBeUndefined();
    new BackupPolicy(chart, 'later', { ...vitessPolicy(), metadata: { name: 'later' } });
    expect(() => app.synth()).not.toThrow();
    expect((Testing.synth(chart) as Manifest[]).map((m) => m.metadata.name)).toEqual(
      [...renderPolicy(vitessPolicy()), ...renderPolicy({ ...vitessPolicy(), metadata: { name: 'later' } })].map(
        (m) => m.metadata.name,
      ),
    );
  });
});

describe('VitessBackupSchedule construct', () => {
  const props = {
    name: 'example',
    namespace: 'example',
    cluster: 'example',
    topology: { globalServerAddress: 'example-etcd-faf13de3-client.example.svc:2379' },
    vtctldServer: 'example-vtctld:15999',
    storage: { s3: { region: 'us-east-1', bucket: 'my-bucket' } },
    schedule: '0 2 * * *',
    strategies: [{ keyspace: 'commerce', shards: ['-'] }],
  } as const;

  test('the construct id is the schedule name; output equals the equivalent policy', () => {
    const chart = Testing.chart();
    new VitessBackupSchedule(chart, 'daily', props);
    expect(Testing.synth(chart)).toEqual(renderPolicy(vitessPolicy()));
  });

  test('scheduleName, job settings and cluster settings route to the right place', () => {
    const chart = Testing.chart();
    const s = new VitessBackupSchedule(chart, 'x', {
      ...props,
      scheduleName: 'nightly',
      suspend: true,
      allowFirstBackup: true,
    });
    const cj = asCronJob(s.manifests.find((m) => m.kind === 'CronJob'));
    expect(cj.metadata?.name).toBe('example-nightly-commerce-x-x');
    expect(cj.spec?.suspend).toBe(true);
    expect(podSpecOf(cj).containers[0].env).toContainEqual({
      name: 'VITESS_ALLOW_FIRST_BACKUP',
      value: 'true',
    });
  });

  test('errors name the prop as written, and the policy field it became', () => {
    const chart = new Chart(Testing.app(), 'c');
    expect(
      () => new VitessBackupSchedule(chart, 'daily', { ...props, concurrencyPolicy: 'Sometimes' as never }),
    ).toThrow(
      '  concurrencyPolicy: received "Sometimes"; allowed: "Forbid", "Allow", "Replace" (policy field spec.vitess.schedules[0].concurrencyPolicy)',
    );
  });
});

describe('objects two constructs both render', () => {
  test('fail at synth, naming both construct paths', () => {
    const app = Testing.app();
    const one = new Chart(app, 'one');
    const two = new Chart(app, 'two');
    new BackupPolicy(one, 'a', etcdPolicy({ mode: 'perNode', nodes: ['b-c'] }, {}, 'a'));
    new BackupPolicy(two, 'ab', etcdPolicy({ mode: 'perNode', nodes: ['c'] }, {}, 'a-b'));
    expect(() => app.synth()).toThrow(/CronJob\.batch kube-system\/a-b-c is rendered by both one\/a and two\/ab/);
  });

  test('distinct namespaces do not collide', () => {
    const app = Testing.app();
    new BackupPolicy(new Chart(app, 'one'), 'a', vitessPolicy());
    new BackupPolicy(new Chart(app, 'two'), 'a', {
      ...vitessPolicy(),
      metadata: { name: 'example', namespace: 'other' },
    });
    expect(() => app.synth()).not.toThrow();
  });
});
