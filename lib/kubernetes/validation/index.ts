/**
 * The Kubernetes API server's validation rules (1.28, the strictest of 1.28–1.33 where they
 * differ) that the policy checks apply to the values a policy sets, as pure functions: a policy
 * mistake is reported at the policy's path, before anything is rendered. A `...Problem` function
 * returns undefined when the value is valid, or a message (what was received, what is allowed)
 * for the caller to put under its own field path; a `check...` function walks a structure and
 * reports each problem with its path (keys, relative to the value it checked) to the caller's callback.
 *
 * The rules no policy input reaches (whole objects, pod specs, CronJob and Job specs, RBAC,
 * PrometheusRule, SCC, object names) are the tests' oracle, test/support/kubernetes-validation,
 * checked against the real API server by test/kube/differential.test.ts.
 */
export type { Problem } from './problems';
export { DNS1123_SUBDOMAIN_MAX_LENGTH, dns1123SubdomainProblem } from './names';
export {
  LABEL_VALUE_MAX_LENGTH,
  QUALIFIED_NAME_MAX_LENGTH,
  TOTAL_ANNOTATION_SIZE_LIMIT_BYTES,
  annotationKeyProblem,
  isInt64,
  annotationsSize,
  annotationsSizeProblem,
  labelValueProblem,
  nodePinProblem,
  qualifiedNameProblem,
} from './labels';
export type { Quantity, QuantityFormat, QuantityResult } from './quantity';
export {
  compareQuantities,
  decodeQuantity,
  nonNegativeQuantityProblem,
  parseQuantity,
  quantityProblem,
} from './quantity';
export { checkResourceRequirements, containerResourceNameProblem, requestLimitProblem } from './resources';
export type { ReportProblem } from './resources';
export { configKeyProblem, hostPathProblem, itemKeyProblem, subPathProblem } from './paths';
export { tolerationKeyProblem, tolerationValueProblem, topologyKeyProblem } from './scheduling';
export { accessModesProblem, storageClassNameProblem } from './storage';
export { CONFIGMAP_MAX_SIZE_BYTES } from './configmap';
