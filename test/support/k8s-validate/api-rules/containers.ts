/**
 * API-server rules (Kubernetes 1.28) for containers.
 *
 * Sources (kubernetes/kubernetes, release-1.28), pkg/apis/core/validation/validation.go:
 * validateContainerCommon (DNS-1123 label names, image), validateContainers / validateInitContainers /
 * validateEphemeralContainers (names unique across all lists; init containers without restartPolicy
 * Always take no probes or lifecycle), ValidateEnv, validateEnvVarValueFrom, validateObjectFieldSelector,
 * validateContainerResourceFieldSelector, validateConfigMapKeySelector, validateSecretKeySelector,
 * ValidateEnvFrom, ValidateVolumeMounts (volume exists, unique mountPath, subPath/subPathExpr via
 * validateLocalDescendingPath), ValidateVolumeDevices, validateContainerPorts (IsValidPortName, unique
 * names), ValidateResourceRequirements (see quantity.ts).
 */
import { MSG, Problems, Seg, arr, isObj, str } from '../problems';
import { R, configKeyError, dns1123Label, dns1123Subdomain, dns1123SubdomainPrefix, envVarNameError } from './meta';
import { checkResources } from './quantity';
import { checkLocalDescendingPath } from './volumes';

const ENV_FIELD_PATHS = [
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
  'spec.nodeName',
  'spec.serviceAccountName',
  'status.hostIP',
  'status.hostIPs',
  'status.podIP',
  'status.podIPs',
];
const ENV_RESOURCES = [
  'limits.cpu',
  'limits.memory',
  'limits.ephemeral-storage',
  'requests.cpu',
  'requests.memory',
  'requests.ephemeral-storage',
];
const INIT_CONTAINER_FORBIDDEN = ['lifecycle', 'livenessProbe', 'readinessProbe', 'startupProbe'];

/** IsValidPortName. */
function portNameError(n: string): string | undefined {
  if (n.length > 15) return `must be no more than 15 characters (has ${n.length})`;
  if (!/^[-a-z0-9]+$/.test(n)) return 'must contain only alphanumerics (a-z, 0-9) and "-"';
  if (!/[a-z]/.test(n)) return 'must contain at least one letter (a-z)';
  if (n.includes('--')) return 'must not contain consecutive hyphens';
  if (n.startsWith('-') || n.endsWith('-')) return 'must not begin or end with a hyphen';
  return undefined;
}

function checkKeySelector(ref: unknown, at: Seg[], p: Problems, kind: string): void {
  if (!isObj(ref)) return;
  if (typeof ref.name === 'string') {
    const e = dns1123Subdomain(ref.name);
    if (e) p.add([...at, 'name'], `bad ${kind} name ${JSON.stringify(ref.name)}: ${e}`, R);
  }
  if (ref.key === undefined || ref.key === '') p.add([...at, 'key'], MSG.required, R);
  else if (typeof ref.key === 'string') {
    const e = configKeyError(ref.key);
    if (e) p.add([...at, 'key'], `bad ${kind} key ${JSON.stringify(ref.key)}: ${e}`, R);
  }
}

function checkEnv(c: Record<string, unknown>, at: Seg[], p: Problems): void {
  const envNames = new Set<string>();
  arr(c.env).forEach((e, i) => {
    if (!isObj(e)) return;
    const eat = [...at, 'env', i];
    const n = str(e.name);
    if (n !== undefined) {
      const err = envVarNameError(n);
      if (err) p.add([...eat, 'name'], `bad env var name ${JSON.stringify(n)}: ${err}`, R);
      if (envNames.has(n))
        p.add(
          [...eat, 'name'],
          `duplicate env var name ${JSON.stringify(n)} (the API server only warns; the later entry wins)`,
          R,
        );
      envNames.add(n);
    }
    if (!isObj(e.valueFrom)) return;
    const from = e.valueFrom;
    if (typeof e.value === 'string' && e.value !== '') p.add(eat, 'may not have both value and valueFrom', R);
    const sources = Object.keys(from).length;
    if (sources !== 1) p.add([...eat, 'valueFrom'], `must specify exactly one source (has ${sources})`, R);
    const fp = isObj(from.fieldRef) ? from.fieldRef.fieldPath : undefined;
    if (
      typeof fp === 'string' &&
      !ENV_FIELD_PATHS.includes(fp) &&
      !/^metadata\.(labels|annotations)\['[^']+'\]$/.test(fp)
    ) {
      p.add(
        [...eat, 'valueFrom', 'fieldRef', 'fieldPath'],
        `${MSG.enumValue(fp, ENV_FIELD_PATHS)} (or metadata.labels['<key>'] / metadata.annotations['<key>'])`,
        R,
      );
    }
    const rr = isObj(from.resourceFieldRef) ? from.resourceFieldRef.resource : undefined;
    if (typeof rr === 'string' && !ENV_RESOURCES.includes(rr) && !/^(limits|requests)\.hugepages-.+$/.test(rr)) {
      p.add([...eat, 'valueFrom', 'resourceFieldRef', 'resource'], MSG.enumValue(rr, ENV_RESOURCES), R);
    }
    checkKeySelector(from.secretKeyRef, [...eat, 'valueFrom', 'secretKeyRef'], p, 'Secret');
    checkKeySelector(from.configMapKeyRef, [...eat, 'valueFrom', 'configMapKeyRef'], p, 'ConfigMap');
  });
  arr(c.envFrom).forEach((e, i) => {
    if (!isObj(e)) return;
    const eat = [...at, 'envFrom', i];
    const refs = ['configMapRef', 'secretRef'].filter((k) => e[k] !== undefined);
    if (refs.length !== 1) p.add(eat, 'must specify exactly one of configMapRef or secretRef', R);
    for (const ref of refs) {
      const name = isObj(e[ref]) ? e[ref].name : undefined;
      const err = typeof name === 'string' ? (name === '' ? MSG.required : dns1123SubdomainPrefix(name)) : undefined;
      if (err) p.add([...eat, ref, 'name'], `bad name ${JSON.stringify(name)}: ${err}`, R);
    }
    if (typeof e.prefix === 'string' && e.prefix !== '') {
      const err = envVarNameError(e.prefix);
      if (err) p.add([...eat, 'prefix'], `bad env var name prefix ${JSON.stringify(e.prefix)}: ${err}`, R);
    }
  });
}

