// Kind → class mapping of the Pulumi adapter: typed classes pass every field
// through unchanged; other kinds become CustomResources; nothing is dropped.
import * as pulumi from '@pulumi/pulumi';
import * as k8s from '@pulumi/kubernetes';
import type { Manifest } from '../../../lib';
import { canonicalJson, expectedToken, installMocks, parseUrn, plainInputs, unwrap } from './harness';

const registered = installMocks(); // before the adapter is imported
beforeEach(() => installMocks(registered)); // each test is a program of its own
const load = () => import('../../../constructs/pulumi/children');

const meta = (name: string) => ({ name, namespace: 'db', labels: { 'app.kubernetes.io/name': 'backup-cronjobs' } });
const MANIFESTS: Manifest[] = [
  {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: meta('cj'),
    spec: {
      schedule: '0 2 * * *',
      jobTemplate: {
        spec: {
          template: {
            spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox', args: ['a', 'b'] }] },
          },
        },
      },
    },
  },
  {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: meta('job'),
    spec: {
      backoffLimit: 0,
      template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } },
    },
  },
  {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: meta('pvc'),
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
  },
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta('cm'), data: { 'script.sh': 'echo hi\n' }, immutable: true },
  { apiVersion: 'v1', kind: 'Secret', metadata: meta('secret'), type: 'Opaque', stringData: { token: 'x' } },
  { apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta('sa'), automountServiceAccountToken: false },
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: meta('role'),
    rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }],
  },
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: meta('rb'),
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'role' },
    subjects: [{ kind: 'ServiceAccount', name: 'sa', namespace: 'db' }],
  },
  {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: meta('np'),
    spec: { podSelector: {}, policyTypes: ['Egress'] },
  },
  {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PrometheusRule',
    metadata: meta('rules'),
    spec: { groups: [{ name: 'backups', rules: [{ alert: 'BackupMissing', expr: 'vector(1)', for: '10m' }] }] },
  },
];

class Holder extends pulumi.ComponentResource {
  public readonly resources: pulumi.CustomResource[];
  constructor(name: string, create: (parent: pulumi.ComponentResource) => pulumi.CustomResource[]) {
    super('test:index:Holder', name, {}, {});
    this.resources = create(this);
    this.registerOutputs({});
  }
}

test('every kind becomes its typed class (CustomResource only for kinds without one), fields unchanged', async () => {
  const { checkChildren, createChildren } = await load();
  checkChildren('kinds', MANIFESTS);
  const holder = new Holder('kinds', (parent) => createChildren(parent, 'kinds', MANIFESTS));
  const urns = await Promise.all(holder.resources.map((r) => unwrap(r.urn)));
  const calls = urns.map((urn) => registered.find((r) => r.name === parseUrn(urn).name)!);
  expect(calls.map((c) => c.type)).toEqual([
    'kubernetes:batch/v1:CronJob',
    'kubernetes:batch/v1:Job',
    'kubernetes:core/v1:PersistentVolumeClaim',
    'kubernetes:core/v1:ConfigMap',
    'kubernetes:core/v1:Secret',
    'kubernetes:core/v1:ServiceAccount',
    'kubernetes:rbac.authorization.k8s.io/v1:Role',
    'kubernetes:rbac.authorization.k8s.io/v1:RoleBinding',
    'kubernetes:networking.k8s.io/v1:NetworkPolicy',
    'kubernetes:monitoring.coreos.com/v1:PrometheusRule',
  ]);
  expect(calls.map((c) => c.type)).toEqual(MANIFESTS.map((m) => expectedToken(m.apiVersion, m.kind)));
  // tokens of non-core groups are the same for a typed class and a CustomResource: check the classes too
  const classes = [
    k8s.batch.v1.CronJob,
    k8s.batch.v1.Job,
    k8s.core.v1.PersistentVolumeClaim,
    k8s.core.v1.ConfigMap,
    k8s.core.v1.Secret,
    k8s.core.v1.ServiceAccount,
    k8s.rbac.v1.Role,
    k8s.rbac.v1.RoleBinding,
    k8s.networking.v1.NetworkPolicy,
    k8s.apiextensions.CustomResource,
  ];
  holder.resources.forEach((r, i) =>
    expect([MANIFESTS[i].kind, r instanceof classes[i]]).toEqual([MANIFESTS[i].kind, true]),
  );
  expect(holder.resources.slice(0, 9).some((r) => r instanceof k8s.apiextensions.CustomResource)).toBe(false);
  expect(calls.map((c) => c.name)).toEqual(MANIFESTS.map((m) => `kinds-${m.kind.toLowerCase()}-${m.metadata.name}`));
  expect(calls.map((c) => canonicalJson(plainInputs(c.inputs)))).toEqual(MANIFESTS.map(canonicalJson));
  // the typed Secret keeps its data secret in Pulumi state
  expect(JSON.stringify(calls[4].inputs.stringData)).toContain('4dabf18193072939515e22adb298388d');
});

test("a later change to the caller's objects never reaches Pulumi", async () => {
  const { createChildren } = await load();
  const mutable = [JSON.parse(JSON.stringify(MANIFESTS[5])) as Manifest];
  const holder = new Holder('copied', (parent) => createChildren(parent, 'copied', mutable));
  (mutable[0] as unknown as { automountServiceAccountToken: boolean }).automountServiceAccountToken = true;
  const [urn] = await Promise.all(holder.resources.map((r) => unwrap(r.urn)));
  expect(registered.find((r) => r.name === parseUrn(urn).name)!.inputs.automountServiceAccountToken).toBe(false);
});

test('duplicate child names and fields a typed class would drop are refused before anything is created', async () => {
  const { checkChildren } = await load();
  expect(() => checkChildren('dup', [MANIFESTS[0], MANIFESTS[0]])).toThrow(
    'two objects would both be the Pulumi resource "dup-cronjob-cj"',
  );
  expect(() => checkChildren('extra', [{ ...MANIFESTS[0], status: {} }])).toThrow(
    'batch/v1 CronJob cj has field(s) status that the typed @pulumi/kubernetes class does not take',
  );
  expect(() => checkChildren('cr', [{ ...MANIFESTS[9], anything: { goes: true } }])).not.toThrow();
});
