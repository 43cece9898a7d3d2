// Property: every random etcd policy (every field of spec.etcd and around it, plausible
// and adversarial values) is either refused with a PolicyError naming paths, or
// renders objects the API server accepts, deterministically. A plain Error (the
// last guard of renderResolved) fails it. With distribution openshift, the
// rendered SecurityContextConstraints admits every CronJob pod as it is
// (OpenShift's admission, test/support/scc-admission.ts: only the SELinux
// options are assigned). FUZZ_SEED reproduces a run, FUZZ_RUNS scales it,
// FUZZ_REPORT prints the ratio and the commonest rejections.
import fc from 'fast-check';
import { admitPod, asSecurityContextConstraints } from '../../../support/scc-admission';
import { resolvePodSpec } from '../../../support/run-container';
import { MIXED, OutcomeCounter, fuzzParameters, policyOf, renderOutcome } from './arbitraries';
import { at } from '../../../support/json-paths';

test('every etcd policy is refused with paths or renders valid, deterministic objects', () => {
  const counter = new OutcomeCounter();
  let withScc = 0;
  fc.assert(
    fc.property(policyOf('etcd', MIXED), (doc) => {
      const outcome = renderOutcome(doc);
      counter.count(outcome);
      if (!('accepted' in outcome)) return;
      const found = outcome.accepted.find((o) => o.kind === 'SecurityContextConstraints');
      expect(found !== undefined).toBe(at(doc, 'spec.etcd').distribution === 'openshift');
      if (!found) return;
      const scc = asSecurityContextConstraints(found);
      withScc++;
      for (const cronJob of outcome.accepted.filter((o) => o.kind === 'CronJob')) {
        const pod = resolvePodSpec(cronJob);
        const { errors, pod: admitted } = admitPod(scc, pod);
        expect({ cronJob: cronJob.metadata.name, errors }).toEqual({ cronJob: cronJob.metadata.name, errors: [] });
        expect({
          ...admitted,
          securityContext: { ...admitted.securityContext, seLinuxOptions: pod.securityContext?.seLinuxOptions },
        }).toEqual(pod);
      }
    }),
    fuzzParameters(1000),
  );
  counter.report('etcd');
  counter.expectBothOutcomes();
  // openshift is one of the generated distributions: its SCC is checked often
  expect(withScc).toBeGreaterThan(counter.accepted / 20);
}, 600_000);
