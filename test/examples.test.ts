// Every example policy: snapshot of its manifests, strict schema validation, determinism.
import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';
import { createHash } from 'crypto';
import { loadPolicies, renderPolicy, toYaml } from '../lib';
import { SCRIPT_HEADER } from '../lib/scripts';
import { expectValidManifests, sharedSchemaAvailable } from './support/k8s-validate';

const dir = join(__dirname, '..', 'examples', 'policies');

/**
 * The embedded container scripts are reviewed as the .sh files in lib/scripts; in the snapshots each
 * one is a line naming its hash and size, so a script change still changes the snapshot but the
 * reviewable part is the manifest around it.
 */
function abbreviateScripts<T>(value: T): T {
  if (typeof value === 'string' && value.startsWith(SCRIPT_HEADER)) {
    const hash = createHash('sha256').update(value).digest('hex').slice(0, 12);
    return `<embedded script sha256:${hash}, ${value.split('\n').length} lines>` as T;
  }
  if (Array.isArray(value)) return value.map(abbreviateScripts) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, abbreviateScripts(v)])) as T;
  }
  return value;
}
const files = readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).sort();

test('there are example policies', () => {
  expect(files.length).toBeGreaterThanOrEqual(2);
  if (process.env.CI === 'true') expect(sharedSchemaAvailable()).toBe(true);
});

describe.each(files)('%s', (file) => {
  const text = readFileSync(join(dir, file), 'utf8');
  const policies = loadPolicies(text, file);

  test('manifests match the reviewed snapshot', () => {
    for (const policy of policies) expect(toYaml(abbreviateScripts(renderPolicy(policy)))).toMatchSnapshot(policy.metadata.name);
  });

  test('every object validates strictly against the Kubernetes API schema', () => {
    for (const policy of policies) {
      const objects = renderPolicy(policy);
      expect(objects.length).toBeGreaterThan(0);
      expectValidManifests(objects);
    }
  });

  test('rendering is deterministic (same bytes from a fresh parse)', () => {
    const again = loadPolicies(text, file);
    expect(again.map((p) => toYaml(renderPolicy(p)))).toEqual(policies.map((p) => toYaml(renderPolicy(p))));
  });
});
