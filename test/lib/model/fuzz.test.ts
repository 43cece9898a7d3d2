// Property tests: random valid policies always give valid, deterministic manifests;
// random invalid ones always give a PolicyError and no output.
import fc from 'fast-check';
import { PolicyError, renderPolicy, toYaml } from '../../../lib';
import { expectValidManifests } from '../../support/k8s-validate';

const dnsLabel = fc.stringMatching(/^[a-z][a-z0-9-]{0,20}[a-z0-9]$/).filter((s) => !s.includes('--'));
const shardRange = fc.constantFrom('-', '-80', '80-', '-40', '40-80', '80-c0', 'c0-', '-8000', '8000-');
const cron = fc.constantFrom('0 2 * * *', '*/15 * * * *', '@daily', '@hourly', '30 1 * * 1-5', 'H 3 * * *', 'H/30 * * * *', 'H(0-29) 4 * * *', '0 0,12 * * *');
const duration = fc.constantFrom('30s', '5m', '15m', '1h', '2h30m', '1d');

const settings = fc.record({
  schedule: cron,
  timeZone: fc.constantFrom('Etc/UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata'),
  suspend: fc.boolean(),
  concurrencyPolicy: fc.constantFrom('Forbid', 'Allow', 'Replace'),
  startingDeadline: duration,
  successfulJobsHistoryLimit: fc.integer({ min: 0, max: 10 }),
  failedJobsHistoryLimit: fc.integer({ min: 0, max: 10 }),
  timeout: duration,
  backoffLimit: fc.integer({ min: 0, max: 6 }),
  ttlAfterFinished: duration,
  placement: fc.record({
    nodeSelector: fc.dictionary(fc.constantFrom('disk', 'node-role.example.com/db', 'zone'), fc.constantFrom('ssd', 'true', 'a')),
    tolerations: fc.array(fc.record({ key: fc.constantFrom('dedicated', 'db'), value: fc.constantFrom('db', 'x'), effect: fc.constantFrom('NoSchedule', 'NoExecute') }), { maxLength: 2 }),
    serializationGroup: fc.record({ name: dnsLabel, scope: fc.constantFrom('node', 'cluster') }),
  }, { requiredKeys: [] }),
  pod: fc.record({
    resources: fc.record({ requests: fc.record({ cpu: fc.constantFrom('100m', '1', '2500m'), memory: fc.constantFrom('256Mi', '1Gi') }) }),
    imagePullSecrets: fc.array(dnsLabel, { maxLength: 2 }),
    priorityClassName: dnsLabel,
  }, { requiredKeys: [] }),
}, { requiredKeys: [] });

const storage = fc.oneof(
  fc.record({ s3: fc.record({ region: fc.constantFrom('us-east-1', 'eu-west-1'), bucket: dnsLabel, keyPrefix: fc.constantFrom('vt', 'a/b/'), endpoint: fc.constantFrom('http://minio:9000'), forcePathStyle: fc.boolean() }, { requiredKeys: ['region', 'bucket'] }) }),
  fc.record({ gcs: fc.record({ bucket: dnsLabel }) }),
  fc.record({ azblob: fc.record({ account: dnsLabel, container: dnsLabel, authSecret: fc.record({ name: dnsLabel, key: fc.constantFrom('key', 'azure.key') }) }) }),
  fc.record({ ceph: fc.record({ authSecret: fc.record({ name: dnsLabel, key: fc.constantFrom('ceph.json') }) }) }),
  fc.record({ file: fc.record({ claimName: dnsLabel }) }),
);

const schedules = fc.uniqueArray(
  fc.tuple(dnsLabel, settings, fc.uniqueArray(fc.tuple(dnsLabel, fc.uniqueArray(shardRange, { minLength: 1, maxLength: 3 })), { minLength: 1, maxLength: 3, selector: ([ks]) => ks })),
  { minLength: 1, maxLength: 3, selector: ([name]) => name },
).map((list) => list.map(([name, s, strategies]) => ({ name, ...s, strategies: strategies.map(([keyspace, shards]) => ({ keyspace, shards })) })));

