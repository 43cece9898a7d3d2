/**
 * The API server's own rules (lib/kubernetes/validation) applied to the policy
 * fields that reach an object unchanged: reported at the policy's field paths,
 * before anything is rendered.
 */
import {
  annotationKeyProblem,
  annotationsSizeProblem,
  labelValueProblem,
  nodePinProblem,
  qualifiedNameProblem,
  checkResourceRequirements,
  tolerationKeyProblem,
  tolerationValueProblem,
  topologyKeyProblem,
} from '../kubernetes/validation';
import type { IssueList, PolicyPath } from './errors';
import type { Placement, PodOptions } from './types';
import { nodeRequirementOperator, tolerationOperator } from './defaults';

/** The node label that pins a pod to one node. */
const HOSTNAME_LABEL = 'kubernetes.io/hostname';

/** Label keys (qualified names) and values of a map that becomes labels or a selector. */
export function checkLabels(
  labels: Readonly<Record<string, string>> | undefined,
  path: PolicyPath,
  issues: IssueList,
): void {
  for (const key in labels) {
    const value = labels[key];
    const keyProblem = qualifiedNameProblem(key);
    const valueProblem = typeof value === 'string' ? labelValueProblem(value) : undefined;
    if (keyProblem === undefined && valueProblem === undefined) continue; // the path only for a problem
    const at = [...path, key];
    if (keyProblem) issues.add(at, `the key: ${keyProblem}`);
    issues.addProblem(at, valueProblem);
  }
}

/** Annotation keys, and the total size of the annotations one object gets (`with`: the others it carries too). */
export function checkAnnotations(
  annotations: Readonly<Record<string, string>> | undefined,
  path: PolicyPath,
  issues: IssueList,
  with_: Readonly<Record<string, string>> = {},
): void {
  if (!annotations) return;
  for (const key of Object.keys(annotations)) {
    const problem = annotationKeyProblem(key);
    if (problem) issues.add([...path, key], `the key: ${problem}`);
  }
  issues.addProblem(path, annotationsSizeProblem({ ...with_, ...annotations }));
}

/** Placement: selector and affinity keys and values, tolerations, topology keys. */
export function checkPlacement(placement: Placement, path: PolicyPath, issues: IssueList): void {
  checkLabels(placement.nodeSelector, [...path, 'nodeSelector'], issues);
  const pinned = placement.nodeSelector?.[HOSTNAME_LABEL];
  if (pinned !== undefined && labelValueProblem(pinned) === undefined) {
    issues.addProblem([...path, 'nodeSelector', HOSTNAME_LABEL], nodePinProblem(pinned));
  }
  placement.nodeAffinity?.forEach((r, i) => {
    const at = [...path, 'nodeAffinity', i];
    const keyProblem = qualifiedNameProblem(r.key);
    if (keyProblem) issues.add([...at, 'key'], keyProblem);
    const op = nodeRequirementOperator(r);
    // every value, Gt and Lt thresholds too, is compared with node label values: a label value itself
    const pin = r.key === HOSTNAME_LABEL && (op === 'In' || op === 'NotIn');
    r.values?.forEach((v, j) =>
      issues.addProblem([...at, 'values', j], pin ? nodePinProblem(v) : labelValueProblem(v)),
    );
  });
  placement.tolerations?.forEach((t, i) => {
    const at = [...path, 'tolerations', i];
    const op = tolerationOperator(t);
    if (t.key) issues.addProblem([...at, 'key'], tolerationKeyProblem(t.key, op));
    if (t.value !== undefined) issues.addProblem([...at, 'value'], tolerationValueProblem(t.value, op));
  });
  for (const field of ['podAffinity', 'podAntiAffinity'] as const) {
    placement[field]?.forEach((term, i) => {
      const at = [...path, field, i];
      checkLabels(term.labels, [...at, 'labels'], issues);
      if (term.topologyKey !== undefined)
        issues.addProblem([...at, 'topologyKey'], topologyKeyProblem(term.topologyKey));
    });
  }
  const key = placement.serializationGroup?.clusterTopologyKey;
  if (key !== undefined)
    issues.addProblem([...path, 'serializationGroup', 'clusterTopologyKey'], topologyKeyProblem(key));
}

/** Pod options: labels, annotations, resources (names, requests ≤ limits). */
export function checkPodOptions(pod: PodOptions, path: PolicyPath, issues: IssueList): void {
  checkLabels(pod.labels, [...path, 'labels'], issues);
  checkAnnotations(pod.annotations, [...path, 'annotations'], issues);
  const resourcesAt = (at: PolicyPath) => (relative: readonly string[], message: string) =>
    issues.add([...at, ...relative], message);
  if (pod.resources) checkResourceRequirements(pod.resources, resourcesAt([...path, 'resources']));
  for (const [name, resources] of Object.entries(pod.containerResources ?? {})) {
    checkResourceRequirements(resources, resourcesAt([...path, 'containerResources', name]));
  }
}
