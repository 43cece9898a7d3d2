/**
 * Layer `client-node`: a walker over the `getAttributeTypeMap()` type maps of @kubernetes/client-node
 * 1.3.0 (unknown fields at any depth, primitive types).
 */
import * as fs from 'fs';
import * as path from 'path';
import { ErrorSource, MSG, Problems, Seg, formatPath, isObj } from './problems';
import { isQuantity } from './api-rules/quantity';

interface Attr {
  name: string;
  baseName: string;
  type: string;
  format: string;
}

// client-node maps Quantity to `string`; the API accepts a JSON number too.
const QUANTITY_FIELDS = new Set([
  'V1ResourceRequirements.limits',
  'V1ResourceRequirements.requests',
  'V1VolumeResourceRequirements.limits',
  'V1VolumeResourceRequirements.requests',
  'V1EmptyDirVolumeSource.sizeLimit',
  'V1ResourceFieldSelector.divisor',
  'V1PodSpec.overhead',
  'V1ContainerStatus.allocatedResources',
  'V1PersistentVolumeClaimStatus.allocatedResources',
  'V1PersistentVolumeClaimStatus.capacity',
  'V1PersistentVolumeSpec.capacity',
  'V1ResourceQuotaSpec.hard',
  'V1ResourceQuotaStatus.hard',
  'V1ResourceQuotaStatus.used',
  'V1LimitRangeItem.default',
  'V1LimitRangeItem.defaultRequest',
  'V1LimitRangeItem.max',
  'V1LimitRangeItem.maxLimitRequestRatio',
  'V1LimitRangeItem.min',
  'V1NodeStatus.allocatable',
  'V1NodeStatus.capacity',
  'V1Overhead.podFixed',
]);

let modelsDir: string | undefined;
const typeMaps = new Map<string, Map<string, Attr> | null>();

function clientNodeModelsDir(): string {
  if (!modelsDir) {
    const pkg = require.resolve('@kubernetes/client-node/package.json');
    modelsDir = path.join(path.dirname(pkg), 'dist', 'gen', 'models');
  }
  return modelsDir;
}

/**
 * Returns the attribute map (JSON key -> attribute) of a client-node model class.
 * client-node 1.x is ESM-only, which jest's CommonJS runtime can't `require`; the generated
 * model files have no imports, so the class is evaluated from its source and its own
 * `getAttributeTypeMap()` is called.
 */
function typeMap(cls: string): Map<string, Attr> | null {
  let m = typeMaps.get(cls);
  if (m !== undefined) return m;
  m = null;
  if (/^[A-Za-z0-9]+$/.test(cls)) {
    const file = path.join(clientNodeModelsDir(), `${cls}.js`);
    if (fs.existsSync(file)) {
      const src = fs
        .readFileSync(file, 'utf8')
        .replace(/^export\s+/gm, '')
        .replace(/^\/\/# sourceMappingURL=.*$/m, '');
      if (/^\s*import\s/m.test(src)) throw new Error(`client-node model ${cls} has imports; cannot evaluate it`);
      // eslint-disable-next-line @typescript-eslint/no-implied-eval -- client-node is ESM-only: its model class is evaluated from source
      const klass = (new Function(`${src}\nreturn ${cls};`) as () => { getAttributeTypeMap(): Attr[] })();
      m = new Map(klass.getAttributeTypeMap().map((a) => [a.baseName, a]));
    }
  }
  typeMaps.set(cls, m);
  return m;
}

const INT32 = 2 ** 31;
const INT64 = 2 ** 63;

export function walkClientNode(value: unknown, cls: string, at: Seg[], p: Problems): void {
  checkCnType(value, cls, '', false, at, p);
}

function checkCnType(value: unknown, type: string, format: string, quantity: boolean, at: Seg[], p: Problems): void {
  const src: ErrorSource = 'client-node';
  switch (type) {
    case 'any':
      return;
    case 'string':
      if (quantity) {
        if (typeof value === 'number' && Number.isFinite(value)) return;
        if (typeof value !== 'string') return p.add(at, MSG.wrongType('number or string', value), src);
        if (!isQuantity(value)) p.add(at, `bad quantity ${JSON.stringify(value)}`, 'api-rules');
        return;
      }
      if (typeof value !== 'string') return p.add(at, MSG.wrongType('string', value), src);
      if (format === 'byte' && !isBase64(value)) p.add(at, MSG.base64, src);
      return;
    case 'Date':
      if (typeof value !== 'string') p.add(at, MSG.wrongType('string', value), src);
      return;
    case 'boolean':
      if (typeof value !== 'boolean') p.add(at, MSG.wrongType('boolean', value), src);
      return;
    case 'number':
      if (format === 'int32' || format === 'int64') {
        if (typeof value !== 'number' || !Number.isInteger(value))
          return p.add(at, MSG.wrongType('integer', value), src);
        if (format === 'int32' && (value < -INT32 || value >= INT32)) p.add(at, MSG.int32, src);
        if (format === 'int64' && (value < -INT64 || value >= INT64)) p.add(at, MSG.int64, src);
        return;
      }
      if (typeof value !== 'number' || !Number.isFinite(value)) p.add(at, MSG.wrongType('number', value), src);
      return;
    case 'IntOrString':
      if (typeof value === 'string') return;
      if (typeof value !== 'number' || !Number.isInteger(value))
        p.add(at, MSG.wrongType('string or integer', value), src);
      return;
  }
  const arr = /^Array<(.+)>$/.exec(type);
  if (arr) {
    if (!Array.isArray(value)) return p.add(at, MSG.wrongType('array', value), src);
    value.forEach((v, i) => checkCnType(v, arr[1], format, quantity, [...at, i], p));
    return;
  }
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map) {
    if (!isObj(value)) return p.add(at, MSG.wrongType('object', value), src);
    for (const [k, v] of Object.entries(value)) checkCnType(v, map[1], format, quantity, [...at, k], p);
    return;
  }
  const attrs = typeMap(type);
  if (!attrs)
    throw new Error(`k8s-validate: unsupported client-node type ${JSON.stringify(type)} at ${formatPath(at)}`);
  if (!isObj(value)) return p.add(at, MSG.wrongType('object', value), src);
  for (const [k, v] of Object.entries(value)) {
    const a = attrs.get(k);
    if (!a) {
      p.add([...at, k], MSG.unknown, src);
      continue;
    }
    if (v === undefined) continue;
    checkCnType(v, a.type, a.format, QUANTITY_FIELDS.has(`${type}.${a.baseName}`), [...at, k], p);
  }
}

function isBase64(s: string): boolean {
  const t = s.replace(/[\r\n]/g, '');
  return t.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(t);
}
