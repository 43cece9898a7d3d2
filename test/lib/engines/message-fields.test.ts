// A message that names another field names it as a reference (`fieldText`, the issue's `parts`), so the
// front ends name it as their users wrote it: each problem below names other fields, and through the props
// of a cdk8s construct or a Pulumi component (withPropPaths, which both use) every one is a prop path.
import { PolicyError, renderPolicy } from '../../../lib/internal';
import type { PolicyIssue } from '../../../lib/internal';
import type { PolicyDocument } from '../../../lib/policy/types';
import { withPropPaths } from '../../../lib/engines/props';
import type { PropsLayout } from '../../../lib/engines/props';
import { ETCD_PROPS_LAYOUT, etcdSchedulePolicy } from '../../../lib/engines/etcd/props';
import { REDIS_PROPS_LAYOUT, redisSchedulePolicy } from '../../../lib/engines/redis/props';
import { VITESS_PROPS_LAYOUT, vitessSchedulePolicy } from '../../../lib/engines/vitess/props';
import { policyPathInText } from '../../support/issue-guard';
import { vitessProps } from '../../constructs/cdk8s/fixtures';

const REDIS = {
  name: 'cache',
  shards: ['shard01'],
  sentinel: { addresses: ['sentinel:26379'] },
  s3: { bucket: 'cache-backups', region: 'us-east-1' },
};
const ETCD = { name: 'etcd' };
const AGE = {
  recipients: ['age1qyqszqgpqyqszqgpqyqszqgpqyqszqgpqyqszqgpqyqszqgpqyqs3290gq'],
  image: 'alpine-age:3.20',
};

const ENGINES: Record<string, { layout: PropsLayout; policy: (props: never) => PolicyDocument }> = {
  redis: { layout: REDIS_PROPS_LAYOUT, policy: (props) => redisSchedulePolicy(props) },
  etcd: { layout: ETCD_PROPS_LAYOUT, policy: (props) => etcdSchedulePolicy(props) },
  vitess: { layout: VITESS_PROPS_LAYOUT, policy: (props) => vitessSchedulePolicy(props, 'daily') },
};

/** The problems of `props` for `engine`, in the policy and as the props' front ends report them. */
function problems(engine: string, props: object): { policy: readonly PolicyIssue[]; props: readonly PolicyIssue[] } {
  const { layout, policy } = ENGINES[engine];
  try {
    renderPolicy(policy(props as never));
  } catch (e) {
    if (!(e instanceof PolicyError)) throw e;
    return { policy: e.issues, props: withPropPaths(e, layout).issues };
  }
  throw new Error('no PolicyError thrown');
}

// [engine, props, the problem's policy path, its prop path, the message's words naming the other fields in the
// policy, and as props]
const CASES: [string, object, string, string, string[], string[]][] = [
  [
    'redis',
    { ...REDIS, metrics: { bearerTokenSecret: { name: 'token', key: 'token' } } },
    'spec.metrics.bearerTokenSecret',
    'metrics.bearerTokenSecret',
    ['set spec.metrics.pushgatewayUrl too'],
    ['set metrics.pushgatewayUrl too'],
  ],
  [
    'redis',
    { ...REDIS, metrics: { pushgatewayUrl: 'http://user:pw@pushgateway:9091' } },
    'spec.metrics.pushgatewayUrl',
    'metrics.pushgatewayUrl',
    ['a Secret named by spec.metrics.basicAuthSecret,'],
    ['a Secret named by metrics.basicAuthSecret,'],
  ],
  [
    'redis',
    { ...REDIS, encryption: { age: AGE }, drill: { schedule: '@daily' } },
    'spec.encryption.age.identitySecret',
    'encryption.age.identitySecret',
    ['required with spec.drill:'],
    ['required with drill:'],
  ],
  [
    'redis',
    {
      ...REDIS,
      copies: [
        { name: 'dr', s3: { bucket: 'dr-one', region: 'us-east-2' } },
        { name: 'dr', s3: { bucket: 'dr-two', region: 'us-west-2' } },
      ],
    },
    'spec.redis.copies[1].name',
    'copies[1].name',
    ['the name of spec.redis.copies[0] too'],
    ['the name of copies[0] too'],
  ],
  [
    'etcd',
    { ...ETCD, destination: { hostPath: { path: '/var/backups' } }, retention: { keepLast: 3, schedule: '@daily' } },
    'spec.retention.schedule',
    'retention.schedule',
    ['nodes in spec.etcd.nodes,', 'drop spec.retention.schedule ('],
    ['nodes in nodes,', 'drop retention.schedule ('],
  ],
  [
    'etcd',
    { ...ETCD, destination: { hostPath: { path: '/var/backups' } }, drill: { schedule: '@daily' } },
    'spec.drill',
    'drill',
    ['nodes in spec.etcd.nodes ('],
    ['nodes in nodes ('],
  ],
  [
    'etcd',
    { ...ETCD, controlPlaneFiles: {} },
    'spec.etcd.controlPlaneFiles',
    'controlPlaneFiles',
    [
      'without spec.encryption;',
      'allowed with spec.encryption.age,',
      'spec.etcd.controlPlaneFiles.allowUnencrypted: true',
    ],
    ['without encryption;', 'allowed with encryption.age,', 'with controlPlaneFiles.allowUnencrypted: true'],
  ],
  [
    'etcd',
    { ...ETCD, timeout: '5m', defragmentation: { schedule: '@weekly', memberTimeout: '10m' } },
    'spec.etcd.defragmentation.memberTimeout',
    'defragmentation.memberTimeout',
    ['(spec.defaults.timeout: "5m")', 'or raise spec.etcd.defragmentation.timeout'],
    ['(timeout: "5m")', 'or raise defragmentation.timeout'],
  ],
  [
    'etcd',
    { ...ETCD, defragmentation: { schedule: '@weekly', placement: { serializationGroup: { name: 'own' } } } },
    'spec.etcd.defragmentation.placement.serializationGroup',
    'defragmentation.placement.serializationGroup',
    ['or spec.defaults.placement.serializationGroup)'],
    ['or placement.serializationGroup)'],
  ],
  [
    'etcd',
    {
      ...ETCD,
      mode: 'perNode',
      nodes: [{ name: 'cp-1', placement: { serializationGroup: { name: 'own' } } }],
      defragmentation: { schedule: '@weekly' },
    },
    'spec.etcd.nodes[0].placement.serializationGroup',
    'nodes[0].placement.serializationGroup',
    ['with spec.etcd.defragmentation every snapshot'],
    ['with defragmentation every snapshot'],
  ],
  [
    'vitess',
    { ...vitessProps, strategies: [{ keyspace: 'commerce', shards: ['-', '-'] }] },
    'spec.vitess.schedules[0].strategies[0].shards[1]',
    'strategies[0].shards[1]',
    ['already listed at spec.vitess.schedules[0].strategies[0].shards[0]:'],
    ['already listed at strategies[0].shards[0]:'],
  ],
  [
    'vitess',
    { ...vitessProps, incremental: { schedule: '0 * * * *' }, vtbackupRetention: { minBackupInterval: '1h' } },
    'spec.vitess.vtbackupRetention.minBackupInterval',
    'vtbackupRetention.minBackupInterval',
    ['with incremental backups (spec.vitess.schedules[0].incremental);'],
    ['with incremental backups (incremental);'],
  ],
  [
    'vitess',
    { ...vitessProps, incremental: { schedule: '0 * * * *' }, vtbackupRetention: { minRetentionTime: '1d' } },
    'spec.vitess.vtbackupRetention.minRetentionTime',
    'vtbackupRetention.minRetentionTime',
    ['with incremental backups (spec.vitess.schedules[0].incremental);', 'prune with spec.retention,'],
    ['with incremental backups (incremental);', 'prune with retention,'],
  ],
];

