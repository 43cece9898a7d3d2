// The package's copy of the API server's rules (lib/kubernetes/validation, and the tests' oracle
// test/support/kubernetes-validation that holds the rest) against the real kube-apiserver, in both directions:
// objects rendered from the example policies, moved into one test namespace and changed to hit each rule just
// inside and just outside its boundary and with the values of the fuzz generators (differential-samples.ts). For
// each one, the package refuses when validateObject (the oracle) reports a problem, and the server refuses when
// a dry-run server-side apply (Strict field validation) fails. Every object one side refuses, the other refuses
// too, but for the disagreements listed in BEYOND_THE_SERVER with why.
import * as fs from 'fs';
import * as path from 'path';
import { Manifest, loadPolicies, renderPolicy } from '../../lib';
import { Problem, validateObject } from '../support/kubernetes-validation';
import { ApiError, KubeApi, objectPath } from './support/api';
import { testCluster } from './support/cluster';
import { Base, Editor, Sample, samples } from './differential-samples';

const ROOT = path.resolve(__dirname, '../..');
type Obj = Record<string, unknown>;

function rendered(file: string): Manifest[] {
  const text = fs.readFileSync(path.join(ROOT, 'examples/policies', file), 'utf8');
  return loadPolicies(text, file).flatMap((p) => renderPolicy(p));
}

function pick(objects: readonly Manifest[], kind: string, name?: string): Obj {
  const found = objects.find((o) => o.kind === kind && (name === undefined || o.metadata.name === name));
  if (!found) throw new Error(`no ${kind} ${name ?? ''} in the example's objects`);
  return structuredClone(found);
}

/** The objects the samples start from, in namespace `ns` (cluster-scoped ones keep none). */
function bases(ns: string): Record<Base, Obj> {
  const vitess = rendered('vitess-commerce-customer.yaml');
  const etcd = rendered('etcd-kubeadm-per-node.yaml');
  const openshift = rendered('etcd-openshift.yaml');
  const cronJob = pick(vitess, 'CronJob', 'vitess-main-nightly-commerce-x-x');
  const template = (cronJob.spec as { jobTemplate: { metadata: Obj; spec: Obj } }).jobTemplate;
  const meta = cronJob.metadata as Obj;
  const job: Obj = {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: `${String(meta.name)}-29000000`, labels: template.metadata.labels },
    spec: structuredClone(template.spec),
  };
  const all: Record<Base, Obj> = {
    cronJob,
    etcdCronJob: pick(etcd, 'CronJob', 'etcd-cp-1'),
    job,
    configMap: pick(vitess, 'ConfigMap'),
    serviceAccount: pick(openshift, 'ServiceAccount'),
    role: pick(openshift, 'Role'),
    roleBinding: pick(openshift, 'RoleBinding'),
    prometheusRule: pick(vitess, 'PrometheusRule'),
    scc: pick(openshift, 'SecurityContextConstraints'),
  };
  for (const o of Object.values(all)) {
    const m = o.metadata as Obj;
    if (m.namespace !== undefined || o.kind === 'Job') m.namespace = ns;
  }
  // A cluster-scoped object of this name may exist from another test: a dry-run apply would merge the
  // sample into it (a field the sample drops would still be there), so the SCC gets a name of its own.
  (all.scc.metadata as Obj).name = `differential-${ns}`;
  return all;
}

/** `a.b[c.d].0` → ['a', 'b', 'c.d', '0']. */
const tokens = (p: string): string[] => [...p.matchAll(/\[([^\]]*)\]|[^.[\]]+/g)].map((m) => m[1] ?? m[0]);

function editor(root: Obj): Editor {
  const walk = (p: string): [Obj, string] => {
    const t = tokens(p);
    let o = root;
    for (const k of t.slice(0, -1)) o = (o[k] ??= {}) as Obj;
    return [o, t[t.length - 1]];
  };
  return {
    get: (p) => {
      const [o, k] = walk(p);
      return o[k];
    },
    set: (p, v) => {
      const [o, k] = walk(p);
      o[k] = v;
    },
    push: (p, v) => {
      const [o, k] = walk(p);
      o[k] = [...((o[k] as unknown[] | undefined) ?? []), v];
    },
    delete: (p) => {
      const [o, k] = walk(p);
      delete o[k];
    },
  };
}

