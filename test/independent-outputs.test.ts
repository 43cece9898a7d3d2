// Outputs a user may change (issue 34): every object that `renderPolicy`, the cdk8s constructs' `manifests` and
// the Pulumi components' `manifests` return is the caller's. Changing any part of one changes no other object of
// the render, no object of another render, nothing cdk8s synthesizes and no Pulumi child's args. Inside the
// package sibling CronJobs share their identical parts (`compactLike`); what leaves it is a copy.
import { Chart, Testing } from 'cdk8s';
import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';
import { canonicalJson, installMocks, plainInputs, settle } from './constructs/pulumi/harness';
import { loadPolicies, renderPolicy } from '../lib';
import type { Manifest } from '../lib';
import * as cdk8s from '../constructs/cdk8s';
import { etcdProps, redisProps, vitessProps } from './constructs/cdk8s/fixtures';
import { podSpecOf } from './support/kube';

const registered = installMocks(); // before the Pulumi components are imported
const pulumiModule = () => import('../constructs/pulumi');

const dir = join(__dirname, '..', 'examples', 'policies');
type BackupPolicyDocument = ReturnType<typeof loadPolicies>[number];
const files = readdirSync(dir)
  .filter((f) => /\.ya?ml$/.test(f))
  .sort();
const policiesOf = (file: string): BackupPolicyDocument[] => {
  const path = join(dir, file);
  return loadPolicies(readFileSync(path, 'utf8'), path);
};

/** A container of a rendered object: a JSON object or array. */
type Part = Record<string, unknown> | unknown[];
const isPart = (v: unknown): v is Part => v !== null && typeof v === 'object';

/** Every object and array of `roots` with the path it was first reached at; `shared`: the paths that reach one a second time. */
function walk(roots: readonly unknown[]): { parts: Part[]; shared: string[] } {
  const firstPath = new Map<Part, string>();
  const shared: string[] = [];
  const visit = (v: unknown, path: string): void => {
    if (!isPart(v)) return;
    const seen = firstPath.get(v);
    if (seen !== undefined) {
      shared.push(`${path} is ${seen}`);
      return;
    }
    firstPath.set(v, path);
    if (Array.isArray(v)) v.forEach((x, i) => visit(x, `${path}[${i}]`));
    else for (const [k, x] of Object.entries(v)) visit(x, `${path}.${k}`);
  };
  roots.forEach((r, i) => visit(r, `[${i}]`));
  return { parts: [...firstPath.keys()], shared };
}

const changed = (v: unknown): unknown =>
  typeof v === 'string' ? `${v}-changed` : typeof v === 'number' ? v + 1 : typeof v === 'boolean' ? !v : 'changed';

/**
 * Changes every part of `root` in place: each leaf (a string gets a suffix, a number 1 more, a boolean its
 * negation, null a string), each object a new key, each array a new item. Returns how many parts it changed.
 */
function changeEveryPart(root: unknown): number {
  let n = 0;
  for (const part of walk([root]).parts) {
    if (Array.isArray(part)) {
      part.forEach((v, i) => {
        if (isPart(v)) return;
        part[i] = changed(v);
        n++;
      });
      part.push('added');
    } else {
      for (const [k, v] of Object.entries(part)) {
        if (isPart(v)) continue;
        part[k] = changed(v);
        n++;
      }
      part['example.com/added'] = 'added';
    }
    n++;
  }
  return n;
}

/** A front end's objects for the policies of a file: a fresh render each call. */
type Render = () => Promise<readonly Manifest[]>;

type PulumiModule = Awaited<ReturnType<typeof pulumiModule>>;
type Component = InstanceType<PulumiModule['BackupPolicy']>;

/** The Pulumi components `make` builds, in a program of their own (the same names in each: a program claims its objects). */
async function pulumiComponents(make: (name: string, module: PulumiModule) => Component[]): Promise<Component[]> {
  installMocks(registered);
  return make('independent', await pulumiModule());
}

/** The components' manifests, read at once, returned once every child is registered. */
async function settledManifests(components: readonly Component[]): Promise<Manifest[]> {
  const manifests = components.flatMap((c) => c.manifests);
  await Promise.all(components.map((c) => settle(c)));
  return manifests;
}

function frontEnds(policies: readonly BackupPolicyDocument[]): [string, Render][] {
  return [
    ['renderPolicy', () => Promise.resolve(policies.flatMap((p) => renderPolicy(p)))],
    [
      'cdk8s manifests',
      () => {
        const app = Testing.app();
        const constructs = policies.map((p) => new cdk8s.BackupPolicy(new Chart(app, p.metadata.name), 'policy', p));
        return Promise.resolve(constructs.flatMap((c) => c.manifests));
      },
    ],
    [
      'Pulumi manifests',
      async () =>
        settledManifests(
          await pulumiComponents((name, { BackupPolicy }) =>
            policies.map((p, i) => new BackupPolicy(`${name}-${i}`, p)),
          ),
        ),
    ],
  ];
}

/** The objects of `render` that differ from `reference` (JSON, in order), by index, leaving out `except`. */
function differing(objects: readonly Manifest[], reference: readonly string[], except: number): string[] {
  return objects.flatMap((o, j) =>
    j !== except && JSON.stringify(o) !== reference[j] ? [`${o.kind} ${o.metadata.name}`] : [],
  );
}

