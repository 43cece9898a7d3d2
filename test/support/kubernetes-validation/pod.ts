/**
 * A pod spec and pod template as the Kubernetes 1.28 API server checks them: the rules of every
 * other file applied where they belong, and the clashes between fields of one pod.
 *
 * Sources (kubernetes v1.28.8, pkg/apis/core/validation/validation.go; v1.33.3 differs only in
 * rules for fields the core never sets):
 * - ValidateVolumes: volume names required, DNS-1123 labels, unique; validateVolumeSource (at most
 *   one volume type: v1 SetDefaults_Volume makes a volume without one an emptyDir; hostPath, secret,
 *   configMap, emptyDir sizeLimit ≥ 0, persistentVolumeClaim claimName required, ephemeral).
 * - validateContainers / validateInitContainers / validateContainerCommon: at least one container;
 *   names required, DNS-1123 labels, unique across init and regular containers (a clash is
 *   reported on the init container); image required; ValidateEnv; ValidateResourceRequirements;
 *   ValidateVolumeMounts: the volume must exist among the pod's valid volumes, mountPath required
 *   and unique within the container, subPath/subPathExpr local descending paths and mutually
 *   exclusive; validateContainerPorts (containerPort 1-65535, names IANA service names and unique,
 *   protocol TCP, UDP or SCTP); imagePullPolicy Always, IfNotPresent or Never.
 * - Server-side apply (structured-merge-diff, the list-map keys of the v1 schema) refuses duplicate
 *   keys the validation allows: env by name, ports by containerPort and protocol, imagePullSecrets
 *   by name.
 * - ValidatePodSpec: nodeSelector is a label map (ValidateLabels), affinity, tolerations,
 *   serviceAccountName / priorityClassName / nodeName DNS-1123 subdomains, hostname / subdomain
 *   DNS-1123 labels, activeDeadlineSeconds 1..2^31-1.
 * - ValidatePodTemplateSpec: template labels (ValidateLabels) and annotations.
 */
import { show } from '../../../lib/messages';
import { envVarProblems } from './env';
import { annotationsProblems, labelsProblems } from './labels';
import { dns1123LabelProblem } from './names';
import { fileModeProblem, hostPathTypeProblem, itemPathProblem } from './paths';
import { dns1123SubdomainProblem } from '../../../lib/kubernetes/validation/names';
import { hostPathProblem, itemKeyProblem, subPathProblem } from '../../../lib/kubernetes/validation/paths';
import { type Problem, asRecord, problemAt } from '../../../lib/kubernetes/validation/problems';
import { asList, fieldPath, under } from './problems';
import { decodeQuantity, nonNegativeQuantityProblem } from '../../../lib/kubernetes/validation/quantity';
import { checkResourceRequirements } from '../../../lib/kubernetes/validation/resources';
import { type Checks, EVERY_TIME, type Rule } from './clean-parts';
import { affinityProblems, tolerationProblems } from './scheduling';
import { ephemeralVolumeProblems } from './storage';

const INT32_MAX = 2 ** 31 - 1;

/**
 * A container's `resources` (the rules the policy checks share, lib/kubernetes/validation) as the API
 * server reports them: paths relative to `resources`, map keys in brackets (`requests[memory]`).
 */
export function resourceRequirementsProblems(resources: unknown): Problem[] {
  const problems: Problem[] = [];
  checkResourceRequirements(resources, (path, message) => {
    const [field = '', ...keys] = path;
    problems.push({ path: field + keys.map((k) => `[${k}]`).join(''), message });
  });
  return problems;
}

const stringOf = (value: unknown): string => (typeof value === 'string' ? value : '');

/** A name that must be set and be a DNS-1123 label (containers, volumes). */
function requiredLabelProblem(value: unknown, what: string): string | undefined {
  if (value === undefined || value === '') return `a ${what} needs a name`;
  return typeof value === 'string' ? dns1123LabelProblem(value) : `received ${show(value)}; must be a string`;
}

function itemsProblems(items: unknown): Problem[] {
  return asList(items).flatMap((item, i) => {
    const it = asRecord(item) ?? {};
    const at = fieldPath('items', i);
    return [
      ...problemAt(fieldPath(at, 'key'), itemKeyProblem(stringOf(it.key))),
      ...problemAt(fieldPath(at, 'path'), itemPathProblem(stringOf(it.path))),
      ...(it.mode === undefined ? [] : problemAt(fieldPath(at, 'mode'), fileModeProblem(it.mode))),
    ];
  });
}

