// Admission and authorization, judged by the real API server: Pod Security admission on the pods the
// real Job controller creates, and RBAC on the ServiceAccount, Role and RoleBinding the engines emit.
import { Manifest } from '../../lib';
import { KubeApi } from './support/api';
import { applyObjects } from './support/apply';
import { testCluster } from './support/cluster';
import { cronJobsOf, examplePolicy, render, jobFrom } from './support/policies';
import { until } from './support/wait';

const ENFORCE = 'pod-security.kubernetes.io/enforce';

let api: KubeApi;

beforeAll(async () => {
  api = (await testCluster()).api;
});

/** A Job of each CronJob's template (as `kubectl create job --from=cronjob/…`). */
function jobsFrom(objects: readonly Manifest[]): Manifest[] {
  return cronJobsOf(objects).map((cj) => jobFrom(cj, `${cj.metadata.name}-manual`));
}

/** Each Job's outcome at the pod level: its pod was created, or the Job controller's FailedCreate message. */
async function podCreation(ns: string, jobs: readonly Manifest[]): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const job of jobs) {
    const name = job.metadata.name;
    out[name] = await until(
      `the Job controller creates ${name}'s pod, or reports why not`,
      async () => {
        const pods = await api.list(`/api/v1/namespaces/${ns}/pods?labelSelector=batch.kubernetes.io/job-name=${name}`);
        if (pods.length) return 'created';
        const events = await api.list<{ reason: string; message: string; involvedObject: { name: string } }>(
          `/api/v1/namespaces/${ns}/events`,
        );
        const failed = events.find((e) => e.involvedObject.name === name && e.reason === 'FailedCreate');
        return failed ? `refused: ${failed.message}` : undefined;
      },
      60_000,
    );
  }
  return out;
}

async function runIn(level: string, objects: (ns: string) => Manifest[]): Promise<Record<string, string>> {
  const ns = await (
    await testCluster()
  ).createNamespace(`psa-${level}`, { [ENFORCE]: level, [`${ENFORCE}-version`]: 'latest' });
  const rendered = objects(ns);
  const jobs = jobsFrom(rendered);
  expect(await applyObjects(api, [...rendered.filter((o) => o.kind !== 'CronJob'), ...jobs])).toEqual([]);
  return podCreation(ns, jobs);
}

const backupsOnly = (objects: Manifest[]): Manifest[] =>
  objects.filter((o) => o.kind !== 'CronJob' || o.metadata.labels?.['app.kubernetes.io/component'] === 'backup');

describe('Pod Security admission', () => {
  test('a restricted namespace admits the Redis and Vitess pods of real Jobs', async () => {
    const redis = await runIn('restricted', (ns) => render(examplePolicy('redis-sharded.yaml', ns)));
    const vitess = await runIn('restricted', (ns) =>
      backupsOnly(render(examplePolicy('vitess-commerce-customer.yaml', ns))),
    );
    const outcomes = { ...redis, ...vitess };
    expect(Object.keys(outcomes).length).toBeGreaterThanOrEqual(5);
    expect(Object.values(outcomes).filter((o) => o !== 'created')).toEqual([]);
  }, 300_000);

  test('the etcd pods need the privileged level the docs name, and are refused below it', async () => {
    const etcd = (ns: string): Manifest[] => backupsOnly(render(examplePolicy('etcd-kubeadm-per-node.yaml', ns)));
    const privileged = await runIn('privileged', etcd);
    expect(Object.values(privileged)).toEqual(['created', 'created', 'created']);
    for (const level of ['baseline', 'restricted']) {
      const below = Object.values(await runIn(level, etcd));
      expect(below).toHaveLength(3);
      for (const outcome of below) {
        // hostNetwork and the hostPath volumes are what baseline forbids (restricted adds runAsNonRoot).
        expect(outcome).toMatch(
          new RegExp(
            `^refused: .*violates PodSecurity "${level}:latest": host namespaces \\(hostNetwork=true\\), ` +
              `(hostPath volumes|restricted volume types) \\(volumes "etcd-certs", "backup"`,
          ),
        );
      }
    }
  }, 300_000);
});

describe('RBAC of the OpenShift distribution', () => {
  test('the ServiceAccount may use its SecurityContextConstraints and nothing else', async () => {
    const cluster = await testCluster();
    const ns = await cluster.createNamespace('rbac');
    const objects = render(examplePolicy('etcd-openshift.yaml', ns));
    expect(await applyObjects(api, objects)).toEqual([]);
    const sa = objects.find((o) => o.kind === 'ServiceAccount')!.metadata.name;
    const scc = objects.find((o) => o.kind === 'SecurityContextConstraints')!.metadata.name;
    // Every pod of the policy runs as that ServiceAccount.
    for (const cj of cronJobsOf(objects)) {
      const pod = (
        cj as unknown as { spec: { jobTemplate: { spec: { template: { spec: { serviceAccountName?: string } } } } } }
      ).spec.jobTemplate.spec.template.spec;
      expect({ cronJob: cj.metadata.name, serviceAccount: pod.serviceAccountName }).toEqual({
        cronJob: cj.metadata.name,
        serviceAccount: sa,
      });
    }
    const canI = async (...args: string[]): Promise<string> => {
      const r = await cluster.kubectlRaw([
        'auth',
        'can-i',
        ...args,
        '-n',
        ns,
        `--as=system:serviceaccount:${ns}:${sa}`,
      ]);
      return r.stdout.toString().trim();
    };
    // The one verb the pods need (OpenShift's SCC admission asks it); the scripts never call the API.
    expect(await canI('use', `securitycontextconstraints.security.openshift.io/${scc}`)).toBe('yes');
    // Nothing wider: not another SCC, not the SCCs at large, no API objects of the namespace.
    expect(await canI('use', 'securitycontextconstraints.security.openshift.io/privileged')).toBe('no');
    expect(await canI('use', 'securitycontextconstraints.security.openshift.io')).toBe('no');
    expect(await canI('get', `securitycontextconstraints.security.openshift.io/${scc}`)).toBe('no');
    expect(await canI('get', 'secrets')).toBe('no');
    expect(await canI('create', 'pods')).toBe('no');
    expect(await canI('list', 'configmaps')).toBe('no');
  }, 120_000);
});
