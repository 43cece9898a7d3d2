/**
 * The API server's own rules (lib/kubernetes/validation) applied to the policy
 * fields that reach an object unchanged: reported at the policy's field paths,
 * before anything is rendered.
 */
import {
  Problem,
  annotationKeyProblem,
  annotationsSizeProblem,
  labelValueProblem,
  nodePinProblem,
  qualifiedNameProblem,
  resourceRequirementsProblems,
  tolerationKeyProblem,
  tolerationValueProblem,
  topologyKeyProblem,
} from '../kubernetes/validation';
import { IssueList, childPath } from './errors';
import type { Placement, PodOptions } from './types';
import { nodeRequirementOperator, tolerationOperator } from './defaults';

/** The node label that pins a pod to one node. */
const HOSTNAME_LABEL = 'kubernetes.io/hostname';

/** A problem path of the validation module (`requests[memory]`, `[0].key`) under a policy path. */
export function policyPath(base: string, relative: string): string {
  let path = base;
  const token = /\.?([^.[\]]+)|\[([^\]]*)\]/g;
  for (const m of relative.matchAll(token)) {
    if (m[1] !== undefined) path = childPath(path, m[1]);
    else path = childPath(path, /^[0-9]+$/.test(m[2]) ? Number(m[2]) : m[2]);
  }
  return path;
}

function addAll(problems: readonly Problem[], base: string, issues: IssueList): void {
  for (const p of problems) issues.add(policyPath(base, p.path), p.message);
}

/** Label keys (qualified names) and values of a map that becomes labels or a selector. */
export function checkLabels(
  labels: Readonly<Record<string, string>> | undefined,
  path: string,
  issues: IssueList,
): void {
  for (const key in labels) {
    const value = labels[key];
    const keyProblem = qualifiedNameProblem(key);
    const valueProblem = typeof value === 'string' ? labelValueProblem(value) : undefined;
    if (keyProblem === undefined && valueProblem === undefined) continue; // the path only for a problem
    const at = childPath(path, key);
    if (keyProblem) issues.add(at, `the key: ${keyProblem}`);
    issues.addProblem(at, valueProblem);
  }
}

/** Annotation keys, and the total size of the annotations one object gets (`with`: the others it carries too). */
export function checkAnnotations(
  annotations: Readonly<Record<string, string>> | undefined,
  path: string,
  issues: IssueList,
  with_: Readonly<Record<string, string>> = {},
): void {
  if (!annotations) return;
  for (const key of Object.keys(annotations)) {
    const problem = annotationKeyProblem(key);
    if (problem) issues.add(childPath(path, key), `the key: ${problem}`);
  }
  issues.addProblem(path, annotationsSizeProblem({ ...with_, ...annotations }));
}

/** Placement: selector and affinity keys and values, tolerations, topology keys. */
export function checkPlacement(placement: Placement, path: string, issues: IssueList): void {
  checkLabels(placement.nodeSelector, childPath(path, 'nodeSelector'), issues);
  const pinned = placement.nodeSelector?.[HOSTNAME_LABEL];
  if (pinned !== undefined && labelValueProblem(pinned) === undefined) {
    issues.addProblem(childPath(childPath(path, 'nodeSelector'), HOSTNAME_LABEL), nodePinProblem(pinned));
  }
  placement.nodeAffinity?.forEach((r, i) => {
    const at = childPath(childPath(path, 'nodeAffinity'), i);
    const keyProblem = qualifiedNameProblem(r.key);
    if (keyProblem) issues.add(childPath(at, 'key'), keyProblem);
    const op = nodeRequirementOperator(r);
    // every value, Gt and Lt thresholds too, is compared with node label values: a label value itself
    const pin = r.key === HOSTNAME_LABEL && (op === 'In' || op === 'NotIn');
    r.values?.forEach((v, j) =>
      issues.addProblem(childPath(childPath(at, 'values'), j), pin ? nodePinProblem(v) : labelValueProblem(v)),
    );
  });
  placement.tolerations?.forEach((t, i) => {
    const at = childPath(childPath(path, 'tolerations'), i);
    const op = tolerationOperator(t);
    if (t.key) issues.addProblem(childPath(at, 'key'), tolerationKeyProblem(t.key, op));
    if (t.value !== undefined) issues.addProblem(childPath(at, 'value'), tolerationValueProblem(t.value, op));
  });
  for (const field of ['podAffinity', 'podAntiAffinity'] as const) {
    placement[field]?.forEach((term, i) => {
      const at = childPath(childPath(path, field), i);
      checkLabels(term.labels, childPath(at, 'labels'), issues);
      if (term.topologyKey !== undefined)
        issues.addProblem(childPath(at, 'topologyKey'), topologyKeyProblem(term.topologyKey));
    });
  }
  const key = placement.serializationGroup?.clusterTopologyKey;
  if (key !== undefined)
    issues.addProblem(childPath(childPath(path, 'serializationGroup'), 'clusterTopologyKey'), topologyKeyProblem(key));
}

/** Pod options: labels, annotations, resources (names, requests ≤ limits). */
export function checkPodOptions(pod: PodOptions, path: string, issues: IssueList): void {
  checkLabels(pod.labels, childPath(path, 'labels'), issues);
  checkAnnotations(pod.annotations, childPath(path, 'annotations'), issues);
  if (pod.resources) addAll(resourceRequirementsProblems(pod.resources), childPath(path, 'resources'), issues);
  for (const [name, resources] of Object.entries(pod.containerResources ?? {})) {
    addAll(resourceRequirementsProblems(resources), childPath(childPath(path, 'containerResources'), name), issues);
  }
}