interface Verdict {
  readonly sample: Sample;
  readonly problems: readonly Problem[];
  /** The server's refusal (status and message), undefined when it accepted the object. */
  readonly refusal?: { readonly status: number; readonly message: string };
}

async function serverVerdict(api: KubeApi, o: Obj, create: boolean): Promise<Verdict['refusal']> {
  const collection = objectPath({ ...o, metadata: { ...(o.metadata as Obj), name: 'x' } }).replace(/\/x$/, '');
  try {
    if (create) await api.post(`${collection}?dryRun=All&fieldValidation=Strict&fieldManager=backup-cronjobs-test`, o);
    else await api.apply(`${collection}/${encodeURIComponent(String((o.metadata as Obj).name))}`, o, true);
    return undefined;
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    let message = e.body;
    try {
      message = (JSON.parse(e.body) as { message?: string }).message ?? e.body;
    } catch {
      /* not a Status */
    }
    return { status: e.status, message };
  }
}

async function judge(api: KubeApi, base: Record<Base, Obj>, all: readonly Sample[]): Promise<Verdict[]> {
  const verdicts: Verdict[] = new Array<Verdict>(all.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < all.length; i = next++) {
      const sample = all[i];
      const o = structuredClone(base[sample.base]);
      sample.edit(editor(o));
      const problems = validateObject(o);
      verdicts[i] = { sample, problems, refusal: await serverVerdict(api, o, sample.create === true) };
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return verdicts;
}

/**
 * Where the package refuses what this API server (v1.36.3) accepts, on purpose. A sample is listed when its rule
 * matches `rule` and its value matches `value` (all its values without one).
 */
const BEYOND_THE_SERVER: readonly { rule: RegExp; value?: RegExp; why: string }[] = [
  {
    rule: /\(spec\.jobTemplate\.metadata\.(labels|annotations)\)/,
    why: 'ours: the CronJob controller copies jobTemplate.metadata onto each Job, whose metadata validation refuses it: the CronJob is accepted and no run ever starts',
  },
  {
    rule: /^pod: image without surrounding white space$/,
    why: 'ours: the Pod validation (validateContainersOnlyForPod) refuses it, the pod template validation does not: the Job controller can never make the pod',
  },
  {
    rule: /^labels: node selector (Gt\/Lt values \(required|Gt\/Lt values \(preferred)/,
    value: /^"(9223372036854775808|1\.5|x)"$/,
    why: 'ours: the scheduler parses a Gt/Lt value as an int64; anything else never matches a node',
  },
  {
    rule: /^labels: node selector .*\(preferred/,
    why: 'ours: the label-value rule the API server applies to required node affinity (1.33+), applied to preferred terms too: another value never matches a node label',
  },
  {
    rule: /^env: env var names/,
    value: /^"(\.|\.\.|\.\.x|1X|a b|a:b|\$X)"$/,
    why: '1.28: the package holds env names to 1.28 (C-like, not ".", "..", "..*"); 1.30+ allow any printable ASCII but "=" (RelaxedEnvironmentVariableValidation)',
  },
  {
    rule: /^env: fieldRef fieldPaths \(1\.28/,
    value: /^"status\.hostIPs"$/,
    why: '1.28: status.hostIPs needs the PodHostIPs feature gate, off by default in 1.28',
  },
  {
    rule: /^pod: secret items keys/,
    value: /^"(\.\.x|\.\.\.|k{39})/,
    why: 'ours: the API server only requires an item key to be non-empty, but no Secret or ConfigMap can hold a key that is not a config key: the volume never mounts',
  },
  {
    rule: /^pod: hostPath paths/,
    value: /^"(relative|\/a\/|\/a\/\.\/b|\/a\/\/b)"$/,
    why: 'ours: a hostPath is absolute and normalized (a relative one has no meaning on the node; one spelling per directory)',
  },
  {
    rule: /^prometheus: rules \(Prometheus/,
    why: "Prometheus: its rule loader (rulefmt; prometheus-operator's admission webhook runs the same checks) refuses the group, which a plain API server with the CRD does not run",
  },
  {
    rule: /^openshift: SCC (priority|strategy types|group ranges|volumes|capabilities|privilege escalation)/,
    why: 'OpenShift: the SCC admission validation (ValidateSecurityContextConstraints) of openshift-kube-apiserver, which a plain API server with the CRD does not run',
  },
];

function beyondTheServer(v: Verdict): boolean {
  return (
    v.problems.length > 0 &&
    BEYOND_THE_SERVER.some((b) => b.rule.test(v.sample.rule) && (b.value === undefined || b.value.test(v.sample.value)))
  );
}

const row = (v: Verdict) => ({
  rule: v.sample.rule,
  base: v.sample.base,
  value: v.sample.value,
  package: v.problems.map((p) => `${p.path}: ${p.message}`).join(' | ') || 'accepts',
  server: v.refusal ? `${v.refusal.status}: ${v.refusal.message}` : 'accepts',
});

describe('the API-server rules (lib/kubernetes/validation, test/support/kubernetes-validation) against the API server, both ways', () => {
  let verdicts: Verdict[] = [];
  let ns = '';

  beforeAll(async () => {
    const cluster = await testCluster();
    ns = await cluster.createNamespace('differential');
    verdicts = await judge(cluster.api, bases(ns), samples());
    if (process.env.DIFFERENTIAL_REPORT) {
      fs.writeFileSync(process.env.DIFFERENTIAL_REPORT, JSON.stringify(verdicts.map(row), null, 1));
    }
  }, 240_000);

  test('the unchanged objects are accepted by both', async () => {
    const { api } = await testCluster();
    for (const o of Object.values(bases(ns))) {
      expect({ kind: o.kind, problems: validateObject(o) }).toEqual({ kind: o.kind, problems: [] });
      expect({ kind: o.kind, refusal: await serverVerdict(api, o, false) }).toEqual({
        kind: o.kind,
        refusal: undefined,
      });
    }
  });

  test('every object the package refuses, the server refuses', () => {
    const disagree = verdicts.filter((v) => v.problems.length > 0 && !v.refusal && !beyondTheServer(v));
    expect(disagree.map(row)).toEqual([]);
  });

  test('every object the server refuses, the package refuses', () => {
    const disagree = verdicts.filter((v) => v.refusal && v.problems.length === 0);
    expect(disagree.map(row)).toEqual([]);
  });

  test('inside a boundary both accept, outside both refuse', () => {
    const wrong = verdicts.filter(
      (v) =>
        (v.sample.side === 'inside' && (v.problems.length > 0 || v.refusal)) ||
        (v.sample.side === 'outside' && (v.problems.length === 0 || (!v.refusal && !beyondTheServer(v)))),
    );
    expect(wrong.map(row)).toEqual([]);
  });

  test('each rule beyond the API server is still needed: the server accepts a sample it refuses', () => {
    const unneeded = BEYOND_THE_SERVER.filter(
      (b) =>
        !verdicts.some(
          (v) =>
            v.problems.length > 0 &&
            !v.refusal &&
            b.rule.test(v.sample.rule) &&
            (b.value === undefined || b.value.test(v.sample.value)),
        ),
    );
    expect(unneeded.map((b) => b.why)).toEqual([]);
  });

  test('the sample reaches every rule file, on both sides', () => {
    const files = new Set(verdicts.map((v) => v.sample.rule.split(':')[0]));
    expect([...files].sort()).toEqual([
      'batch',
      'configmap',
      'env',
      'labels',
      'names',
      'object',
      'openshift',
      'pod',
      'prometheus',
      'quantity',
      'rbac',
      'resources',
      'scheduling',
      'storage',
    ]);
    expect(verdicts.filter((v) => v.refusal).length).toBeGreaterThan(100);
    expect(verdicts.filter((v) => !v.refusal).length).toBeGreaterThan(100);
  });
});