describe.each(CASES)('%s: %#', (engine, props, policyPath, propPath, inPolicy, asProps) => {
  test(`the problem at ${policyPath} names the other fields as policy paths, and as props at ${propPath}`, () => {
    const found = problems(engine, props);
    const inThePolicy = found.policy.find((i) => i.path === policyPath);
    expect(found.policy.map((i) => `${i.path}: ${i.message}`)).toContainEqual(expect.stringContaining(policyPath));
    for (const words of inPolicy) expect(inThePolicy?.message).toContain(words);
    expect(inThePolicy?.parts?.some((p) => typeof p !== 'string')).toBe(true);

    const asProp = found.props.find((i) => i.path === propPath);
    for (const words of asProps) expect(asProp?.message).toContain(words);
    // no policy path left as text, but the policy field the problem is at
    expect(asProp?.message.endsWith(` (policy field ${policyPath})`)).toBe(true);
    expect(asProp?.message.slice(0, -` (policy field ${policyPath})`.length)).not.toMatch(/\bspec\./);
  });
});

test('a field no prop maps to alone keeps its policy path, as text', () => {
  const error = new PolicyError([
    {
      path: 'spec.redis.s3.bucket',
      segments: ['spec', 'redis', 's3', 'bucket'],
      message: 'see spec.redis',
      parts: ['see ', ['spec', 'redis']],
    },
  ]);
  const [issue] = withPropPaths(error, REDIS_PROPS_LAYOUT).issues;
  expect(issue).toEqual({
    path: 's3.bucket',
    segments: ['s3', 'bucket'],
    message: 'see spec.redis (policy field spec.redis.s3.bucket)',
    parts: ['see ', 'spec.redis', ' (policy field spec.redis.s3.bucket)'],
  });
});

test('the guard finds a policy path written as text, in a message or in its text parts', () => {
  const at = { path: 'spec.drill', segments: ['spec', 'drill'] };
  expect(policyPathInText({ ...at, message: 'set spec.metrics.pushgatewayUrl too' })).toBe('spec.metrics');
  expect(policyPathInText({ ...at, message: 'see metadata.labels' })).toBe('metadata.labels');
  expect(
    policyPathInText({ ...at, message: 'x spec.drill y', parts: ['x ', ['spec', 'drill'], ' y spec.retention'] }),
  ).toBe('spec.retention');
  // a referenced field, or a path of a Kubernetes object, is not one
  expect(policyPathInText({ ...at, message: 'x spec.drill', parts: ['x ', ['spec', 'drill']] })).toBeUndefined();
  expect(policyPathInText({ ...at, message: 'its spec.nodeName and spec.jobTemplate.spec' })).toBeUndefined();
});