function sourceProblems(type: string, source: unknown): Problem[] {
  const s = asRecord(source) ?? {};
  const required = (field: string) =>
    stringOf(s[field]) === '' ? [{ path: field, message: `${type}.${field} is required` }] : [];
  const defaultMode = s.defaultMode === undefined ? [] : problemAt('defaultMode', fileModeProblem(s.defaultMode));
  switch (type) {
    case 'hostPath':
      return [
        ...problemAt('path', hostPathProblem(stringOf(s.path))),
        ...(s.type === undefined ? [] : problemAt('type', hostPathTypeProblem(stringOf(s.type)))),
      ];
    case 'secret':
      return [...required('secretName'), ...defaultMode, ...itemsProblems(s.items)];
    case 'configMap':
      return [...required('name'), ...defaultMode, ...itemsProblems(s.items)];
    case 'persistentVolumeClaim':
      return required('claimName');
    case 'emptyDir': {
      if (s.sizeLimit === undefined) return [];
      const decoded = decodeQuantity(s.sizeLimit);
      return problemAt(
        'sizeLimit',
        'problem' in decoded ? decoded.problem : nonNegativeQuantityProblem(decoded.quantity),
      );
    }
    case 'ephemeral':
      return ephemeralVolumeProblems(source);
    default:
      return [];
  }
}

/** The pod's volumes; returns the names of the valid ones (the ones mounts may refer to). */
function volumesProblems(volumes: readonly unknown[], valid: Set<string>): Problem[] {
  const seen = new Set<string>();
  return volumes.flatMap((volume, i) => {
    const v = asRecord(volume) ?? {};
    const at = fieldPath('volumes', i);
    const types = Object.keys(v).filter((k) => k !== 'name');
    const problems = problemAt(fieldPath(at, 'name'), requiredLabelProblem(v.name, 'volume'));
    if (types.length > 1)
      problems.push({
        path: at,
        message: `received volume types ${types.join(', ')}; may not specify more than 1 volume type`,
      });
    if (types.length > 0) problems.push(...under(fieldPath(at, types[0]), sourceProblems(types[0], v[types[0]])));
    const name = stringOf(v.name);
    if (seen.has(name))
      problems.push({
        path: fieldPath(at, 'name'),
        message: `received ${show(name)}; volume names must be unique within the pod`,
      });
    seen.add(name);
    if (problems.length === 0) valid.add(name);
    return problems;
  });
}

/** One container's volumeMounts: each names a valid volume of the pod, mountPaths are unique. */
export function volumeMountsProblems(mounts: readonly unknown[], volumes: ReadonlySet<string>): Problem[] {
  const paths = new Set<string>();
  return mounts.flatMap((mount, i) => {
    const m = asRecord(mount) ?? {};
    const at = fieldPath('volumeMounts', i);
    const name = stringOf(m.name);
    const mountPath = stringOf(m.mountPath);
    const problems: Problem[] = [];
    if (name === '')
      problems.push({ path: fieldPath(at, 'name'), message: 'a volume mount needs the name of a volume' });
    else if (!volumes.has(name))
      problems.push({
        path: fieldPath(at, 'name'),
        message: `received ${show(name)}; not found: no valid volume of the pod has this name (volumes: ${[...volumes].map((v) => show(v)).join(', ') || 'none'})`,
      });
    if (mountPath === '')
      problems.push({ path: fieldPath(at, 'mountPath'), message: 'a volume mount needs a mountPath' });
    else if (paths.has(mountPath))
      problems.push({
        path: fieldPath(at, 'mountPath'),
        message: `received ${show(mountPath)}; must be unique within the container`,
      });
    paths.add(mountPath);
    const subPath = stringOf(m.subPath);
    const subPathExpr = stringOf(m.subPathExpr);
    if (subPath !== '') problems.push(...problemAt(fieldPath(at, 'subPath'), subPathProblem(subPath)));
    if (subPathExpr !== '') {
      if (subPath !== '')
        problems.push({
          path: fieldPath(at, 'subPathExpr'),
          message: 'subPathExpr and subPath are mutually exclusive',
        });
      problems.push(...problemAt(fieldPath(at, 'subPathExpr'), subPathProblem(subPathExpr)));
    }
    return problems;
  });
}

