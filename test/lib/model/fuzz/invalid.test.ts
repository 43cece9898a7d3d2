// Property: a policy that renders, with one known-bad change, is refused with a
// PolicyError naming paths, and nothing is returned; for every engine.
import fc from 'fast-check';
import { PolicyError, renderPolicy } from '../../../../lib';
import { EngineKey, PLAUSIBLE, fuzzParameters, policyOf } from './arbitraries';
import { Json, at, list, obj, orNew } from '../../../support/json-paths';

type Mutation = (doc: Json, engine: EngineKey) => void;

/** The first settings level below spec.defaults of each engine (a schedule, a shard, a node), made an object. */
function level(doc: Json, engine: EngineKey): Json {
  const spec = at(doc, `spec.${engine}`);
  if (engine === 'vitess') return at(spec, 'schedules.0');
  const key = engine === 'redis' ? 'shards' : 'nodes';
  if (!spec[key]) return orNew(at(doc, 'spec'), 'defaults');
  const items = list(spec[key], key);
  if (typeof items[0] === 'string') items[0] = { name: items[0] };
  return obj(items[0], `${key}[0]`);
}

const defaults = (d: Json) => orNew(at(d, 'spec'), 'defaults');
const pod = (settings: Json) => orNew(settings, 'pod');
const placement = (settings: Json) => orNew(settings, 'placement');

