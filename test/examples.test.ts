// Every example policy: snapshot of its manifests, strict schema validation, determinism.
import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';
import { loadPolicies, renderPolicy, toYaml } from '../lib';
import { abbreviateScripts } from './support/snapshots';
import { expectValidManifests, sharedSchemaAvailable } from './support/k8s-validate';
import { containersWithoutResources, podSpecOf } from './support/resources';

const dir = join(__dirname, '..', 'examples', 'policies');

const files = readdirSync(dir)
  .filter((f) => /\.ya?ml$/.test(f))
  .sort();

test('there are example policies', () => {
  expect(files.length).toBeGreaterThanOrEqual(2);
  if (process.env.CI === 'true') expect(sharedSchemaAvailable()).toBe(true);
});

describe.each(files)('%s', (file) => {
  const text = readFileSync(join(dir, file), 'utf8');
  const policies = loadPolicies(text, file);

  test('manifests match the reviewed snapshot', () => {
    for (const policy of policies)
      expect(toYaml(abbreviateScripts(renderPolicy(policy)))).toMatchSnapshot(policy.metadata.name);
  });

  test('every object validates strictly against the Kubernetes API schema', () => {
    for (const policy of policies) {
      const objects = renderPolicy(policy);
      expect(objects.length).toBeGreaterThan(0);
      expectValidManifests(objects);
    }
  });

  test('every container has cpu and memory requests and a memory limit; no pod is BestEffort', () => {
    for (const policy of policies) {
      const objects = renderPolicy(policy);
      expect(objects.some((o) => podSpecOf(o) !== undefined)).toBe(true);
      expect(containersWithoutResources(objects)).toEqual([]);
    }
  });

  test('least privilege: every container drops every capability on a read-only root filesystem; only pods with host or PVC volumes run as root', () => {
    for (const policy of policies) {
      for (const o of renderPolicy(policy)) {
        const pod = podSpecOf(o);
        if (!pod) continue;
        const id = `${o.kind}/${o.metadata.name}`;
        for (const c of [...(pod.initContainers ?? []), ...pod.containers]) {
          expect({ id, container: c.name, securityContext: c.securityContext }).toEqual({
            id,
            container: c.name,
            securityContext: {
              allowPrivilegeEscalation: false,
              capabilities: { drop: ['ALL'] },
              readOnlyRootFilesystem: true,
            },
          });
        }
        const root = pod.securityContext?.runAsUser === 0;
        const hostOrClaim = (pod.volumes ?? []).some((v) => v.hostPath || v.persistentVolumeClaim);
        expect({ id, root, runAsNonRoot: pod.securityContext?.runAsNonRoot }).toEqual({
          id,
          root: root && hostOrClaim,
          runAsNonRoot: !root,
        });
        expect({ id, seccomp: pod.securityContext?.seccompProfile }).toEqual({
          id,
          seccomp: { type: 'RuntimeDefault' },
        });
      }
    }
  });

  test('rendering is deterministic (same bytes from a fresh parse)', () => {
    const again = loadPolicies(text, file);
    expect(again.map((p) => toYaml(renderPolicy(p)))).toEqual(policies.map((p) => toYaml(renderPolicy(p))));
  });
});