/** The pod's volumes checked, and the names mounts may refer to (once per list of volumes, with CleanParts). */
function checkedVolumes(volumes: readonly unknown[]): {
  readonly problems: readonly Problem[];
  readonly valid: ReadonlySet<string>;
} {
  const valid = new Set<string>();
  return { problems: volumesProblems(volumes, valid), valid };
}

/** The mounts rule for one set of valid volume names (one rule per set, with CleanParts: each list of mounts is checked once against it). */
function mountsRule(valid: ReadonlySet<string>): Rule {
  return (mounts) => volumeMountsProblems(asList(mounts), valid);
}

const NO_VOLUMES: readonly unknown[] = [];
const IMAGE_PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'];
const PROTOCOLS = ['TCP', 'UDP', 'SCTP'];
const IANA_SVC_NAME = /^(?=.{1,15}$)(?=.*[a-z])[a-z0-9]+(-[a-z0-9]+)*$/;

/** Problems at `<field>[i].name` for names seen before in the list (server-side apply keys the list by name). */
function duplicateNames(list: readonly unknown[], field: string, what: string): Problem[] {
  const seen = new Set<string>();
  const problems: Problem[] = [];
  list.forEach((item, i) => {
    const name = stringOf(asRecord(item)?.name);
    if (seen.has(name))
      problems.push({
        path: fieldPath(fieldPath(field, i), 'name'),
        message: `received ${show(name)}; ${what} must be unique (server-side apply keys the list by name)`,
      });
    seen.add(name);
  });
  return problems;
}

/** A container's `ports`: numbers, names, protocols, and no port twice. */
function portsProblems(ports: readonly unknown[]): Problem[] {
  const names = new Set<string>();
  const keys = new Set<string>();
  return ports.flatMap((port, i) => {
    const p = asRecord(port) ?? {};
    const at = (field: string) => fieldPath(fieldPath('ports', i), field);
    const problems: Problem[] = [];
    const number = p.containerPort;
    if (!(typeof number === 'number' && Number.isInteger(number) && number >= 1 && number <= 65535))
      problems.push({
        path: at('containerPort'),
        message: `received ${show(number)}; must be between 1 and 65535, inclusive`,
      });
    const protocol = p.protocol ?? 'TCP';
    if (!PROTOCOLS.includes(protocol as string))
      problems.push({
        path: at('protocol'),
        message: `received ${show(protocol)}; supported values: "SCTP", "TCP", "UDP"`,
      });
    const key = `${show(number)}/${show(protocol)}`;
    if (keys.has(key))
      problems.push({
        path: at('containerPort'),
        message: `received ${show(number)} (${show(protocol)}); a port must be listed once (server-side apply keys ports by containerPort and protocol)`,
      });
    keys.add(key);
    const name = stringOf(p.name);
    if (name !== '' && !IANA_SVC_NAME.test(name))
      problems.push({
        path: at('name'),
        message: `received ${show(name)}; must be an IANA service name: at most 15 lower case letters, digits and '-', at least one letter, '-' only between letters or digits`,
      });
    else if (name !== '' && names.has(name))
      problems.push({
        path: at('name'),
        message: `received ${show(name)}; port names must be unique within the container`,
      });
    names.add(name);
    return problems;
  });
}

function containerProblems(container: unknown, volumes: ReadonlySet<string>, checked: Checks): Problem[] {
  const c = asRecord(container) ?? {};
  return [
    ...problemAt('name', requiredLabelProblem(c.name, 'container')),
    ...(stringOf(c.image) === '' ? [{ path: 'image', message: 'a container needs an image' }] : []),
    ...(stringOf(c.image).trim() !== stringOf(c.image)
      ? [{ path: 'image', message: `received ${show(c.image)}; must not have leading or trailing whitespace` }]
      : []),
    ...(c.imagePullPolicy === undefined || IMAGE_PULL_POLICIES.includes(c.imagePullPolicy as string)
      ? []
      : [
          {
            path: 'imagePullPolicy',
            message: `received ${show(c.imagePullPolicy)}; supported values: "Always", "IfNotPresent", "Never"`,
          },
        ]),
    ...envProblems(asList(c.env), checked),
    ...duplicateNames(asList(c.env), 'env', 'env var names'),
    ...portsProblems(asList(c.ports)),
    ...checked.check(checked.derive(mountsRule, volumes), c.volumeMounts),
    ...under('resources', checked.check(resourceRequirementsProblems, c.resources)),
  ];
}

