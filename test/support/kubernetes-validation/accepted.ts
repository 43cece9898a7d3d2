/**
 * The guard every object rendered in a test goes through (render-guard.ts): an object the API
 * server would refuse never leaves the package. Policy validation reports a policy's mistakes at
 * the policy's paths; reaching this is a bug in backup-cronjobs. It ran on every render in
 * production until issue 34: no policy input reaches the rules it runs beyond the policy checks
 * (ARCHITECTURE.md, "What the API server decides").
 */
import type { Manifest } from '../../../lib/kubernetes/objects';
import { CleanParts } from './clean-parts';
import { validateObject } from './object';

export function assertAccepted(o: Manifest, checked?: CleanParts): void {
  const problems = validateObject(o, checked);
  if (problems.length === 0) return;
  const list = problems.map((p) => `  ${p.path}: ${p.message}`).join('\n');
  throw new Error(
    `backup-cronjobs rendered ${o.kind} ${o.metadata.name}, which the API server would refuse (a bug: please report it with the policy):\n${list}`,
  );
}

/** `assertAccepted` on every object of one render, each part its CronJobs share checked once. */
export function assertAllAccepted(objects: readonly Manifest[]): void {
  const checked = new CleanParts();
  for (const o of objects) assertAccepted(o, checked);
}
