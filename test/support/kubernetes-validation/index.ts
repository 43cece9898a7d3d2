/**
 * The tests' oracle of the Kubernetes API server's rules (1.28, the strictest of 1.28–1.33 where
 * they differ): every rule of lib/kubernetes/validation (the ones the policy checks run in
 * production) and the ones no policy input reaches, which only the package's own rendering could
 * break: whole objects (`validateObject`), pod specs, CronJob and Job specs, RBAC, PrometheusRule,
 * SCC, object names, selectors, affinity, PVC specs. `assertAccepted` is the guard every object
 * rendered in a test goes through (render-guard.ts); test/kube/differential.test.ts holds the
 * whole oracle against the real kube-apiserver.
 */
export * from '../../../lib/kubernetes/validation';
export { fieldPath, joinPath, under } from './problems';
export { CleanParts } from './clean-parts';
export type { Checks } from './clean-parts';
export {
  CRONJOB_NAME_MAX_LENGTH,
  DNS1035_LABEL_MAX_LENGTH,
  DNS1123_LABEL_MAX_LENGTH,
  JOB_NAME_MAX_LENGTH,
  cronJobNameProblem,
  dns1035LabelProblem,
  dns1123LabelProblem,
  jobNameProblem,
  namespaceNameProblem,
  objectNameProblem,
  pathSegmentNameProblem,
} from './names';
export {
  annotationsProblems,
  labelSelectorProblems,
  labelSelectorRequirementProblems,
  labelsProblems,
  nodeSelectorRequirementProblems,
} from './labels';
export { fileModeProblem, hostPathTypeProblem, itemPathProblem } from './paths';
export { ENV_FIELD_PATHS, envFieldPathProblem, envVarNameProblem, envVarProblems } from './env';
export {
  affinityProblems,
  nodeSelectorTermProblems,
  podAffinityTermProblems,
  tolerationProblems,
  weightProblem,
} from './scheduling';
export { ephemeralVolumeProblems, persistentVolumeClaimSpecProblems } from './storage';
export {
  containerNameClashes,
  podSpecProblems,
  podTemplateProblems,
  resourceRequirementsProblems,
  volumeMountsProblems,
} from './pod';
export { cronJobSpecProblems, jobSpecProblems, scheduleTimeZoneProblem, timeZoneNameProblem } from './batch';
export { configMapProblems } from './configmap';
export { roleBindingProblems, roleProblems } from './rbac';
export { prometheusLabelNameProblem, prometheusLabelValueProblem, prometheusRuleSpecProblems } from './prometheus';
export { securityContextConstraintsProblems } from './openshift';
export { objectMetaProblems, validateObject } from './object';
export { assertAccepted } from './accepted';