/** Each env var's problems at `env[i]`: no path is made for the clean ones (every env var of every pod). */
function envProblems(env: readonly unknown[], checked: Checks): Problem[] {
  const problems: Problem[] = [];
  env.forEach((e, i) => {
    const found = checked.check(envVarProblems, e);
    if (found.length > 0) problems.push(...under(fieldPath('env', i), found));
  });
  return problems;
}

/** Container names unique across regular and init containers; a clash is reported on the init container (or the later regular one). */
export function containerNameClashes(containers: readonly unknown[], initContainers: readonly unknown[]): Problem[] {
  const problems: Problem[] = [];
  const names = new Set<string>();
  const check = (list: readonly unknown[], field: string) =>
    list.forEach((c, i) => {
      const name = stringOf(asRecord(c)?.name);
      if (name === '') return;
      if (names.has(name))
        problems.push({
          path: fieldPath(fieldPath(field, i), 'name'),
          message: `received ${show(name)}; container names must be unique across containers and initContainers`,
        });
      names.add(name);
    });
  check(containers, 'containers');
  check(initContainers, 'initContainers');
  return problems;
}

function optionalName(
  spec: Record<string, unknown>,
  field: string,
  rule: (v: string) => string | undefined,
): Problem[] {
  const value = spec[field];
  if (value === undefined || value === '') return [];
  return problemAt(field, typeof value === 'string' ? rule(value) : `received ${show(value)}; must be a string`);
}

/** A pod spec. Paths relative to the spec: `containers[0].env[3].name`, `volumes[1].hostPath.path`, ... */
export function podSpecProblems(spec: unknown, checked: Checks = EVERY_TIME): Problem[] {
  const s = asRecord(spec) ?? {};
  const containers = asList(s.containers);
  const initContainers = asList(s.initContainers);
  const volumes = checked.derive(checkedVolumes, Array.isArray(s.volumes) ? s.volumes : NO_VOLUMES);
  const validVolumes = volumes.valid;
  const problems = [...volumes.problems];
  if (containers.length === 0) problems.push({ path: 'containers', message: 'a pod needs at least one container' });
  containers.forEach((c, i) =>
    problems.push(...under(fieldPath('containers', i), containerProblems(c, validVolumes, checked))),
  );
  initContainers.forEach((c, i) =>
    problems.push(...under(fieldPath('initContainers', i), containerProblems(c, validVolumes, checked))),
  );
  problems.push(...containerNameClashes(containers, initContainers));
  problems.push(...duplicateNames(asList(s.imagePullSecrets), 'imagePullSecrets', 'image pull Secret names'));
  problems.push(...under('nodeSelector', labelsProblems(s.nodeSelector, checked)));
  problems.push(...under('affinity', checked.check(affinityProblems, s.affinity)));
  asList(s.tolerations).forEach((t, i) =>
    problems.push(...under(fieldPath('tolerations', i), checked.check(tolerationProblems, t))),
  );
  problems.push(...optionalName(s, 'serviceAccountName', dns1123SubdomainProblem));
  problems.push(...optionalName(s, 'priorityClassName', dns1123SubdomainProblem));
  problems.push(...optionalName(s, 'nodeName', dns1123SubdomainProblem));
  problems.push(...optionalName(s, 'hostname', dns1123LabelProblem));
  problems.push(...optionalName(s, 'subdomain', dns1123LabelProblem));
  const deadline = s.activeDeadlineSeconds;
  if (
    deadline !== undefined &&
    !(typeof deadline === 'number' && Number.isInteger(deadline) && deadline >= 1 && deadline <= INT32_MAX)
  ) {
    problems.push({
      path: 'activeDeadlineSeconds',
      message: `received ${show(deadline)}; must be between 1 and ${INT32_MAX}, inclusive`,
    });
  }
  return problems;
}

/** A pod template: metadata labels and annotations, and the spec. Paths: `metadata.labels[k]`, `spec...`. */
export function podTemplateProblems(template: unknown, checked: Checks = EVERY_TIME): Problem[] {
  const t = asRecord(template) ?? {};
  const metadata = asRecord(t.metadata) ?? {};
  return [
    ...under('metadata.labels', labelsProblems(metadata.labels, checked)),
    ...under('metadata.annotations', annotationsProblems(metadata.annotations, checked)),
    ...under('spec', podSpecProblems(t.spec, checked)),
  ];
}