const COMMON: Record<string, Mutation> = {
  unknownField: (d) => (defaults(d).scheduel = '@daily'),
  wrongType: (d) => (defaults(d).backoffLimit = 'three'),
  badEnum: (d) => (defaults(d).concurrencyPolicy = 'Never'),
  badSchedule: (d, e) => (level(d, e).schedule = '0 0 * * 7'),
  tzInSchedule: (d) => (defaults(d).schedule = 'CRON_TZ=UTC 0 0 * * *'),
  badTimeZone: (d, e) => (level(d, e).timeZone = 'Local'),
  badName: (d) => (at(d, 'metadata').name = 'Upper_Case'),
  badDuration: (d) => (defaults(d).timeout = '1.5h'),
  unorderedDuration: (d, e) => (level(d, e).startingDeadline = '30s1m'),
  negativeHistory: (d, e) => (level(d, e).failedJobsHistoryLimit = -1),
  ttlBeyondInt32: (d, e) => (level(d, e).ttlAfterFinished = '99999w'),
  badLabelKey: (d) => (orNew(at(d, 'metadata'), 'labels')['-bad'] = 'x'),
  longLabelValue: (d) => (orNew(at(d, 'metadata'), 'labels').app = 'v'.repeat(64)),
  hugeAnnotations: (d) => (at(d, 'metadata').annotations = { note: 'z'.repeat(256 * 1024) }),
  badNodeSelector: (d, e) => (placement(level(d, e)).nodeSelector = { 'example.com/zone': 'a b' }),
  gtNotInteger: (d, e) =>
    (placement(level(d, e)).nodeAffinity = [{ key: 'example.com/cores', operator: 'Gt', values: ['1.5'] }]),
  inWithoutValues: (d) =>
    (placement(defaults(d)).nodeAffinity = [{ key: 'example.com/disk', operator: 'In', values: [] }]),
  tolerationSecondsWithoutNoExecute: (d) =>
    (placement(defaults(d)).tolerations = [
      { key: 'x', operator: 'Exists', effect: 'NoSchedule', tolerationSeconds: 5 },
    ]),
  badTopologyKey: (d, e) =>
    (placement(level(d, e)).podAntiAffinity = [{ labels: { app: 'db' }, topologyKey: 'bad key' }]),
  requestAboveLimit: (d, e) =>
    (pod(level(d, e)).resources = { requests: { memory: '2Gi' }, limits: { memory: '1Gi' } }),
  badResourceName: (d) => (pod(defaults(d)).resources = { requests: { 'requests.cpu': '1' } }),
  duplicateEnv: (d, e) =>
    (pod(level(d, e)).env = [
      { name: 'X', value: '1' },
      { name: 'X', value: '2' },
    ]),
  engineEnv: (d, e) => (pod(level(d, e)).env = [{ name: 'BACKUP_JOB', value: 'mine' }]), // checked on the merged settings: set where it wins
  dotDotSecretKey: (d, e) => (pod(level(d, e)).env = [{ name: 'X', secretKeyRef: { name: 's', key: '..x' } }]),
  duplicateMountPath: (d) =>
    (pod(defaults(d)).volumes = [
      { name: 'a', mountPath: '/x', emptyDir: {} },
      { name: 'b', mountPath: '/x', emptyDir: {} },
    ]),
  longPriorityClass: (d) =>
    (pod(defaults(d)).priorityClassName = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}`),
  badRetention: (d) => (at(d, 'spec').retention = { keepLast: 0 }),
  imageWithSpace: (d, e) =>
    (orNew(at(d, `spec.${e}`), 'images')[e === 'vitess' ? 'vtbackup' : e === 'redis' ? 'redis' : 'etcd'] = 'img:1 '),
};

const ENGINE: Record<EngineKey, Record<string, Mutation>> = {
  vitess: {
    missingStorage: (d) => delete at(d, 'spec.vitess').storage,
    duplicateShard: (d) =>
      list(at(d, 'spec.vitess.schedules.0').strategies, 'strategies').push({
        ...at(d, 'spec.vitess.schedules.0.strategies.0'),
      }),
    requiredFlag: (d) => (at(d, 'spec.vitess').extraFlags = { 'init-keyspace': 'other' }),
    reversedShard: (d) => (at(d, 'spec.vitess.schedules.0.strategies.0').shards = ['80-40']),
    frequencyAndSchedule: (d) =>
      Object.assign(at(d, 'spec.vitess.schedules.0'), { frequency: '6h', schedule: '@daily' }),
    badAccessModes: (d) =>
      (at(d, 'spec.vitess').scratch = { size: '1Gi', accessModes: ['ReadWriteOncePod', 'ReadWriteMany'] }),
    incrementalWithXtrabackup: (d) => {
      at(d, 'spec.vitess').backupEngine = 'xtrabackup';
      at(d, 'spec.vitess.schedules.0').incremental = { schedule: '*/15 * * * *' };
    },
    incrementalWithVtbackupPruning: (d) => {
      at(d, 'spec.vitess').vtbackupRetention = { minRetentionTime: '168h' };
      at(d, 'spec.vitess.schedules.0').incremental = { schedule: '*/15 * * * *' };
    },
  },
  redis: {
    missingS3: (d) => delete at(d, 'spec.redis').s3,
    portZero: (d) => (at(d, 'spec.redis.sentinel').addresses = ['sentinel:0']),
    duplicateShard: (d) => {
      const shards = list(at(d, 'spec.redis').shards, 'shards');
      shards.push(shards[0]);
    },
    kmsWithoutKms: (d) =>
      Object.assign(at(d, 'spec.redis.s3'), { serverSideEncryption: 'AES256', kmsKeyId: 'alias/x' }),
    sizeAndSizeLimit: (d) => (at(d, 'spec.redis').scratch = { size: '1Gi', sizeLimit: '1Gi' }),
  },
  etcd: {
    nodesInClusterMode: (d) => Object.assign(at(d, 'spec.etcd'), { mode: 'cluster', nodes: ['cp-0'] }),
    perNodeWithoutNodes: (d) => Object.assign(at(d, 'spec.etcd'), { mode: 'perNode', nodes: undefined }),
    clusterScopeOnHostPath: (d) =>
      Object.assign(at(d, 'spec.etcd'), { destination: { hostPath: {} }, retentionScope: 'cluster' }),
    foreignSnapshot: (d) => (at(d, 'spec.etcd').restore = { nodes: ['cp-0'], snapshot: 'other.db' }),
    badEndpoint: (d) => (at(d, 'spec.etcd').endpoint = 'https://127.0.0.1:2379/path'),
    backstepHostPath: (d) => (at(d, 'spec.etcd').destination = { hostPath: { path: '/var/lib/../etc' } }),
  },
};

/** The documents of `engine` that render (so that the mutation is the only problem). */
const rendering = (engine: EngineKey) =>
  policyOf(engine, PLAUSIBLE).filter((doc) => {
    try {
      renderPolicy(doc);
      return true;
    } catch (e) {
      if (e instanceof PolicyError) return false;
      throw e;
    }
  });

describe.each(['vitess', 'redis', 'etcd'] as EngineKey[])('%s', (engine) => {
  const mutations = { ...COMMON, ...ENGINE[engine] };
  test('a rendering policy with one known-bad change is refused with paths, nothing returned', () => {
    fc.assert(
      fc.property(rendering(engine), fc.constantFrom(...Object.keys(mutations)), (doc, mutation) => {
        const broken = obj(JSON.parse(JSON.stringify(doc)), 'the policy');
        mutations[mutation](broken, engine);
        let result: unknown;
        let error: unknown;
        try {
          result = renderPolicy(JSON.parse(JSON.stringify(broken)));
        } catch (e) {
          error = e;
        }
        expect({ mutation, result }).toEqual({ mutation, result: undefined });
        expect(error).toBeInstanceOf(PolicyError);
        expect((error as PolicyError).issues.length).toBeGreaterThan(0);
        for (const issue of (error as PolicyError).issues) expect(issue.path).not.toBe('');
      }),
      fuzzParameters(100),
    );
  }, 600_000);
});
