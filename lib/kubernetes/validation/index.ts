/**
 * The Kubernetes API server's validation rules (1.28, the strictest of 1.28–1.33 where they
 * differ), as pure functions. A `...Problem` function returns undefined when the value is valid,
 * or a message (what was received, what is allowed) for the caller to put under its own field
 * path; a `...Problems` function returns problems with paths relative to the value it checked.
 */
export type { Problem } from './problems';
export { CleanParts, joinPath, under } from './problems';
export {
  CRONJOB_NAME_MAX_LENGTH,
  DNS1035_LABEL_MAX_LENGTH,
  DNS1123_LABEL_MAX_LENGTH,
  DNS1123_SUBDOMAIN_MAX_LENGTH,
  JOB_NAME_MAX_LENGTH,
  cronJobNameProblem,
  dns1035LabelProblem,
  dns1123LabelProblem,
  dns1123SubdomainProblem,
  jobNameProblem,
  namespaceNameProblem,
  objectNameProblem,
  pathSegmentNameProblem,
} from './names';
export {
  LABEL_VALUE_MAX_LENGTH,
  QUALIFIED_NAME_MAX_LENGTH,
  TOTAL_ANNOTATION_SIZE_LIMIT_BYTES,
  annotationKeyProblem,
  annotationsProblems,
  isInt64,
  annotationsSize,
  annotationsSizeProblem,
  labelSelectorProblems,
  labelSelectorRequirementProblems,
  labelValueProblem,
  labelsProblems,
  nodePinProblem,
  nodeSelectorRequirementProblems,
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
export { containerResourceNameProblem, requestLimitProblem, resourceRequirementsProblems } from './resources';
export {
  configKeyProblem,
  fileModeProblem,
  hostPathProblem,
  hostPathTypeProblem,
  itemKeyProblem,
  itemPathProblem,
  subPathProblem,
} from './paths';
export { envFieldPathProblem, envVarNameProblem, envVarProblems } from './env';
export {
  affinityProblems,
  nodeSelectorTermProblems,
  podAffinityTermProblems,
  tolerationKeyProblem,
  tolerationProblems,
  tolerationValueProblem,
  topologyKeyProblem,
  weightProblem,
} from './scheduling';
export {
  accessModesProblem,
  ephemeralVolumeProblems,
  persistentVolumeClaimSpecProblems,
  storageClassNameProblem,
} from './storage';
export { containerNameClashes, podSpecProblems, podTemplateProblems, volumeMountsProblems } from './pod';
export { cronJobSpecProblems, jobSpecProblems, scheduleTimeZoneProblem, timeZoneNameProblem } from './batch';
export { CONFIGMAP_MAX_SIZE_BYTES, configMapProblems } from './configmap';
export { roleBindingProblems, roleProblems } from './rbac';
export { prometheusLabelNameProblem, prometheusLabelValueProblem, prometheusRuleSpecProblems } from './prometheus';
export { securityContextConstraintsProblems } from './openshift';
export { objectMetaProblems, validateObject } from './object';
