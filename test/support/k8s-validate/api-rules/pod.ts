/**
 * API-server rules for pod templates: pod spec, volumes, containers.
 */
import { MSG, Problems, Seg, arr, isObj, str } from '../problems';
import { ENV_VAR_NAME_RE, R, checkLabels, checkObjectMeta, dns1123Label, dns1123Subdomain } from './meta';
import { checkPvcSpec } from './objects';
import { checkResources, quantityValue } from './quantity';
import { checkAffinity, checkTolerations } from './scheduling';

export function nonNegative(obj: Record<string, unknown>, field: string, at: Seg[], p: Problems, strictlyPositive = false): void {
  const v = obj[field];
  if (typeof v !== 'number') return;
  if (strictlyPositive ? v <= 0 : v < 0) p.add([...at, field], `must be ${strictlyPositive ? 'greater than 0' : 'greater than or equal to 0'}`, R);
}

function checkMode(v: unknown, at: Seg[], p: Problems): void {
  if (typeof v === 'number' && Number.isInteger(v) && (v < 0 || v > 0o777)) {
    p.add(at, `must be a number between 0 and 0777 (octal), both inclusive; got ${v} (decimal)`, R);
  }
}

function relativePath(v: unknown, at: Seg[], p: Problems): void {
  if (typeof v !== 'string' || v === '') return;
  if (v.startsWith('/')) p.add(at, 'must be a relative path', R);
  if (v.split('/').includes('..')) p.add(at, 'must not contain ".."', R);
}

const JOB_RESTART_POLICIES = ['OnFailure', 'Never'];
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

export function checkPodTemplate(tpl: unknown, at: Seg[], p: Problems, forJob: boolean): void {
  if (!isObj(tpl)) return;
  checkObjectMeta(tpl.metadata, [...at, 'metadata'], p, undefined, false);
  if (tpl.spec === undefined) {
    p.add([...at, 'spec'], MSG.required, R);
    return;
  }
  checkPodSpec(tpl.spec, [...at, 'spec'], p, forJob);
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
  if (typeof spec.serviceAccountName === 'string' && spec.serviceAccountName !== '') {
    const e = dns1123Subdomain(spec.serviceAccountName);
    if (e) p.add([...at, 'serviceAccountName'], `bad name ${JSON.stringify(spec.serviceAccountName)}: ${e}`, R);
  }
  checkLabels(spec.nodeSelector, [...at, 'nodeSelector'], p);

  // volumes
  const volumes = new Set<string>();
  arr(spec.volumes).forEach((vol, i) => {
    const vat = [...at, 'volumes', i];
    if (!isObj(vol)) return;
    const name = str(vol.name);
    if (name !== undefined) {
      const e = dns1123Label(name);
      if (e) p.add([...vat, 'name'], `bad name ${JSON.stringify(name)}: ${e}`, R);
      if (volumes.has(name)) p.add([...vat, 'name'], `duplicate volume name ${JSON.stringify(name)}`, R);
      volumes.add(name);
    }
    const sources = Object.keys(vol).filter((k) => k !== 'name');
    if (sources.length > 1) p.add(vat, `may not specify more than 1 volume type (has ${sources.join(', ')})`, R);
    for (const src of ['secret', 'configMap', 'downwardAPI', 'projected']) {
      const s = vol[src];
      if (!isObj(s)) continue;
      checkMode(s.defaultMode, [...vat, src, 'defaultMode'], p);
      const itemsList = src === 'projected' ? arr(s.sources).flatMap((x, j) =>
        isObj(x) ? Object.entries(x).map(([k, v]) => ({ v, at: [...vat, src, 'sources', j, k] })) : []) : [{ v: s, at: [...vat, src] }];
      for (const { v, at: sat } of itemsList) {
        if (!isObj(v)) continue;
        arr(v.items).forEach((item, j) => {
          if (!isObj(item)) return;
          checkMode(item.mode, [...sat, 'items', j, 'mode'], p);
          relativePath(item.path, [...sat, 'items', j, 'path'], p);
        });
      }
    }
    if (isObj(vol.emptyDir)) {
      const n = quantityValue(vol.emptyDir.sizeLimit);
      if (n !== undefined && n < 0) p.add([...vat, 'emptyDir', 'sizeLimit'], 'must be greater than or equal to 0', R);
    }
    if (isObj(vol.hostPath) && typeof vol.hostPath.path === 'string' && vol.hostPath.path === '') {
      p.add([...vat, 'hostPath', 'path'], MSG.required, R);
    }
    if (isObj(vol.ephemeral)) {
      const t = vol.ephemeral.volumeClaimTemplate;
      if (t === undefined) p.add([...vat, 'ephemeral', 'volumeClaimTemplate'], MSG.required, R);
      else if (isObj(t)) {
        checkObjectMeta(t.metadata, [...vat, 'ephemeral', 'volumeClaimTemplate', 'metadata'], p, undefined, false);
        if (t.spec === undefined) p.add([...vat, 'ephemeral', 'volumeClaimTemplate', 'spec'], MSG.required, R);
        else checkPvcSpec(t.spec, [...vat, 'ephemeral', 'volumeClaimTemplate', 'spec'], p);
      }
    }
  });

  // containers
  const containerNames = new Set<string>();
  for (const list of ['initContainers', 'containers', 'ephemeralContainers']) {
    arr(spec[list]).forEach((c, i) => {
      if (!isObj(c)) return;
      checkContainer(c, [...at, list, i], p, volumes, containerNames, list !== 'ephemeralContainers');
    });
  }

  checkTolerations(spec.tolerations, [...at, 'tolerations'], p);
  // affinity
  if (isObj(spec.affinity)) checkAffinity(spec.affinity, [...at, 'affinity'], p);
}

