/**
 * API-server rules (Kubernetes 1.28) for pod templates and pod specs.
 *
 * Sources (kubernetes/kubernetes, release-1.28): pkg/apis/core/validation/validation.go
 * (ValidatePodTemplateSpec, ValidatePodSpec: names of the service account, priority class, hostname,
 * subdomain; activeDeadlineSeconds; nodeSelector via ValidateLabels); pkg/apis/batch/validation/validation.go
 * (validateJobSpec: Job pods restart OnFailure or Never). Volumes, containers and scheduling have their
 * own files.
 */
import { MSG, Problems, Seg, arr, isObj } from '../problems';
import { R, checkObjectMeta, dns1123Label, dns1123Subdomain } from './meta';
import { ContainerList, checkContainer } from './containers';
import { checkAffinity, checkNodeSelector, checkTolerations, checkTopologySpreadConstraints } from './scheduling';
import { checkVolumes } from './volumes';

const JOB_RESTART_POLICIES = ['OnFailure', 'Never'];
// The API server checks regular containers first, so a name clash is reported on the init container.
const CONTAINER_LISTS: ContainerList[] = ['containers', 'initContainers', 'ephemeralContainers'];
const MAX_INT32 = 2 ** 31 - 1;

export function nonNegative(
  obj: Record<string, unknown>,
  field: string,
  at: Seg[],
  p: Problems,
  strictlyPositive = false,
): void {
  const v = obj[field];
  if (typeof v !== 'number') return;
  if (strictlyPositive ? v <= 0 : v < 0)
    p.add([...at, field], `must be ${strictlyPositive ? 'greater than 0' : 'greater than or equal to 0'}, got ${v}`, R);
}

export function checkPodTemplate(tpl: unknown, at: Seg[], p: Problems, forJob: boolean): void {
  if (!isObj(tpl)) return;
  checkObjectMeta(tpl.metadata, [...at, 'metadata'], p, undefined, false);
  if (tpl.spec === undefined) {
    p.add([...at, 'spec'], MSG.required, R);
    return;
  }
  checkPodSpec(tpl.spec, [...at, 'spec'], p, forJob);
}

function checkName(
  spec: Record<string, unknown>,
  field: string,
  rule: (v: string) => string | undefined,
  at: Seg[],
  p: Problems,
): void {
  const v = spec[field];
  if (typeof v !== 'string' || v === '') return;
  const e = rule(v);
  if (e) p.add([...at, field], `bad name ${JSON.stringify(v)}: ${e}`, R);
}

function checkPodSpec(spec: unknown, at: Seg[], p: Problems, forJob: boolean): void {
  if (!isObj(spec)) return;
  if (forJob) {
    if (spec.restartPolicy === undefined) {
      p.add([...at, 'restartPolicy'], `${MSG.required} (Job pods need ${JOB_RESTART_POLICIES.join(' or ')})`, R);
    } else if (spec.restartPolicy === 'Always') {
      // other values are already reported as not in the pod restartPolicy enum
      p.add([...at, 'restartPolicy'], MSG.enumValue(spec.restartPolicy, JOB_RESTART_POLICIES) + ' (for Job pods)', R);
    }
  }
  if (Array.isArray(spec.containers) && spec.containers.length === 0) {
    p.add([...at, 'containers'], 'must contain at least one container', R);
  } else if (spec.containers === undefined) {
    p.add([...at, 'containers'], MSG.required, R);
  }
  nonNegative(spec, 'terminationGracePeriodSeconds', at, p);
  nonNegative(spec, 'activeDeadlineSeconds', at, p, true);
  if (typeof spec.activeDeadlineSeconds === 'number' && spec.activeDeadlineSeconds > MAX_INT32) {
    p.add([...at, 'activeDeadlineSeconds'], `must be between 1 and ${MAX_INT32}, got ${spec.activeDeadlineSeconds}`, R);
  }
  checkName(spec, 'serviceAccountName', dns1123Subdomain, at, p);
  checkName(spec, 'priorityClassName', dns1123Subdomain, at, p);
  checkName(spec, 'nodeName', dns1123Subdomain, at, p);
  checkName(spec, 'hostname', dns1123Label, at, p);
  checkName(spec, 'subdomain', dns1123Label, at, p);
  checkNodeSelector(spec.nodeSelector, [...at, 'nodeSelector'], p);

  const volumes = checkVolumes(spec.volumes, [...at, 'volumes'], p);
  const containerNames = new Set<string>();
  for (const list of CONTAINER_LISTS) {
    arr(spec[list]).forEach((c, i) => {
      if (isObj(c)) checkContainer(c, list, [...at, list, i], p, volumes, containerNames);
    });
  }

  checkTolerations(spec.tolerations, [...at, 'tolerations'], p);
  if (isObj(spec.affinity)) checkAffinity(spec.affinity, [...at, 'affinity'], p);
  checkTopologySpreadConstraints(spec.topologySpreadConstraints, [...at, 'topologySpreadConstraints'], p);
}
