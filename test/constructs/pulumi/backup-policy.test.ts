// BackupPolicy component under Pulumi mocks: tokens, names, parenting, outputs,
// namespace override, fromFile, and validation before any registration.
import { join } from 'path';
import * as k8s from '@pulumi/kubernetes';
import { API_VERSION, KIND, PolicyError, renderPolicy } from '../../../lib';
import { asManifest, podSpecOf } from '../../support/kube';
import { canonicalJson, installMocks, parseUrn, plainInputs, registeredOutputs, settle, unwrap } from './harness';
import { policyArgs } from './fixtures';

const registered = installMocks(); // before the components are imported
beforeEach(() => installMocks(registered)); // each test is a program of its own
const load = () => import('../../../constructs/pulumi');
const doc = (args = policyArgs()) => ({ apiVersion: API_VERSION, kind: KIND, ...args });

test('registers backup-cronjobs:index:BackupPolicy with one typed child per core object, in order', async () => {
  // GIVEN
  const { BackupPolicy } = await load();
  // WHEN
  const policy = new BackupPolicy('shop', policyArgs());
  const urns = await settle(policy);
  // THEN
  expect(parseUrn(await unwrap(policy.urn))).toEqual({ types: ['backup-cronjobs:index:BackupPolicy'], name: 'shop' });
  expect(registered.find((r) => r.name === 'shop')).toMatchObject({
    type: 'backup-cronjobs:index:BackupPolicy',
    custom: false,
  });
  const expected = renderPolicy(doc());
  expect(policy.manifests).toEqual(expected);
  expect(urns.map(parseUrn)).toEqual([
    {
      types: ['backup-cronjobs:index:BackupPolicy', 'kubernetes:core/v1:ConfigMap'],
      name: `shop-configmap-${expected[0].metadata.name}`,
    },
    {
      types: ['backup-cronjobs:index:BackupPolicy', 'kubernetes:batch/v1:CronJob'],
      name: 'shop-cronjob-shop-daily-customer-x-80',
    },
    {
      types: ['backup-cronjobs:index:BackupPolicy', 'kubernetes:batch/v1:CronJob'],
      name: 'shop-cronjob-shop-daily-customer-80-x',
    },
  ]);
  const inputs = urns.map((urn) => registered.find((r) => r.name === parseUrn(urn).name)!.inputs);
  expect(inputs.map((i) => canonicalJson(plainInputs(i)))).toEqual(expected.map(canonicalJson));
});

test('children are parented to the component and never auto-named', async () => {
  const { BackupPolicy } = await load();
  // A transformation given to the component runs for the component and, through `parent`, for every child.
  const seen: { type: string; name: string; parent?: unknown }[] = [];
  const record = (a: { type: string; name: string; opts: { parent?: unknown } }) => {
    seen.push({ type: a.type, name: a.name, parent: a.opts.parent });
    return undefined;
  };
  const a = new BackupPolicy('a', policyArgs(), { transformations: [record] });
  const b = new BackupPolicy('b', { ...policyArgs(), namespace: 'other' });
  const [aUrns, bUrns] = await Promise.all([settle(a), settle(b)]);
  expect(seen.map((s) => [s.type, s.name, s.parent === a])).toEqual([
    ['backup-cronjobs:index:BackupPolicy', 'a', false],
    ['kubernetes:core/v1:ConfigMap', expect.stringMatching(/^a-configmap-shop-scripts-[0-9a-f]{10}$/), true],
    ['kubernetes:batch/v1:CronJob', 'a-cronjob-shop-daily-customer-x-80', true],
    ['kubernetes:batch/v1:CronJob', 'a-cronjob-shop-daily-customer-80-x', true],
  ]);
  // the URN of every child carries its parent's type; names are prefixed by the component name
  for (const [component, urns] of [
    ['a', aUrns],
    ['b', bUrns],
  ] as const) {
    expect(urns.map((u) => parseUrn(u).types)).toEqual(
      urns.map((_, i) => [
        'backup-cronjobs:index:BackupPolicy',
        i === 0 ? 'kubernetes:core/v1:ConfigMap' : 'kubernetes:batch/v1:CronJob',
      ]),
    );
    expect(
      urns.every((u, i) => parseUrn(u).name.startsWith(`${component}-${i === 0 ? 'configmap' : 'cronjob'}-`)),
    ).toBe(true);
  }
  // metadata.name is the core's name, set explicitly (no Pulumi auto-naming suffix)
  for (const child of [...a.cronJobs, ...b.cronJobs]) {
    expect((await unwrap(child.metadata)).name).toMatch(/^shop-daily-customer-(x-80|80-x)$/);
  }
});

