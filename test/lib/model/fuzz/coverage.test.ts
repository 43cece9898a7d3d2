// The generators of this folder reach every field of the policy schema, for every engine.
import fc from 'fast-check';
import { policySchema } from '../../../../lib';
import { engineDefinition } from '../../../../lib/registry';
import { JsonSchema } from '../../../support/json-schema';
import { EngineKey, MIXED, policyOf } from './arbitraries';

/** Field paths of a schema (array items `[]`, map values `{}`), the engine sections other than `engine` and the features `engine` refuses left out. */
function schemaPaths(node: JsonSchema, at: string, engine: EngineKey, out: Set<string>): Set<string> {
  if (at) out.add(at);
  for (const [key, child] of Object.entries(node.properties ?? {})) {
    const path = at ? `${at}.${key}` : key;
    if (['spec.vitess', 'spec.redis', 'spec.etcd'].includes(path) && path !== `spec.${engine}`) continue;
    if (
      (path === 'spec.encryption' || path === 'spec.drill' || path === 'spec.contentChecks') &&
      engineDefinition(engine)[key as 'encryption' | 'drill' | 'contentChecks'] !== true
    )
      continue;
    schemaPaths(child, path, engine, out);
  }
  if (node.items) schemaPaths(node.items, `${at}[]`, engine, out);
  if (typeof node.additionalProperties === 'object') schemaPaths(node.additionalProperties, `${at}{}`, engine, out);
  return out;
}

/** Field paths a document sets, folded like schemaPaths (a key of a map is `{}`). */
function documentPaths(value: unknown, at: string, maps: ReadonlySet<string>, out: Set<string>): void {
  if (at) out.add(at);
  if (Array.isArray(value)) value.forEach((v) => documentPaths(v, `${at}[]`, maps, out));
  else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value))
      documentPaths(v, maps.has(at) ? `${at}{}` : at ? `${at}.${k}` : k, maps, out);
  }
}

test.each(['vitess', 'redis', 'etcd'] as EngineKey[])('the %s generator sets every field of the schema', (engine) => {
  const fields = schemaPaths(policySchema, '', engine, new Set());
  const maps = new Set([...fields].filter((p) => fields.has(`${p}{}`)));
  const reached = new Set<string>();
  for (const doc of fc.sample(policyOf(engine, MIXED), { numRuns: 1000, seed: 1 }))
    documentPaths(doc, '', maps, reached);
  expect([...fields].filter((f) => !reached.has(f))).toEqual([]);
});
