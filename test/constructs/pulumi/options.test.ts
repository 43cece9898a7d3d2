// Resource options given to a component reach its children through `parent`.
import * as k8s from '@pulumi/kubernetes';
import { installMocks, parseUrn, settle, unwrap } from './harness';
import { policyArgs } from './fixtures';

const registered = installMocks(); // before the components are imported
beforeEach(() => installMocks(registered)); // each test is a program of its own
const load = () => import('../../../constructs/pulumi');

async function childCalls(component: Parameters<typeof settle>[0]) {
  const urns = await settle(component);
  expect(urns.length).toBeGreaterThan(0);
  return urns.map((urn) => registered.find((r) => r.name === parseUrn(urn).name)!);
}

test('a provider passed in opts.provider is used by every child', async () => {
  const { BackupPolicy, VitessBackupSchedule } = await load();
  const cluster = new k8s.Provider('cluster-a', { kubeconfig: '~/.kube/config-a' });
  const providerRef = `${await unwrap(cluster.urn)}::${await unwrap(cluster.id)}`;
  const policy = new BackupPolicy('with-provider', policyArgs(), { provider: cluster });
  // another policy name than the BackupPolicy's: one name in one namespace renders one script ConfigMap name
  const schedule = new VitessBackupSchedule(
    'nightly',
    {
      name: 'shop-nightly',
      namespace: 'db',
      cluster: 'shop',
      topology: { globalServerAddress: 'shop-etcd-client.db.svc:2379' },
      vtctldServer: 'shop-vtctld.db.svc:15999',
      storage: { s3: { region: 'us-east-1', bucket: 'shop-backups' } },
      schedule: '0 3 * * *',
      strategies: [{ keyspace: 'commerce', shards: ['-'] }],
    },
    { provider: cluster },
  );
  for (const call of [...(await childCalls(policy)), ...(await childCalls(schedule))]) {
    expect(call.provider).toBe(providerRef);
  }
  expect(providerRef).toMatch(/^urn:pulumi:stack::project::pulumi:providers:kubernetes::cluster-a::/);
});

test('a provider passed in opts.providers is used by every child', async () => {
  const { BackupPolicy } = await load();
  const cluster = new k8s.Provider('cluster-b', { kubeconfig: '~/.kube/config-b' });
  const providerRef = `${await unwrap(cluster.urn)}::${await unwrap(cluster.id)}`;
  const policy = new BackupPolicy('with-providers', policyArgs(), { providers: [cluster] });
  for (const call of await childCalls(policy)) expect(call.provider).toBe(providerRef);
});

test('without a provider, children pin no provider (the default kubernetes provider applies)', async () => {
  const { BackupPolicy } = await load();
  const policy = new BackupPolicy('default-provider', policyArgs());
  for (const call of await childCalls(policy)) expect(call.provider).toBe('');
});