function checkContainer(
  c: Record<string, unknown>,
  at: Seg[],
  p: Problems,
  volumes: Set<string>,
  names: Set<string>,
  needsImage: boolean,
): void {
  const name = str(c.name);
  if (name !== undefined) {
    const e = dns1123Label(name);
    if (e) p.add([...at, 'name'], `bad name ${JSON.stringify(name)}: ${e}`, R);
    if (names.has(name)) p.add([...at, 'name'], `duplicate container name ${JSON.stringify(name)}`, R);
    names.add(name);
  }
  if (needsImage && (c.image === undefined || c.image === '')) p.add([...at, 'image'], MSG.required, R);
  if (typeof c.image === 'string' && c.image !== c.image.trim()) p.add([...at, 'image'], 'must not have leading or trailing whitespace', R);

  const envNames = new Set<string>();
  arr(c.env).forEach((e, i) => {
    if (!isObj(e)) return;
    const eat = [...at, 'env', i];
    const n = str(e.name);
    if (n !== undefined) {
      if (!ENV_VAR_NAME_RE.test(n)) p.add([...eat, 'name'], `bad env var name ${JSON.stringify(n)}: must match [-._a-zA-Z][-._a-zA-Z0-9]*`, R);
      if (envNames.has(n)) p.add([...eat, 'name'], `duplicate env var name ${JSON.stringify(n)} (the API server only warns; the later entry wins)`, R);
      envNames.add(n);
    }
    if (e.valueFrom !== undefined) {
      if (typeof e.value === 'string' && e.value !== '') p.add(eat, 'may not have both value and valueFrom', R);
      if (isObj(e.valueFrom)) {
        const n2 = Object.keys(e.valueFrom).length;
        if (n2 !== 1) p.add([...eat, 'valueFrom'], `must specify exactly one source (has ${n2})`, R);
        const fp = isObj(e.valueFrom.fieldRef) ? e.valueFrom.fieldRef.fieldPath : undefined;
        if (typeof fp === 'string' && !ENV_FIELD_PATHS.includes(fp) && !/^metadata\.(labels|annotations)\['[^']+'\]$/.test(fp)) {
          p.add([...eat, 'valueFrom', 'fieldRef', 'fieldPath'], `${MSG.enumValue(fp, ENV_FIELD_PATHS)} (or metadata.labels['<key>'] / metadata.annotations['<key>'])`, R);
        }
        const rr = isObj(e.valueFrom.resourceFieldRef) ? e.valueFrom.resourceFieldRef.resource : undefined;
        if (typeof rr === 'string' && !ENV_RESOURCES.includes(rr) && !/^(limits|requests)\.hugepages-.+$/.test(rr)) {
          p.add([...eat, 'valueFrom', 'resourceFieldRef', 'resource'], MSG.enumValue(rr, ENV_RESOURCES), R);
        }
      }
    }
  });
  arr(c.envFrom).forEach((e, i) => {
    if (!isObj(e)) return;
    const refs = ['configMapRef', 'secretRef'].filter((k) => e[k] !== undefined);
    if (refs.length !== 1) p.add([...at, 'envFrom', i], 'must specify exactly one of configMapRef or secretRef', R);
    if (typeof e.prefix === 'string' && e.prefix !== '' && !ENV_VAR_NAME_RE.test(e.prefix)) {
      p.add([...at, 'envFrom', i, 'prefix'], 'bad env var name prefix: must match [-._a-zA-Z][-._a-zA-Z0-9]*', R);
    }
  });

  const mountPaths = new Set<string>();
  arr(c.volumeMounts).forEach((m, i) => {
    if (!isObj(m)) return;
    const mat = [...at, 'volumeMounts', i];
    if (typeof m.name === 'string' && !volumes.has(m.name)) p.add([...mat, 'name'], `volume ${JSON.stringify(m.name)} not found in the pod's volumes`, R);
    if (typeof m.mountPath === 'string') {
      if (m.mountPath === '') p.add([...mat, 'mountPath'], MSG.required, R);
      if (mountPaths.has(m.mountPath)) p.add([...mat, 'mountPath'], `duplicate mountPath ${JSON.stringify(m.mountPath)}`, R);
      mountPaths.add(m.mountPath);
    }
    relativePath(m.subPath, [...mat, 'subPath'], p);
    if (m.subPath !== undefined && m.subPathExpr !== undefined) p.add(mat, 'subPath and subPathExpr are mutually exclusive', R);
  });
  arr(c.volumeDevices).forEach((d, i) => {
    if (isObj(d) && typeof d.name === 'string' && !volumes.has(d.name)) {
      p.add([...at, 'volumeDevices', i, 'name'], `volume ${JSON.stringify(d.name)} not found in the pod's volumes`, R);
    }
  });
  const portNames = new Set<string>();
  arr(c.ports).forEach((port, i) => {
    if (!isObj(port)) return;
    const cp = port.containerPort;
    if (typeof cp === 'number' && (cp < 1 || cp > 65535)) p.add([...at, 'ports', i, 'containerPort'], 'must be between 1 and 65535', R);
    if (typeof port.name === 'string') {
      if (portNames.has(port.name)) p.add([...at, 'ports', i, 'name'], `duplicate port name ${JSON.stringify(port.name)}`, R);
      portNames.add(port.name);
    }
  });
  checkResources(c.resources, [...at, 'resources'], p);
}
