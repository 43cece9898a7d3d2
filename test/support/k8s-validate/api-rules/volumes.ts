/**
 * API-server rules (Kubernetes 1.28) for pod volumes.
 *
 * Sources (kubernetes/kubernetes, release-1.28), pkg/apis/core/validation/validation.go: ValidateVolumes
 * (unique DNS-1123 label names), validateVolumeSource (exactly one volume type), validateHostPathVolumeSource
 * and validatePathNoBacksteps, validateSecretVolumeSource / validateConfigMapVolumeSource /
 * validateProjectionSources / validateDownwardAPIVolumeFile and validateKeyToPath
 * (ValidateLocalNonReservedPath, file modes), validateEphemeralVolumeSource →
 * ValidatePersistentVolumeClaimTemplate (ValidateTemplateObjectMeta + ValidatePersistentVolumeClaimSpec).
 *
 * One rule is stricter than 1.28's validateKeyToPath, which only requires a non-empty key: item keys must
 * be config keys (IsConfigMapKey), because ValidateConfigMap/ValidateSecret allow no other key, so an item
 * naming another key can never be mounted.
 */
import { MSG, Problems, Seg, arr, isObj, str } from '../problems';
import { R, checkTemplateObjectMeta, configKeyError, dns1123Label } from './meta';
import { checkPvcSpec } from './objects';
import { checkNonNegativeQuantity } from './quantity';

function checkMode(v: unknown, at: Seg[], p: Problems): void {
  if (typeof v === 'number' && Number.isInteger(v) && (v < 0 || v > 0o777)) {
    p.add(at, `must be a number between 0 and 0777 (octal), both inclusive; got ${v} (decimal)`, R);
  }
}

/** validatePathNoBacksteps: no `..` path element. */
export function checkNoBacksteps(v: unknown, at: Seg[], p: Problems): void {
  if (typeof v === 'string' && v.split('/').includes('..'))
    p.add(at, `must not contain "..", got ${JSON.stringify(v)}`, R);
}

/** validateLocalDescendingPath: relative, no `..` element (volume mount subPath / subPathExpr). */
export function checkLocalDescendingPath(v: unknown, at: Seg[], p: Problems): void {
  if (typeof v !== 'string' || v === '') return;
  if (v.startsWith('/')) p.add(at, `must be a relative path, got ${JSON.stringify(v)}`, R);
  checkNoBacksteps(v, at, p);
}

/** ValidateLocalNonReservedPath: a descending path that does not start with `..` either. */
function checkLocalNonReservedPath(v: unknown, at: Seg[], p: Problems): void {
  checkLocalDescendingPath(v, at, p);
  if (typeof v === 'string' && v.startsWith('..') && !v.startsWith('../'))
    p.add(at, `must not start with "..", got ${JSON.stringify(v)}`, R);
}

/** validateKeyToPath (secret, configMap and their projections) and DownwardAPIVolumeFile paths. */
function checkItems(
  source: Record<string, unknown>,
  at: Seg[],
  p: Problems,
  withKeys: boolean,
  paths?: Set<string>,
): void {
  arr(source.items).forEach((item, j) => {
    if (!isObj(item)) return;
    const iat = [...at, 'items', j];
    if (withKeys) {
      if (item.key === undefined || item.key === '') p.add([...iat, 'key'], MSG.required, R);
      else if (typeof item.key === 'string') {
        const e = configKeyError(item.key);
        if (e)
          p.add([...iat, 'key'], `bad key ${JSON.stringify(item.key)}: ${e}; no ConfigMap or Secret can hold it`, R);
      }
    }
    if (item.path === undefined || item.path === '') p.add([...iat, 'path'], MSG.required, R);
    checkLocalNonReservedPath(item.path, [...iat, 'path'], p);
    checkMode(item.mode, [...iat, 'mode'], p);
    if (paths && typeof item.path === 'string' && item.path !== '') {
      if (paths.has(item.path))
        p.add([...iat, 'path'], `conflicting duplicate path ${JSON.stringify(item.path)} in the projected volume`, R);
      paths.add(item.path);
    }
  });
}

function checkVolume(vol: Record<string, unknown>, vat: Seg[], p: Problems): void {
  const sources = Object.keys(vol).filter((k) => k !== 'name');
  if (sources.length > 1) p.add(vat, `may not specify more than 1 volume type (has ${sources.join(', ')})`, R);
  if (sources.length === 0) p.add(vat, `${MSG.required}: must specify a volume type`, R);
  for (const src of ['secret', 'configMap', 'downwardAPI'] as const) {
    const s = vol[src];
    if (!isObj(s)) continue;
    checkMode(s.defaultMode, [...vat, src, 'defaultMode'], p);
    checkItems(s, [...vat, src], p, src !== 'downwardAPI');
  }
  if (isObj(vol.projected)) {
    checkMode(vol.projected.defaultMode, [...vat, 'projected', 'defaultMode'], p);
    const paths = new Set<string>();
    arr(vol.projected.sources).forEach((x, j) => {
      if (!isObj(x)) return;
      for (const [kind, s] of Object.entries(x)) {
        if (isObj(s)) checkItems(s, [...vat, 'projected', 'sources', j, kind], p, kind !== 'downwardAPI', paths);
      }
    });
  }
  if (isObj(vol.emptyDir)) checkNonNegativeQuantity(vol.emptyDir.sizeLimit, [...vat, 'emptyDir', 'sizeLimit'], p);
  if (isObj(vol.hostPath)) {
    if (vol.hostPath.path === undefined || vol.hostPath.path === '')
      p.add([...vat, 'hostPath', 'path'], MSG.required, R);
    checkNoBacksteps(vol.hostPath.path, [...vat, 'hostPath', 'path'], p);
  }
  if (isObj(vol.ephemeral)) {
    const tat = [...vat, 'ephemeral', 'volumeClaimTemplate'];
    const t = vol.ephemeral.volumeClaimTemplate;
    if (t === undefined) p.add(tat, MSG.required, R);
    else if (isObj(t)) {
      checkTemplateObjectMeta(t.metadata, [...tat, 'metadata'], p);
      if (t.spec === undefined) p.add([...tat, 'spec'], MSG.required, R);
      else checkPvcSpec(t.spec, [...tat, 'spec'], p);
    }
  }
}

/** Checks the pod's volumes; returns their names (what mounts may name). */
export function checkVolumes(volumes: unknown, at: Seg[], p: Problems): Set<string> {
  const names = new Set<string>();
  arr(volumes).forEach((vol, i) => {
    if (!isObj(vol)) return;
    const vat = [...at, i];
    const name = str(vol.name);
    if (name === undefined || name === '') p.add([...vat, 'name'], MSG.required, R);
    else {
      const e = dns1123Label(name);
      if (e) p.add([...vat, 'name'], `bad name ${JSON.stringify(name)}: ${e}`, R);
      if (names.has(name)) p.add([...vat, 'name'], `duplicate volume name ${JSON.stringify(name)}`, R);
      names.add(name);
    }
    checkVolume(vol, vat, p);
  });
  return names;
}
