// Property: every random Vitess policy (every field of spec.vitess and around it, plausible
// and adversarial values) is either refused with a PolicyError naming paths, or
// renders objects the API server accepts, deterministically. A plain Error (the
// last guard of renderResolved) fails it. FUZZ_SEED reproduces a run, FUZZ_RUNS
// scales it, FUZZ_REPORT prints the ratio and the commonest rejections.
import fc from 'fast-check';
import { MIXED, OutcomeCounter, fuzzParameters, policyOf, renderOutcome } from './arbitraries';

test('every Vitess policy is refused with paths or renders valid, deterministic objects', () => {
  const counter = new OutcomeCounter();
  fc.assert(
    fc.property(policyOf('vitess', MIXED), (doc) => counter.count(renderOutcome(doc))),
    fuzzParameters(1000),
  );
  counter.report('Vitess');
  counter.expectBothOutcomes();
}, 600_000);
