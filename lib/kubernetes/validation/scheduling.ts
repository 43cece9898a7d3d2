/**
 * Toleration keys and values and topology keys as the Kubernetes 1.28 API server checks them: the
 * rules the policy checks apply to `placement.tolerations[]`, `podAffinity[].topologyKey` and
 * `serializationGroup.clusterTopologyKey`. Whole tolerations and affinity are the tests' oracle
 * (test/support/kubernetes-validation/scheduling.ts): the schema's enums and ranges refuse the rest.
 *
 * Sources (kubernetes v1.28.8 and v1.33.3, pkg/apis/core/validation/validation.go):
 * - ValidateTolerations: a non-empty key is a qualified name; an empty key needs operator Exists;
 *   operator Equal (or empty) takes a label value, Exists takes no value.
 * - validatePodAffinityTerm: topologyKey non-empty and a qualified name.
 */
import { show } from '../../messages';
import { labelValueProblem, qualifiedNameProblem } from './labels';

/** A toleration `key`: empty only with operator Exists (it then tolerates every taint). */
export function tolerationKeyProblem(key: string, operator: string): string | undefined {
  if (key === '')
    return operator === 'Exists'
      ? undefined
      : `an empty key tolerates every taint and needs operator Exists, received operator ${show(operator)}`;
  return qualifiedNameProblem(key);
}

/** A toleration `value`: a label value with operator Equal (or none), empty with Exists. */
export function tolerationValueProblem(value: string, operator: string): string | undefined {
  if (operator === 'Exists')
    return value === '' ? undefined : `received ${show(value)}; value must be empty when \`operator\` is 'Exists'`;
  return labelValueProblem(value);
}

/** A topologyKey of a pod (anti-)affinity term: a non-empty qualified name. */
export function topologyKeyProblem(key: string): string | undefined {
  if (key === '') return 'can not be empty: set a node label key such as kubernetes.io/hostname';
  return qualifiedNameProblem(key);
}
