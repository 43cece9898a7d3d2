import fc from 'fast-check';
import { isDeepStrictEqual } from 'util';
import { compact, compactLike } from '../../../lib/kubernetes/objects';
import { renderShared } from '../../../lib/model/render';
import { resolvePolicy } from '../../../lib/model/resolve';
const { benchPolicy } = require('../../../bench/policy') as { benchPolicy: (shards: number) => unknown };

/** JSON-like values with undefined fields and empty lists, as the builders make them. */
const value = fc.letrec((tie) => ({
  leaf: fc.oneof(fc.constantFrom('a', 'b', '', 0, 1, true, false, null, undefined)),
  list: fc.array(tie('any'), { maxLength: 3 }),
  map: fc.dictionary(fc.constantFrom('x', 'y', 'z', 'w'), tie('any'), { maxKeys: 4 }),
  any: fc.oneof({ depthSize: 'small' }, tie('leaf'), tie('list'), tie('map')),
})).any;

/** Every object and array of `v`, by identity. */
function parts(v: unknown, into = new Set<object>()): Set<object> {
  if (v !== null && typeof v === 'object') {
    into.add(v);
    for (const child of Object.values(v)) parts(child, into);
  }
  return into;
}

describe('compactLike', () => {
  test('gives exactly what compact gives, whatever the earlier value, and changes neither input', () => {
    fc.assert(
      fc.property(value, value, (v, e) => {
        const earlier = compact(e);
        const [vBefore, eBefore] = [structuredClone(v), structuredClone(earlier)];
        const out = compactLike(v, earlier);
        expect(JSON.stringify(out)).toBe(JSON.stringify(compact(v)));
        expect(isDeepStrictEqual(out, compact(v))).toBe(true);
        expect(v).toStrictEqual(vBefore);
        expect(earlier).toStrictEqual(eBefore);
      }),
    );
  });

  test('a part equal to the same part of the earlier object is that part; a differing part is new', () => {
    type Doc = { spec: { volumes: { name: string; emptyDir: object }[]; env: object[]; dropped?: undefined } };
    const earlier: Doc = compact({
      spec: { volumes: [{ name: 'tmp', emptyDir: {} }], env: [{ name: 'A', value: '1' }] },
    });
    const out = compactLike(
      { spec: { volumes: [{ name: 'tmp', emptyDir: {} }], env: [{ name: 'A', value: '2' }], dropped: undefined } },
      earlier,
    );
    expect(out.spec.volumes).toBe(earlier.spec.volumes);
    expect(out.spec.env).not.toBe(earlier.spec.env);
    expect(out.spec.env[0]).not.toBe(earlier.spec.env[0]);
    expect(out).not.toBe(earlier);
    expect(out).toEqual({ spec: { volumes: [{ name: 'tmp', emptyDir: {} }], env: [{ name: 'A', value: '2' }] } });
  });

  test('keys in another order are not shared: the output keeps the order it was built in', () => {
    const earlier = compact({ m: { a: '1', b: '2' } });
    const out = compactLike({ m: { b: '2', a: '1' } }, earlier);
    expect(out.m).not.toBe(earlier.m);
    expect(Object.keys(out.m)).toEqual(['b', 'a']);
  });
});

// inside the package only: what renderPolicy and the front ends hand out is a copy (test/independent-outputs.test.ts)
describe('the internal render shares what sibling CronJobs have in common', () => {
  test('the CronJobs of two shards hold one copy of their pods’ equal parts, and differ where the shards do', () => {
    const objects = renderShared(resolvePolicy(benchPolicy(3)));
    const cronJobs = objects.filter((o) => o.kind === 'CronJob');
    expect(cronJobs).toHaveLength(3);
    type Pod = { volumes: unknown[]; containers: { env: { name: string }[]; volumeMounts: unknown[] }[] };
    const pod = (o: (typeof cronJobs)[number]) =>
      (o.spec as { jobTemplate: { spec: { template: { spec: Pod } } } }).jobTemplate.spec.template.spec;
    const [a, b] = [pod(cronJobs[0]), pod(cronJobs[1])];
    expect(b.volumes).toBe(a.volumes);
    expect(b.containers[0].volumeMounts).toBe(a.containers[0].volumeMounts);
    expect(b.containers[0].env).not.toBe(a.containers[0].env);
    const shardEnv = (p: Pod) => p.containers[0].env.find((e) => e.name === 'VITESS_SHARD');
    expect(shardEnv(b)).not.toEqual(shardEnv(a));
    // the objects are whole values nonetheless: a JSON copy is equal, and no part is shared with another policy's render
    expect(JSON.parse(JSON.stringify(objects))).toEqual(objects);
    const again = parts(renderShared(resolvePolicy(benchPolicy(3))));
    expect([...parts(objects)].filter((p) => again.has(p))).toEqual([]);
  });
});