test('there are example policies of every engine', () => {
  const engines = new Set(files.flatMap((f) => policiesOf(f).flatMap((p) => Object.keys(p.spec))));
  expect(files.length).toBeGreaterThanOrEqual(3);
  for (const engine of ['vitess', 'redis', 'etcd']) expect(engines).toContain(engine);
});

test('the walk finds a shared part, and changing every part changes every leaf', () => {
  const leaf = { a: ['x'] };
  const { shared } = walk([{ p: leaf }, { q: [leaf] }]);
  expect(shared).toEqual(['[1].q[0] is [0].p']);
  const o = { s: 'v', n: 1, b: false, z: null, l: ['w', { m: 'x' }] };
  expect(changeEveryPart(o)).toBe(9); // 6 leaves, 3 containers
  expect(o).toEqual({
    s: 'v-changed',
    n: 2,
    b: true,
    z: 'changed',
    l: ['w-changed', { m: 'x-changed', 'example.com/added': 'added' }, 'added'],
    'example.com/added': 'added',
  });
});

test("the issue's case: runAsUser = 0 on shard01's pod leaves shard02's pod as it was", () => {
  const [policy] = policiesOf('redis-sharded.yaml');
  const objects = renderPolicy(policy);
  const cronJob = (shard: string) => objects.find((o) => o.kind === 'CronJob' && o.metadata.name.endsWith(shard))!;
  const before = JSON.stringify(cronJob('shard02'));
  const securityContext = podSpecOf(cronJob('shard01')).securityContext;
  expect(securityContext).toBeDefined();
  securityContext!.runAsUser = 0;
  expect(podSpecOf(cronJob('shard01')).securityContext?.runAsUser).toBe(0);
  expect(JSON.stringify(cronJob('shard02'))).toBe(before);
});

describe.each(files)('%s', (file) => {
  const policies = policiesOf(file);
  const reference = policies.flatMap((p) => renderPolicy(p)).map((o) => JSON.stringify(o));

  describe.each(frontEnds(policies))('%s', (_, render) => {
    test('the objects of one render, and of two renders, share no part', async () => {
      const [a, b] = [await render(), await render()];
      expect(a.map((o) => JSON.stringify(o))).toEqual(reference);
      expect(walk(a).shared).toEqual([]);
      expect(walk([...a, ...b]).shared).toEqual([]);
    });

    test('changing every part of one object changes no other object, nor the next render', async () => {
      const count = (await render()).length;
      expect(count).toBeGreaterThan(0);
      for (let i = 0; i < count; i++) {
        const objects = await render();
        expect(changeEveryPart(objects[i])).toBeGreaterThan(10);
        expect(JSON.stringify(objects[i])).not.toBe(reference[i]);
        expect(differing(objects, reference, i)).toEqual([]);
      }
      expect((await render()).map((o) => JSON.stringify(o))).toEqual(reference);
    });
  });

  test('cdk8s: changing every part of every manifest changes nothing the chart synthesizes', () => {
    const synth = (change: boolean) => {
      const app = Testing.app();
      const charts = policies.map((p) => {
        const chart = new Chart(app, p.metadata.name);
        const construct = new cdk8s.BackupPolicy(chart, 'policy', p);
        if (change) for (const m of construct.manifests) changeEveryPart(m);
        // the caller's copy: each read returns the same, changed objects
        if (change) expect(construct.manifests).toBe(construct.manifests);
        return chart;
      });
      return charts.flatMap((c): unknown[] => Testing.synth(c));
    };
    expect(synth(true)).toEqual(synth(false));
  });

  test("Pulumi: changing every part of every manifest after construction reaches no child's args", async () => {
    const components = await pulumiComponents((name, { BackupPolicy }) =>
      policies.map((p, i) => new BackupPolicy(`${name}-${i}`, p)),
    );
    for (const c of components) for (const m of c.manifests) changeEveryPart(m);
    const urns = (await Promise.all(components.map((c) => settle(c)))).flat();
    expect(urns.length).toBe(reference.length);
    const inputs = urns.map((urn) => registered.find((r) => urn.endsWith(`::${r.name}`))!.inputs);
    expect(inputs.map((i) => canonicalJson(plainInputs(i)))).toEqual(
      reference.map((r) => canonicalJson(JSON.parse(r) as unknown)),
    );
  });
});

describe('the engine schedule classes', () => {
  const rows = [
    ['RedisBackupSchedule', redisProps],
    ['VitessBackupSchedule', vitessProps],
    ['EtcdBackupSchedule', etcdProps],
  ] as const;

  test.each(rows)(
    '%s: cdk8s and Pulumi manifests share no part, and changing one changes no other',
    async (type, props) => {
      const cdk8sRender = () => new cdk8s[type](new Chart(Testing.app(), 'chart'), 'nightly', props as never).manifests;
      const pulumiRender = async () =>
        settledManifests(await pulumiComponents((name, module) => [new module[type](name, props as never)]));
      for (const render of [() => Promise.resolve(cdk8sRender()), pulumiRender]) {
        const first = await render();
        const reference = first.map((o) => JSON.stringify(o));
        expect(walk([...first, ...(await render())]).shared).toEqual([]);
        for (let i = 0; i < reference.length; i++) {
          const objects = await render();
          changeEveryPart(objects[i]);
          expect(differing(objects, reference, i)).toEqual([]);
        }
      }
    },
  );
});