test('two components rendering the same object fail at construction, naming both; on another provider they may', async () => {
  const { BackupPolicy } = await load();
  const first = new BackupPolicy('first', policyArgs());
  expect(() => new BackupPolicy('second', policyArgs())).toThrow(
    /ConfigMap db\/shop-scripts-[0-9a-f]{10} is rendered by both component backup-cronjobs:index:BackupPolicy::first and component backup-cronjobs:index:BackupPolicy::second/,
  );
  const other = new k8s.Provider('other-cluster', {});
  const third = new BackupPolicy('third', policyArgs(), { provider: other });
  await Promise.all([settle(first), settle(third)]);
});

test('cronJobNames and namespace are outputs, registered with registerOutputs', async () => {
  const { BackupPolicy } = await load();
  const policy = new BackupPolicy('outputs', policyArgs());
  await settle(policy);
  expect(await unwrap(policy.cronJobNames)).toEqual(['shop-daily-customer-x-80', 'shop-daily-customer-80-x']);
  expect(policy.cronJobs).toHaveLength(2);
  expect(policy.resources).toHaveLength(3); // the script ConfigMap and the CronJobs
  expect(await unwrap(policy.namespace)).toBe('db');
  expect(await registeredOutputs(await unwrap(policy.urn))).toEqual({
    cronJobNames: ['shop-daily-customer-x-80', 'shop-daily-customer-80-x'],
    namespace: 'db',
  });
});

test('namespace override: the objects are what the core renders for that namespace', async () => {
  const { BackupPolicy } = await load();
  const policy = new BackupPolicy('moved', { ...policyArgs(), namespace: 'other' });
  const urns = await settle(policy);
  const args = policyArgs();
  const expected = renderPolicy(doc({ ...args, metadata: { ...args.metadata, namespace: 'other' } }));
  expect(policy.manifests).toEqual(expected);
  expect(await unwrap(policy.namespace)).toBe('other');
  const inputs = urns.map((urn) => asManifest(registered.find((r) => r.name === parseUrn(urn).name)!.inputs));
  expect(inputs.map((i) => i.metadata.namespace)).toEqual(['other', 'other', 'other']);
  // the serialization group's anti-affinity term is scoped to the new namespace too
  const terms = podSpecOf(inputs[1]).affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  expect(terms?.[0].namespaces).toEqual(['other']);
  expect(JSON.stringify(inputs)).not.toContain('"db"');
});

test('fromFile loads a one-policy file, with an optional namespace override', async () => {
  const { BackupPolicy } = await load();
  const file = join(__dirname, '..', '..', '..', 'examples', 'policies', 'vitess-file-pvc.yaml');
  const policy = BackupPolicy.fromFile('from-file', file);
  const moved = BackupPolicy.fromFile('from-file-moved', file, { namespace: 'elsewhere' });
  await Promise.all([settle(policy), settle(moved)]);
  expect(await unwrap(policy.cronJobNames)).toEqual(['vitess-file-daily-commerce-x-x']);
  expect(await unwrap(policy.namespace)).toBe('vitess');
  expect(moved.manifests.map((m) => m.metadata.namespace)).toEqual(['elsewhere', 'elsewhere']);
});

test('an invalid policy throws PolicyError synchronously, names the field, and registers nothing', async () => {
  const { BackupPolicy } = await load();
  const args = policyArgs();
  const bad = { ...args, spec: { ...args.spec, defaults: { backoffLimit: -1 } } };
  let error: unknown;
  try {
    new BackupPolicy('broken', bad);
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(PolicyError);
  expect((error as Error).message).toContain('backup-cronjobs:index:BackupPolicy::broken: invalid BackupPolicy');
  expect((error as Error).message).toMatch(/spec\.defaults\.backoffLimit: received -1; must be >= 0/);
  expect(() => new BackupPolicy('broken2', { ...args, namespace: 'Not_A_Namespace' })).toThrow(/metadata\.namespace/);
  // registrations are asynchronous: let a valid component settle, then look
  const ok = new BackupPolicy('after-broken', policyArgs());
  await settle(ok);
  expect(registered.filter((r) => r.name.startsWith('broken'))).toEqual([]);
});