const validPolicy = fc.record({
  name: dnsLabel,
  namespace: dnsLabel,
  defaults: settings,
  vitess: fc.record({
    cluster: dnsLabel,
    backupEngine: fc.constantFrom('builtin', 'xtrabackup', 'mysqlshell'),
    flagStyle: fc.constantFrom('underscore', 'dashed'),
    allowFirstBackup: fc.boolean(),
    scratch: fc.record({ size: fc.constantFrom('10Gi', '500Mi'), storageClassName: dnsLabel }, { requiredKeys: [] }),
    storage,
    schedules,
  }, { requiredKeys: ['cluster', 'storage', 'schedules'] }),
}).map(({ name, namespace, defaults, vitess }) => ({
  apiVersion: 'backup-cronjobs.io/v1alpha1',
  kind: 'BackupPolicy',
  metadata: { name, namespace },
  spec: {
    defaults,
    vitess: { ...vitess, topology: { globalServerAddress: 'etcd:2379' }, vtctldServer: 'vtctld:15999' },
  },
}));

describe('property: valid policies', () => {
  test('always render valid, byte-identical manifests', () => {
    fc.assert(fc.property(validPolicy, (doc) => {
      const first = renderPolicy(doc);
      expect(first.length).toBeGreaterThan(0);
      expectValidManifests(first);
      expect(toYaml(renderPolicy(JSON.parse(JSON.stringify(doc))))).toBe(toYaml(first));
      for (const o of first) expect(o.metadata.name.length).toBeLessThanOrEqual(52);
    }), { numRuns: 40 });
  });
});

type Mutation = (doc: any) => void;
const mutations: Record<string, Mutation> = {
  unknownField: (d) => (d.spec.defaults.scheduel = '@daily'),
  wrongType: (d) => (d.spec.defaults.backoffLimit = 'three'),
  badEnum: (d) => (d.spec.defaults.concurrencyPolicy = 'Never'),
  badSchedule: (d) => (d.spec.vitess.schedules[0].schedule = '0 0 * * 7'),
  tzInSchedule: (d) => (d.spec.defaults.schedule = 'CRON_TZ=UTC 0 0 * * *'),
  badTimeZone: (d) => (d.spec.defaults.timeZone = 'Local'),
  badName: (d) => (d.metadata.name = 'Upper_Case'),
  missingStorage: (d) => delete d.spec.vitess.storage,
  duplicateShard: (d) => d.spec.vitess.schedules[0].strategies.push({ ...d.spec.vitess.schedules[0].strategies[0] }),
  requiredFlag: (d) => (d.spec.vitess.extraFlags = { 'init-keyspace': 'other' }),
  negativeHistory: (d) => (d.spec.vitess.schedules[0].failedJobsHistoryLimit = -1),
  badDuration: (d) => (d.spec.defaults.timeout = '1.5h'),
  unorderedDuration: (d) => (d.spec.vitess.schedules[0].startingDeadline = '30s1m'),
};

describe('property: invalid policies', () => {
  test('always throw PolicyError naming a path, never return objects', () => {
    fc.assert(fc.property(validPolicy, fc.constantFrom(...Object.keys(mutations)), (doc, mutation) => {
      const broken = JSON.parse(JSON.stringify(doc));
      mutations[mutation](broken);
      let result: unknown;
      let error: unknown;
      try {
        result = renderPolicy(broken);
      } catch (e) {
        error = e;
      }
      expect(result).toBeUndefined();
      expect(error).toBeInstanceOf(PolicyError);
      expect((error as PolicyError).issues.length).toBeGreaterThan(0);
      for (const issue of (error as PolicyError).issues) expect(issue.path.length).toBeGreaterThan(0);
    }), { numRuns: 120 });
  });
});