function checkMounts(c: Record<string, unknown>, at: Seg[], p: Problems, volumes: Set<string>): void {
  const mountPaths = new Set<string>();
  arr(c.volumeMounts).forEach((m, i) => {
    if (!isObj(m)) return;
    const mat = [...at, 'volumeMounts', i];
    if (typeof m.name === 'string' && !volumes.has(m.name))
      p.add([...mat, 'name'], `volume ${JSON.stringify(m.name)} not found in the pod's volumes`, R);
    if (typeof m.mountPath === 'string') {
      if (m.mountPath === '') p.add([...mat, 'mountPath'], MSG.required, R);
      else if (mountPaths.has(m.mountPath))
        p.add(
          [...mat, 'mountPath'],
          `duplicate mountPath ${JSON.stringify(m.mountPath)} (must be unique per container)`,
          R,
        );
      mountPaths.add(m.mountPath);
    }
    checkLocalDescendingPath(m.subPath, [...mat, 'subPath'], p);
    checkLocalDescendingPath(m.subPathExpr, [...mat, 'subPathExpr'], p);
    if (m.subPath !== undefined && m.subPathExpr !== undefined)
      p.add(mat, 'subPath and subPathExpr are mutually exclusive', R);
  });
  arr(c.volumeDevices).forEach((d, i) => {
    if (isObj(d) && typeof d.name === 'string' && !volumes.has(d.name)) {
      p.add([...at, 'volumeDevices', i, 'name'], `volume ${JSON.stringify(d.name)} not found in the pod's volumes`, R);
    }
  });
}

function checkPorts(c: Record<string, unknown>, at: Seg[], p: Problems): void {
  const portNames = new Set<string>();
  arr(c.ports).forEach((port, i) => {
    if (!isObj(port)) return;
    const pat = [...at, 'ports', i];
    const cp = port.containerPort;
    if (typeof cp === 'number' && (cp < 1 || cp > 65535))
      p.add([...pat, 'containerPort'], `must be between 1 and 65535, got ${cp}`, R);
    if (typeof port.name === 'string' && port.name !== '') {
      const e = portNameError(port.name);
      if (e) p.add([...pat, 'name'], `bad port name ${JSON.stringify(port.name)}: ${e}`, R);
      else if (portNames.has(port.name)) p.add([...pat, 'name'], `duplicate port name ${JSON.stringify(port.name)}`, R);
      portNames.add(port.name);
    }
  });
}

export type ContainerList = 'initContainers' | 'containers' | 'ephemeralContainers';

/** One container; `names` collects the names of all lists of the pod (they must be unique across lists). */
export function checkContainer(
  c: Record<string, unknown>,
  list: ContainerList,
  at: Seg[],
  p: Problems,
  volumes: Set<string>,
  names: Set<string>,
): void {
  const name = str(c.name);
  if (name === undefined || name === '') p.add([...at, 'name'], MSG.required, R);
  else {
    const e = dns1123Label(name);
    if (e) p.add([...at, 'name'], `bad name ${JSON.stringify(name)}: ${e}`, R);
    if (names.has(name)) p.add([...at, 'name'], `duplicate container name ${JSON.stringify(name)}`, R);
    names.add(name);
  }
  if (list !== 'ephemeralContainers' && (c.image === undefined || c.image === ''))
    p.add([...at, 'image'], MSG.required, R);
  if (typeof c.image === 'string' && c.image !== c.image.trim())
    p.add([...at, 'image'], 'must not have leading or trailing whitespace', R);
  if (list === 'initContainers' && c.restartPolicy !== 'Always') {
    for (const f of INIT_CONTAINER_FORBIDDEN) {
      if (c[f] !== undefined) p.add([...at, f], 'may not be set for init containers without restartPolicy=Always', R);
    }
  }
  checkEnv(c, at, p);
  checkMounts(c, at, p, volumes);
  checkPorts(c, at, p);
  checkResources(c.resources, [...at, 'resources'], p);
}
