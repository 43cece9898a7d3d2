// Acceptance, decided by the API server: every object of every example policy, of every policy the
// docs show (that the package accepts), and of at least 200 random policies the fuzz generators make
// is created by server-side apply (Strict field validation) on the real kube-apiserver, and
// accepted. FUZZ_SEED reproduces the random sample.
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import fc from 'fast-check';
import { parseAllDocuments } from 'yaml';
import { Manifest, PolicyError, loadPolicies, renderPolicy } from '../../lib';
import { codeBlocks, markdownFiles } from '../support/markdown';
import { MIXED, EngineKey, policyOf } from '../lib/model/fuzz/arbitraries';
import { applyObjects } from './support/apply';
import { testCluster } from './support/cluster';

const ROOT = path.resolve(__dirname, '../..');

/**
 * The policy moved into a namespace of this test's own (one per namespace it names): other test files apply
 * other objects of the same names into the namespaces the docs use (the README's app into redis), at the same time.
 */
function ownNamespace(doc: unknown): unknown {
  const policy = doc as { metadata?: { namespace?: string } };
  const hash = crypto
    .createHash('sha256')
    .update(policy.metadata?.namespace ?? 'default')
    .digest('hex');
  return { ...policy, metadata: { ...policy.metadata, namespace: `acceptance-${hash.slice(0, 10)}` } };
}

function examplePolicies(): { source: string; objects: Manifest[] }[] {
  const dir = path.join(ROOT, 'examples/policies');
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .flatMap((f) =>
      loadPolicies(fs.readFileSync(path.join(dir, f), 'utf8'), f).map((p) => ({
        source: f,
        objects: renderPolicy(ownNamespace(p)),
      })),
    );
}

/** The BackupPolicy documents of the docs' YAML blocks that the package renders (the others show a refusal). */
function docsPolicies(): { source: string; objects: Manifest[] }[] {
  const out: { source: string; objects: Manifest[] }[] = [];
  for (const file of markdownFiles(ROOT)) {
    for (const block of codeBlocks(fs.readFileSync(path.join(ROOT, file), 'utf8'), file)) {
      if (!/^ya?ml$/.test(block.language) || !/kind:\s*BackupPolicy/.test(block.text)) continue;
      for (const doc of parseAllDocuments(block.text)) {
        const value: unknown = doc.errors.length ? undefined : doc.toJSON();
        if ((value as { kind?: unknown } | undefined)?.kind !== 'BackupPolicy') continue;
        try {
          out.push({ source: `${file}:${block.line}`, objects: renderPolicy(ownNamespace(value)) });
        } catch (e) {
          if (!(e instanceof PolicyError)) throw e;
        }
      }
    }
  }
  return out;
}

/** At least `perEngine` accepted random policies of each engine, from the fuzz generators (mixed pools). */
function fuzzPolicies(perEngine: number): { source: string; objects: Manifest[] }[] {
  const seed = process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : 20261204;
  const out: { source: string; objects: Manifest[] }[] = [];
  for (const engine of ['etcd', 'redis', 'vitess'] as EngineKey[]) {
    let accepted = 0;
    let drawn = 0;
    for (const doc of fc.sample(policyOf(engine, MIXED), { numRuns: perEngine * 8, seed })) {
      drawn++;
      try {
        out.push({ source: `${engine} #${drawn} (seed ${seed})`, objects: renderPolicy(ownNamespace(doc)) });
      } catch (e) {
        if (!(e instanceof PolicyError)) throw e;
        continue;
      }
      if (++accepted === perEngine) break;
    }
    expect({ engine, accepted }).toEqual({ engine, accepted: perEngine });
  }
  return out;
}

describe('the API server accepts every object the package renders', () => {
  test.each([
    ['every example policy', examplePolicies],
    ['every policy in the docs', docsPolicies],
  ])(
    '%s',
    async (_what, policies) => {
      const { api } = await testCluster();
      const all = policies();
      expect(all.length).toBeGreaterThan(4);
      const refused = [];
      const conflicts = [];
      let objects = 0;
      for (const p of all) {
        objects += p.objects.length;
        for (const r of await applyObjects(api, p.objects)) refused.push({ source: p.source, ...r });
        // The objects are what the server stores: a second field manager (a GitOps tool taking over
        // from kubectl) applying the same manifests, without forcing, meets no conflict.
        for (const r of await applyObjects(api, p.objects, { fieldManager: 'gitops-takeover', force: false }))
          conflicts.push({ source: p.source, ...r });
      }
      expect(refused).toEqual([]);
      expect(conflicts).toEqual([]);
      expect(objects).toBeGreaterThan(all.length);
    },
    300_000,
  );

  test('at least 200 random policies of the fuzz generators', async () => {
    const { api } = await testCluster();
    const all = fuzzPolicies(70);
    expect(all.length).toBeGreaterThanOrEqual(200);
    const refused = [];
    const kinds = new Map<string, number>();
    for (const p of all) {
      for (const o of p.objects) kinds.set(o.kind, (kinds.get(o.kind) ?? 0) + 1);
      for (const r of await applyObjects(api, p.objects)) refused.push({ source: p.source, ...r });
    }
    expect(refused).toEqual([]);
    // The sample reaches beyond the CronJobs: the scripts' ConfigMaps and the engines' RBAC and rules.
    expect([...kinds.keys()].sort()).toEqual(expect.arrayContaining(['ConfigMap', 'CronJob']));
  }, 900_000);
});
