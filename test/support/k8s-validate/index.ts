/**
 * Strict Kubernetes manifest validator for the test suite.
 *
 * Layers (each error is tagged with the layer(s) that reported it):
 *  - `kubernetes-models`: the precompiled validators of kubernetes-models 4.5.1
 *    (types, enums, required fields; they do NOT reject unknown fields).
 *  - `client-node`: a walker over the `getAttributeTypeMap()` type maps of
 *    @kubernetes/client-node 1.3.0 (unknown fields at any depth, primitive types).
 *  - `k8s-1.28-schema`: only when `../shared/k8s-schema/v1.28.0/_definitions.json`
 *    exists next to the repo: ajv 8 over the official definitions made strict
 *    (`additionalProperties: false` wherever a schema lists `properties`).
 *  - `api-rules`: hand-written copies of API-server validation that no schema
 *    expresses (names, labels, uniqueness, references between fields, ...).
 *  - `prometheus-rule`: a hand-written strict check for
 *    monitoring.coreos.com/v1 PrometheusRule (no package ships its schema).
 *
 * Errors look like `spec.jobTemplate.spec.template.spec.containers[0].bogus: unknown field [client-node, k8s-1.28-schema]`.
 */
import * as fs from 'fs';
import * as path from 'path';
import Ajv from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { CronJob } from 'kubernetes-models/batch/v1/CronJob';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { PersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import { Secret } from 'kubernetes-models/v1/Secret';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import { Role } from 'kubernetes-models/rbac.authorization.k8s.io/v1/Role';
import { RoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/RoleBinding';

// ---------------------------------------------------------------------------
// Public API
// ---------------------------------------------------------------------------

export interface ValidateOptions {
  /**
   * Also validate against the strict k8s 1.28 JSON schema from the shared folder
   * when it exists (default `true`). `false` forces the packaged-only path.
   */
  useSharedSchema?: boolean;
}

/** Where the optional strict schema is looked up (`<repo>/../shared/k8s-schema/v1.28.0/_definitions.json`). */
export const SHARED_SCHEMA_PATH = path.resolve(
  __dirname,
  '..',
  '..',
  '..',
  'shared',
  'k8s-schema',
  'v1.28.0',
  '_definitions.json',
);

export type ErrorSource = 'kubernetes-models' | 'client-node' | 'k8s-1.28-schema' | 'api-rules' | 'prometheus-rule';

let sharedAvailableCache: boolean | undefined;

/** Whether the strict shared schema file exists (checked once). Missing is not an error, also not with CI=true. */
export function sharedSchemaAvailable(): boolean {
  if (sharedAvailableCache === undefined) sharedAvailableCache = fs.existsSync(SHARED_SCHEMA_PATH);
  return sharedAvailableCache;
}

/** `apiVersion/kind` strings this validator knows. */
export function supportedKinds(): string[] {
  return [...KINDS.keys()];
}

/**
 * Validate one manifest. Returns a list of problems; empty means valid.
 * Each problem is `<json path>: <what is wrong> [<layers that found it>]`.
 */
export function validateManifest(input: unknown, options: ValidateOptions = {}): string[] {
  // Object properties whose value is `undefined` vanish when serialised, so they are treated as absent.
  const obj = dropUndefined(input);
  const p = new Problems(obj);
  if (!isObj(obj)) {
    p.add([], `wrong type: expected object, got ${typeName(obj)}`, 'api-rules');
    return p.list();
  }
  const { apiVersion, kind } = obj;
  if (typeof apiVersion !== 'string' || apiVersion === '') p.add(['apiVersion'], 'missing required field', 'api-rules');
  if (typeof kind !== 'string' || kind === '') p.add(['kind'], 'missing required field', 'api-rules');
  if (p.size > 0) return p.list();
  const key = `${apiVersion as string}/${kind as string}`;
  const spec = KINDS.get(key);
  if (!spec) {
    p.add([], `no schema for ${key}`, 'api-rules');
    return p.list();
  }

  if (spec.model) runModel(spec.model, obj, p);
  if (spec.clientNodeType) walkClientNode(obj, spec.clientNodeType, [], p);
  if (spec.definition && options.useSharedSchema !== false && sharedSchemaAvailable()) {
    runShared(spec.definition, obj, p);
  }
  checkObjectMeta(obj.metadata, ['metadata'], p, spec.nameRule, true);
  spec.rules?.(obj, p);
  return p.list();
}

/**
 * Throws one Error listing every problem of every object (prefixed with index, kind and name).
 * Does nothing when all objects are valid.
 */
export function expectValidManifests(objs: unknown[], options: ValidateOptions = {}): void {
  const lines: string[] = [];
  objs.forEach((o, i) => {
    const errors = validateManifest(o, options);
    if (errors.length === 0) return;
    const kind = isObj(o) && typeof o.kind === 'string' ? o.kind : '?';
    const name = isObj(o) && isObj(o.metadata) && typeof o.metadata.name === 'string' ? o.metadata.name : '?';
    for (const e of errors) lines.push(`[${i}] ${kind}/${name}: ${e}`);
  });
  if (lines.length > 0) {
    const count = objs.length;
    throw new Error(
      `${lines.length} manifest problem(s) in ${count} object(s)` +
        `${sharedSchemaAvailable() ? '' : ' (strict k8s 1.28 schema not available; packaged validators only)'}:\n` +
        lines.join('\n'),
    );
  }
}

// ---------------------------------------------------------------------------
// Problem collection and paths
// ---------------------------------------------------------------------------

type Seg = string | number;
type Path = readonly Seg[];

const SOURCE_ORDER: ErrorSource[] = ['kubernetes-models', 'client-node', 'k8s-1.28-schema', 'api-rules', 'prometheus-rule'];

class Problems {
  private readonly map = new Map<string, Set<ErrorSource>>();
  constructor(readonly root: unknown) {}
  get size(): number {
    return this.map.size;
  }
  add(at: Path, message: string, source: ErrorSource): void {
    const key = `${formatPath(at)}: ${message}`;
    let s = this.map.get(key);
    if (!s) this.map.set(key, (s = new Set()));
    s.add(source);
  }
  list(): string[] {
    return [...this.map.entries()].map(
      ([k, s]) => `${k} [${SOURCE_ORDER.filter((x) => s.has(x)).join(', ')}]`,
    );
  }
}

function formatPath(at: Path): string {
  if (at.length === 0) return '(root)';
  let out = '';
  for (const s of at) {
    if (typeof s === 'number') out += `[${s}]`;
    else if (/^[A-Za-z_$][A-Za-z0-9_$-]*$/.test(s)) out += out === '' ? s : `.${s}`;
    else out += `[${JSON.stringify(s)}]`;
  }
  return out;
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function dropUndefined(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(dropUndefined);
  if (!isObj(v) || Object.getPrototypeOf(v) !== Object.prototype) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) if (x !== undefined) out[k] = dropUndefined(x);
  return out;
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v === 'number' && !Number.isFinite(v)) return String(v);
  if (isObj(v) && Object.getPrototypeOf(v) !== Object.prototype && Object.getPrototypeOf(v) !== null) {
    return `${(v as object).constructor?.name ?? 'object'} instance`;
  }
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/** Splits an ajv instancePath (JSON pointer) into segments, using the data to tell array indexes apart. */
function pointerToPath(root: unknown, pointer: string): { at: Seg[]; value: unknown } {
  const at: Seg[] = [];
  let cur: unknown = root;
  if (pointer === '') return { at, value: cur };
  for (const raw of pointer.slice(1).split('/')) {
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(cur) && /^\d+$/.test(seg)) {
      at.push(Number(seg));
      cur = cur[Number(seg)];
    } else {
      at.push(seg);
      cur = isObj(cur) ? cur[seg] : undefined;
    }
  }
  return { at, value: cur };
}

// Shared vocabulary so that the same problem found by several layers collapses into one line.
const MSG = {
  unknown: 'unknown field',
  required: 'missing required field',
  wrongType: (expected: string, v: unknown) => `wrong type: expected ${expected}, got ${typeName(v)}`,
  enumValue: (v: unknown, allowed: readonly unknown[]) =>
    `value ${JSON.stringify(v)} not in enum ${JSON.stringify(allowed)}`,
  base64: 'invalid base64 data',
  int32: 'integer out of int32 range',
  int64: 'integer out of int64 range',
};

// ---------------------------------------------------------------------------
// ajv error normalisation (kubernetes-models and the shared schema are both ajv)
// ---------------------------------------------------------------------------

function addAjvErrors(errors: readonly ErrorObject[], p: Problems, source: ErrorSource): void {
  const byPath = new Map<string, ErrorObject[]>();
  for (const e of errors) {
    const list = byPath.get(e.instancePath);
    if (list) list.push(e);
    else byPath.set(e.instancePath, [e]);
  }
  for (const [pointer, errs] of byPath) {
    const { at, value } = pointerToPath(p.root, pointer);
    const types = [...new Set(errs.filter((e) => e.keyword === 'type').map((e) => String(e.params.type)))];
    if (types.length > 0) p.add(at, MSG.wrongType(types.join(' or '), value), source);
    for (const e of errs) {
      switch (e.keyword) {
        case 'type':
          break;
        case 'oneOf':
        case 'anyOf':
          if (types.length === 0) p.add(at, `invalid value: ${e.message ?? e.keyword}`, source);
          break;
        case 'format':
          if (types.length === 0) {
            const f = String(e.params.format);
            p.add(at, f === 'byte' ? MSG.base64 : f === 'int32' ? MSG.int32 : f === 'int64' ? MSG.int64 : `invalid format: expected ${f}`, source);
          }
          break;
        case 'required':
          p.add([...at, String(e.params.missingProperty)], MSG.required, source);
          break;
        case 'additionalProperties':
          p.add([...at, String(e.params.additionalProperty)], MSG.unknown, source);
          break;
        case 'enum':
          p.add(at, MSG.enumValue(value, e.params.allowedValues as unknown[]), source);
          break;
        default:
          p.add(at, `${e.keyword}: ${e.message ?? 'invalid'}`, source);
      }
    }
  }
}

// ---------------------------------------------------------------------------
// Layer 1: kubernetes-models
// ---------------------------------------------------------------------------

type ModelCtor = new (data?: any) => { validate(): void };

function runModel(ctor: ModelCtor, obj: Record<string, unknown>, p: Problems): void {
  try {
    new ctor(obj).validate();
  } catch (err) {
    const errors = (err as { errors?: ErrorObject[] }).errors;
    if (!Array.isArray(errors)) throw err;
    addAjvErrors(errors, p, 'kubernetes-models');
  }
}

// ---------------------------------------------------------------------------
// Layer 2: @kubernetes/client-node type maps
// ---------------------------------------------------------------------------

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
      // eslint-disable-next-line @typescript-eslint/no-implied-eval
      const klass = new Function(`${src}\nreturn ${cls};`)() as { getAttributeTypeMap(): Attr[] };
      m = new Map(klass.getAttributeTypeMap().map((a) => [a.baseName, a]));
    }
  }
  typeMaps.set(cls, m);
  return m;
}

const INT32 = 2 ** 31;
const INT64 = 2 ** 63;

function walkClientNode(value: unknown, cls: string, at: Seg[], p: Problems): void {
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
        if (!QUANTITY_RE.test(value)) p.add(at, `bad quantity ${JSON.stringify(value)}`, 'api-rules');
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
        if (typeof value !== 'number' || !Number.isInteger(value)) return p.add(at, MSG.wrongType('integer', value), src);
        if (format === 'int32' && (value < -INT32 || value >= INT32)) p.add(at, MSG.int32, src);
        if (format === 'int64' && (value < -INT64 || value >= INT64)) p.add(at, MSG.int64, src);
        return;
      }
      if (typeof value !== 'number' || !Number.isFinite(value)) p.add(at, MSG.wrongType('number', value), src);
      return;
    case 'IntOrString':
      if (typeof value === 'string') return;
      if (typeof value !== 'number' || !Number.isInteger(value)) p.add(at, MSG.wrongType('string or integer', value), src);
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
  if (!attrs) throw new Error(`k8s-validate: unsupported client-node type ${JSON.stringify(type)} at ${formatPath(at)}`);
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

// ---------------------------------------------------------------------------
// Layer 3: the strict shared k8s 1.28 schema (optional)
// ---------------------------------------------------------------------------

let sharedAjv: Ajv | undefined;
const sharedValidators = new Map<string, ValidateFunction>();

/** Deep copy of a JSON schema with `additionalProperties: false` wherever `properties` is listed. */
function strictify(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(strictify);
  if (!isObj(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    if ((k === 'properties' || k === 'definitions' || k === 'patternProperties') && isObj(v)) {
      out[k] = Object.fromEntries(Object.entries(v).map(([n, s]) => [n, strictify(s)]));
    } else if (['items', 'additionalProperties', 'not', 'allOf', 'anyOf', 'oneOf'].includes(k)) {
      out[k] = strictify(v);
    } else {
      out[k] = v; // annotations (description, enum, x-kubernetes-*, ...) are kept as they are
    }
  }
  if (isObj(out.properties) && out.additionalProperties === undefined && out['x-kubernetes-preserve-unknown-fields'] !== true) {
    out.additionalProperties = false;
  }
  return out;
}

function sharedValidator(definition: string): ValidateFunction {
  let v = sharedValidators.get(definition);
  if (v) return v;
  if (!sharedAjv) {
    const raw = JSON.parse(fs.readFileSync(SHARED_SCHEMA_PATH, 'utf8')) as { definitions?: unknown };
    if (!isObj(raw.definitions)) throw new Error(`${SHARED_SCHEMA_PATH} has no "definitions"`);
    const definitions = Object.fromEntries(Object.entries(raw.definitions).map(([n, d]) => [n, strictify(d)]));
    sharedAjv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
    sharedAjv.addSchema({ $id: 'k8s', definitions });
  }
  // `kind` is an enum of the single right value in these definitions and `apiVersion` a plain
  // string; both are checked before dispatch, so valid objects pass.
  v = sharedAjv.compile({ $ref: `k8s#/definitions/${definition}` });
  sharedValidators.set(definition, v);
  return v;
}

function runShared(definition: string, obj: Record<string, unknown>, p: Problems): void {
  const v = sharedValidator(definition);
  if (!v(obj) && v.errors) addAjvErrors(v.errors, p, 'k8s-1.28-schema');
}

// ---------------------------------------------------------------------------
// Layer 4: API-server rules that schemas don't express
// ---------------------------------------------------------------------------

const R: ErrorSource = 'api-rules';
const DNS1123_LABEL_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED_NAME_RE = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE_RE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const ENV_VAR_NAME_RE = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;
const CONFIG_KEY_RE = /^[-._a-zA-Z0-9]+$/;
const QUANTITY_RE = /^[+-]?(\d+(\.\d*)?|\.\d+)(([KMGTPE]i)|[numkMGTPE]|[eE][+-]?\d+)?$/;

function dns1123Label(v: string): string | undefined {
  if (v.length > 63) return `must be no more than 63 characters (has ${v.length})`;
  if (!DNS1123_LABEL_RE.test(v)) return 'must be a DNS-1123 label (lower case alphanumerics and "-", start and end alphanumeric)';
  return undefined;
}

function dns1123Subdomain(v: string): string | undefined {
  if (v.length > 253) return `must be no more than 253 characters (has ${v.length})`;
  if (!DNS1123_SUBDOMAIN_RE.test(v)) {
    return 'must be a DNS-1123 subdomain (lower case alphanumerics, "-" and ".", start and end alphanumeric)';
  }
  return undefined;
}

function pathSegmentName(v: string): string | undefined {
  if (v === '.' || v === '..') return `may not be ${JSON.stringify(v)}`;
  if (v.includes('/') || v.includes('%')) return 'may not contain "/" or "%"';
  return undefined;
}

type NameRule = (name: string) => string | undefined;

const subdomainName: NameRule = dns1123Subdomain;
const cronJobName: NameRule = (n) =>
  dns1123Subdomain(n) ?? (n.length > 52 ? `must be no more than 52 characters for a CronJob (has ${n.length})` : undefined);
const jobName: NameRule = (n) =>
  dns1123Subdomain(n) ??
  (n.length > 63 ? `must be no more than 63 characters for a Job (it becomes the job-name label) (has ${n.length})` : undefined);

function qualifiedName(key: string): string | undefined {
  const parts = key.split('/');
  let name = key;
  if (parts.length === 2) {
    const prefix = parts[0];
    name = parts[1];
    if (prefix === '') return 'prefix part must be non-empty';
    const e = dns1123Subdomain(prefix);
    if (e) return `prefix part ${e}`;
  } else if (parts.length > 2) {
    return 'must be a qualified name: an optional DNS subdomain prefix and "/", then a name';
  }
  if (name === '') return 'name part must be non-empty';
  if (name.length > 63) return `name part must be no more than 63 characters (has ${name.length})`;
  if (!QUALIFIED_NAME_RE.test(name)) {
    return 'name part must consist of alphanumerics, "-", "_" or ".", and start and end with an alphanumeric';
  }
  return undefined;
}

function labelValue(v: string): string | undefined {
  if (v.length > 63) return `must be no more than 63 characters (has ${v.length})`;
  if (!LABEL_VALUE_RE.test(v)) return 'must be empty or consist of alphanumerics, "-", "_" or ".", and start and end with an alphanumeric';
  return undefined;
}

function checkLabels(labels: unknown, at: Seg[], p: Problems): void {
  if (!isObj(labels)) return;
  for (const [k, v] of Object.entries(labels)) {
    const ek = qualifiedName(k);
    if (ek) p.add([...at, k], `bad label key: ${ek}`, R);
    if (typeof v === 'string') {
      const ev = labelValue(v);
      if (ev) p.add([...at, k], `bad label value ${JSON.stringify(v)}: ${ev}`, R);
    }
  }
}

function checkAnnotations(ann: unknown, at: Seg[], p: Problems): void {
  if (!isObj(ann)) return;
  let total = 0;
  for (const [k, v] of Object.entries(ann)) {
    const ek = qualifiedName(k.toLowerCase());
    if (ek) p.add([...at, k], `bad annotation key: ${ek}`, R);
    total += k.length + (typeof v === 'string' ? v.length : 0);
  }
  if (total > 256 * 1024) p.add(at, `annotations too long: ${total} bytes, must be at most 262144`, R);
}

function checkObjectMeta(meta: unknown, at: Seg[], p: Problems, nameRule: NameRule | undefined, top: boolean): void {
  if (!isObj(meta)) {
    if (top && meta === undefined) p.add([...at, 'name'], MSG.required, R);
    return;
  }
  if (top && nameRule) {
    if (typeof meta.name === 'string' && meta.name !== '') {
      const e = nameRule(meta.name);
      if (e) p.add([...at, 'name'], `bad name ${JSON.stringify(meta.name)}: ${e}`, R);
    } else if (typeof meta.generateName === 'string' && meta.generateName !== '') {
      const masked = meta.generateName.replace(/-$/, 'a');
      const e = nameRule(masked);
      if (e) p.add([...at, 'generateName'], `bad name prefix ${JSON.stringify(meta.generateName)}: ${e}`, R);
    } else if (meta.name === undefined || meta.name === '') {
      p.add([...at, 'name'], MSG.required, R);
    }
  }
  if (typeof meta.namespace === 'string' && meta.namespace !== '') {
    const e = dns1123Label(meta.namespace);
    if (e) p.add([...at, 'namespace'], `bad name ${JSON.stringify(meta.namespace)}: ${e}`, R);
  }
  checkLabels(meta.labels, [...at, 'labels'], p);
  checkAnnotations(meta.annotations, [...at, 'annotations'], p);
}

function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function nonNegative(obj: Record<string, unknown>, field: string, at: Seg[], p: Problems, strictlyPositive = false): void {
  const v = obj[field];
  if (typeof v !== 'number') return;
  if (strictlyPositive ? v <= 0 : v < 0) p.add([...at, field], `must be ${strictlyPositive ? 'greater than 0' : 'greater than or equal to 0'}`, R);
}

const SUFFIX: Record<string, number> = {
  Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
  n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
};

/** Approximate numeric value of a quantity, or undefined when it's not a valid quantity. */
function quantityValue(q: unknown): number | undefined {
  if (typeof q === 'number') return Number.isFinite(q) ? q : undefined;
  if (typeof q !== 'string' || !QUANTITY_RE.test(q)) return undefined;
  const m = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(.*)$/.exec(q);
  if (!m) return undefined;
  const n = Number(m[1]);
  const suf = m[2];
  if (/^[eE]/.test(suf)) return n * 10 ** Number(suf.slice(1));
  return n * (SUFFIX[suf] ?? NaN);
}

function checkResources(res: unknown, at: Seg[], p: Problems): void {
  if (!isObj(res)) return;
  const limits = isObj(res.limits) ? res.limits : {};
  const requests = isObj(res.requests) ? res.requests : {};
  for (const [kind, map] of [['limits', limits], ['requests', requests]] as const) {
    for (const [k, v] of Object.entries(map)) {
      const n = quantityValue(v);
      if (n !== undefined && n < 0) p.add([...at, kind, k], 'must be greater than or equal to 0', R);
    }
  }
  for (const [k, v] of Object.entries(requests)) {
    const r = quantityValue(v);
    const l = quantityValue(limits[k]);
    if (r !== undefined && l !== undefined && r > l) {
      p.add([...at, 'requests', k], `must be less than or equal to ${k} limit of ${String(limits[k])}`, R);
    }
  }
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

function checkPodTemplate(tpl: unknown, at: Seg[], p: Problems, forJob: boolean): void {
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

  // tolerations
  arr(spec.tolerations).forEach((t, i) => {
    if (!isObj(t)) return;
    const tat = [...at, 'tolerations', i];
    const op = t.operator ?? 'Equal';
    if ((t.key === undefined || t.key === '') && op !== 'Exists') {
      p.add([...tat, 'operator'], 'must be "Exists" when key is empty (to match all keys)', R);
    }
    if (typeof t.key === 'string' && t.key !== '') {
      const e = qualifiedName(t.key);
      if (e) p.add([...tat, 'key'], `bad label key: ${e}`, R);
    }
    if (op === 'Exists' && typeof t.value === 'string' && t.value !== '') {
      p.add([...tat, 'value'], 'must be empty when operator is "Exists"', R);
    }
    if (t.tolerationSeconds !== undefined && t.effect !== 'NoExecute') {
      p.add([...tat, 'effect'], 'must be "NoExecute" when tolerationSeconds is set', R);
    }
  });

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

function checkLabelSelector(sel: unknown, at: Seg[], p: Problems): void {
  if (!isObj(sel)) return;
  checkLabels(sel.matchLabels, [...at, 'matchLabels'], p);
  arr(sel.matchExpressions).forEach((e, i) => checkRequirement(e, [...at, 'matchExpressions', i], p, false));
}

function checkRequirement(e: unknown, at: Seg[], p: Problems, node: boolean): void {
  if (!isObj(e)) return;
  const values = arr(e.values);
  if (typeof e.key === 'string') {
    const err = qualifiedName(e.key);
    if (err) p.add([...at, 'key'], `bad label key: ${err}`, R);
  }
  switch (e.operator) {
    case 'In':
    case 'NotIn':
      if (values.length === 0) p.add([...at, 'values'], `must be non-empty when operator is ${e.operator}`, R);
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (values.length > 0) p.add([...at, 'values'], `must be empty when operator is ${e.operator}`, R);
      break;
    case 'Gt':
    case 'Lt':
      if (!node) p.add([...at, 'operator'], MSG.enumValue(e.operator, ['In', 'NotIn', 'Exists', 'DoesNotExist']), R);
      else if (values.length !== 1 || !/^-?\d+$/.test(String(values[0]))) {
        p.add([...at, 'values'], `must have exactly one integer value when operator is ${e.operator}`, R);
      }
      break;
    default:
      if (!node && typeof e.operator === 'string') {
        p.add([...at, 'operator'], MSG.enumValue(e.operator, ['In', 'NotIn', 'Exists', 'DoesNotExist']), R);
      }
  }
}

function checkNodeSelectorTerm(t: unknown, at: Seg[], p: Problems): void {
  if (!isObj(t)) return;
  arr(t.matchExpressions).forEach((e, i) => checkRequirement(e, [...at, 'matchExpressions', i], p, true));
  arr(t.matchFields).forEach((e, i) => checkRequirement(e, [...at, 'matchFields', i], p, true));
}

function checkWeight(t: Record<string, unknown>, at: Seg[], p: Problems): void {
  if (typeof t.weight === 'number' && (t.weight < 1 || t.weight > 100)) p.add([...at, 'weight'], 'must be in the range 1-100', R);
}

function checkPodAffinityTerm(t: unknown, at: Seg[], p: Problems): void {
  if (!isObj(t)) return;
  if (t.topologyKey === '') p.add([...at, 'topologyKey'], 'can not be empty', R);
  else if (typeof t.topologyKey === 'string') {
    const e = qualifiedName(t.topologyKey);
    if (e) p.add([...at, 'topologyKey'], `bad label key: ${e}`, R);
  }
  checkLabelSelector(t.labelSelector, [...at, 'labelSelector'], p);
  checkLabelSelector(t.namespaceSelector, [...at, 'namespaceSelector'], p);
}

function checkAffinity(a: Record<string, unknown>, at: Seg[], p: Problems): void {
  const na = a.nodeAffinity;
  if (isObj(na)) {
    const req = na.requiredDuringSchedulingIgnoredDuringExecution;
    if (isObj(req)) {
      const terms = arr(req.nodeSelectorTerms);
      const tat = [...at, 'nodeAffinity', 'requiredDuringSchedulingIgnoredDuringExecution', 'nodeSelectorTerms'];
      if (Array.isArray(req.nodeSelectorTerms) && terms.length === 0) p.add(tat, 'must have at least one node selector term', R);
      terms.forEach((t, i) => checkNodeSelectorTerm(t, [...tat, i], p));
    }
    arr(na.preferredDuringSchedulingIgnoredDuringExecution).forEach((t, i) => {
      if (!isObj(t)) return;
      const tat = [...at, 'nodeAffinity', 'preferredDuringSchedulingIgnoredDuringExecution', i];
      checkWeight(t, tat, p);
      checkNodeSelectorTerm(t.preference, [...tat, 'preference'], p);
    });
  }
  for (const kind of ['podAffinity', 'podAntiAffinity']) {
    const pa = a[kind];
    if (!isObj(pa)) continue;
    arr(pa.requiredDuringSchedulingIgnoredDuringExecution).forEach((t, i) =>
      checkPodAffinityTerm(t, [...at, kind, 'requiredDuringSchedulingIgnoredDuringExecution', i], p),
    );
    arr(pa.preferredDuringSchedulingIgnoredDuringExecution).forEach((t, i) => {
      if (!isObj(t)) return;
      const tat = [...at, kind, 'preferredDuringSchedulingIgnoredDuringExecution', i];
      checkWeight(t, tat, p);
      checkPodAffinityTerm(t.podAffinityTerm, [...tat, 'podAffinityTerm'], p);
    });
  }
}

function checkJobSpec(spec: unknown, at: Seg[], p: Problems): void {
  if (!isObj(spec)) return;
  for (const f of ['backoffLimit', 'parallelism', 'completions', 'ttlSecondsAfterFinished']) nonNegative(spec, f, at, p);
  nonNegative(spec, 'activeDeadlineSeconds', at, p, true);
  if (spec.selector !== undefined && spec.manualSelector !== true) {
    p.add([...at, 'selector'], '`selector` is generated by the API server; set manualSelector: true to supply one', R);
  }
  checkPodTemplate(spec.template, [...at, 'template'], p, true);
}

// --- cron schedule (robfig/cron ParseStandard, as used by the CronJob validation) ---

const CRON_DESCRIPTORS = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly']);
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
const CRON_FIELDS: { name: string; min: number; max: number; names?: string[]; nameBase?: number }[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: MONTHS, nameBase: 1 },
  { name: 'day of week', min: 0, max: 6, names: DAYS, nameBase: 0 },
];
const GO_DURATION_RE = /^([0-9]*(\.[0-9]*)?(ns|us|µs|ms|s|m|h))+$/;

function cronScheduleError(schedule: string): string | undefined {
  const s = schedule.trim();
  if (s === '') return 'must not be empty';
  if (/^(CRON_)?TZ=/.test(s)) return 'cannot use TZ or CRON_TZ in schedule, use the timeZone field instead';
  if (s.startsWith('@')) {
    if (CRON_DESCRIPTORS.has(s)) return undefined;
    const every = /^@every\s+(\S+)$/.exec(s);
    if (every && GO_DURATION_RE.test(every[1])) return undefined;
    return `unrecognized descriptor ${JSON.stringify(s)}`;
  }
  const fields = s.split(/\s+/);
  if (fields.length !== 5) return `expected exactly 5 fields, found ${fields.length}`;
  for (let i = 0; i < 5; i++) {
    const f = CRON_FIELDS[i];
    const num = (t: string): number | undefined => {
      if (/^\d+$/.test(t)) return Number(t);
      const idx = f.names?.indexOf(t.toLowerCase()) ?? -1;
      return idx >= 0 ? idx + (f.nameBase ?? 0) : undefined;
    };
    for (const part of fields[i].split(',')) {
      const m = /^([^/]+)(?:\/(.+))?$/.exec(part);
      if (!m) return `bad ${f.name} field ${JSON.stringify(fields[i])}`;
      const [, range, step] = m;
      if (step !== undefined && !(/^\d+$/.test(step) && Number(step) > 0)) return `bad step in ${f.name} field ${JSON.stringify(part)}`;
      if (range === '*' || (range === '?' && (i === 2 || i === 4))) continue;
      const [lo, hi, extra] = range.split('-');
      if (extra !== undefined) return `bad range in ${f.name} field ${JSON.stringify(part)}`;
      const a = num(lo);
      const b = hi === undefined ? a : num(hi);
      if (a === undefined || b === undefined) return `bad value in ${f.name} field ${JSON.stringify(part)}`;
      if (a < f.min || b > f.max) return `${f.name} value out of range ${f.min}-${f.max} in ${JSON.stringify(part)}`;
      if (a > b) return `beginning of range after end in ${f.name} field ${JSON.stringify(part)}`;
    }
  }
  return undefined;
}

function timeZoneError(tz: string): string | undefined {
  if (tz.toLowerCase() === 'local') return 'must be an explicit IANA time zone, not "Local"';
  try {
    const resolved = new Intl.DateTimeFormat('en-US', { timeZone: tz }).resolvedOptions().timeZone;
    if (resolved !== tz && resolved.toLowerCase() === tz.toLowerCase()) return `unknown time zone (did you mean ${JSON.stringify(resolved)}?)`;
    return undefined;
  } catch {
    return 'unknown time zone';
  }
}

function checkCronJob(obj: Record<string, unknown>, p: Problems): void {
  const spec = obj.spec;
  if (spec === undefined) {
    p.add(['spec'], MSG.required, R);
    return;
  }
  if (!isObj(spec)) return;
  if (typeof spec.schedule === 'string') {
    const e = cronScheduleError(spec.schedule);
    if (e) p.add(['spec', 'schedule'], `bad cron schedule ${JSON.stringify(spec.schedule)}: ${e}`, R);
  }
  if (typeof spec.timeZone === 'string') {
    const e = timeZoneError(spec.timeZone);
    if (e) p.add(['spec', 'timeZone'], `bad time zone ${JSON.stringify(spec.timeZone)}: ${e}`, R);
  }
  for (const f of ['startingDeadlineSeconds', 'successfulJobsHistoryLimit', 'failedJobsHistoryLimit']) nonNegative(spec, f, ['spec'], p);
  const jt = spec.jobTemplate;
  if (isObj(jt)) {
    checkObjectMeta(jt.metadata, ['spec', 'jobTemplate', 'metadata'], p, undefined, false);
    if (jt.spec === undefined) p.add(['spec', 'jobTemplate', 'spec'], MSG.required, R);
    else checkJobSpec(jt.spec, ['spec', 'jobTemplate', 'spec'], p);
  }
}

function checkJob(obj: Record<string, unknown>, p: Problems): void {
  if (obj.spec === undefined) p.add(['spec'], MSG.required, R);
  else checkJobSpec(obj.spec, ['spec'], p);
}

const ACCESS_MODES = ['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOncePod'];

function checkPvcSpec(spec: unknown, at: Seg[], p: Problems): void {
  if (!isObj(spec)) return;
  if (!Array.isArray(spec.accessModes) || spec.accessModes.length === 0) {
    p.add([...at, 'accessModes'], `${MSG.required}: at least 1 access mode is required (${ACCESS_MODES.join(', ')})`, R);
  }
  const requests = isObj(spec.resources) && isObj(spec.resources.requests) ? spec.resources.requests : undefined;
  if (!requests || requests.storage === undefined) {
    p.add([...at, 'resources', 'requests', 'storage'], MSG.required, R);
  } else {
    const n = quantityValue(requests.storage);
    if (n !== undefined && n <= 0) p.add([...at, 'resources', 'requests', 'storage'], 'must be greater than 0', R);
  }
  if (isObj(spec.resources)) checkResources(spec.resources, [...at, 'resources'], p);
  if (typeof spec.storageClassName === 'string' && spec.storageClassName !== '') {
    const e = dns1123Subdomain(spec.storageClassName);
    if (e) p.add([...at, 'storageClassName'], `bad name ${JSON.stringify(spec.storageClassName)}: ${e}`, R);
  }
  checkLabelSelector(spec.selector, [...at, 'selector'], p);
}

function configKeyError(k: string): string | undefined {
  if (k.length > 253) return `must be no more than 253 characters (has ${k.length})`;
  if (!CONFIG_KEY_RE.test(k)) return 'must consist of alphanumerics, "-", "_" or "."';
  if (k === '.' || k === '..') return `must not be ${JSON.stringify(k)}`;
  if (k.startsWith('..')) return 'must not start with ".."';
  return undefined;
}

function checkDataKeys(obj: Record<string, unknown>, fields: string[], p: Problems, kind: string, dupCheck: boolean): void {
  const seen = new Map<string, string>();
  let total = 0;
  for (const f of fields) {
    const m = obj[f];
    if (!isObj(m)) continue;
    for (const [k, v] of Object.entries(m)) {
      const e = configKeyError(k);
      if (e) p.add([f, k], `bad ${kind} key: ${e}`, R);
      if (dupCheck && seen.has(k)) p.add([f, k], `duplicate key ${JSON.stringify(k)} (also in ${seen.get(k)})`, R);
      seen.set(k, f);
      total += typeof v === 'string' ? v.length : 0;
    }
  }
  if (total > 1024 * 1024) p.add([], `${kind} data too long: ${total} bytes, must be at most 1048576`, R);
}

function checkConfigMap(obj: Record<string, unknown>, p: Problems): void {
  checkDataKeys(obj, ['data', 'binaryData'], p, 'ConfigMap', true);
}

function checkSecret(obj: Record<string, unknown>, p: Problems): void {
  checkDataKeys(obj, ['data', 'stringData'], p, 'Secret', false);
  const keys = new Set([...Object.keys(isObj(obj.data) ? obj.data : {}), ...Object.keys(isObj(obj.stringData) ? obj.stringData : {})]);
  const need: Record<string, string[]> = {
    'kubernetes.io/tls': ['tls.crt', 'tls.key'],
    'kubernetes.io/dockerconfigjson': ['.dockerconfigjson'],
    'kubernetes.io/dockercfg': ['.dockercfg'],
    'kubernetes.io/ssh-auth': ['ssh-privatekey'],
  };
  const t = str(obj.type);
  for (const k of (t && need[t]) || []) {
    if (!keys.has(k)) p.add(['data', k], `${MSG.required} for Secret type ${t}`, R);
  }
}

const RBAC_GROUP = 'rbac.authorization.k8s.io';

function checkRole(obj: Record<string, unknown>, p: Problems): void {
  arr(obj.rules).forEach((r, i) => {
    if (!isObj(r)) return;
    const at = ['rules', i];
    if (arr(r.verbs).length === 0) p.add([...at, 'verbs'], 'must contain at least one value', R);
    if (arr(r.nonResourceURLs).length > 0) {
      p.add([...at, 'nonResourceURLs'], 'namespaced rules cannot apply to non-resource URLs', R);
    } else {
      if (arr(r.apiGroups).length === 0) p.add([...at, 'apiGroups'], 'resource rules must supply at least one api group', R);
      if (arr(r.resources).length === 0) p.add([...at, 'resources'], 'resource rules must supply at least one resource', R);
    }
  });
}

function checkRoleBinding(obj: Record<string, unknown>, p: Problems): void {
  const ref = obj.roleRef;
  if (isObj(ref)) {
    if (ref.apiGroup !== RBAC_GROUP) p.add(['roleRef', 'apiGroup'], MSG.enumValue(ref.apiGroup ?? '', [RBAC_GROUP]), R);
    if (typeof ref.kind === 'string' && !['Role', 'ClusterRole'].includes(ref.kind)) {
      p.add(['roleRef', 'kind'], MSG.enumValue(ref.kind, ['Role', 'ClusterRole']), R);
    }
    if (typeof ref.name === 'string') {
      const e = ref.name === '' ? 'must not be empty' : pathSegmentName(ref.name);
      if (e) p.add(['roleRef', 'name'], `bad name ${JSON.stringify(ref.name)}: ${e}`, R);
    }
  }
  arr(obj.subjects).forEach((s, i) => {
    if (!isObj(s)) return;
    const at = ['subjects', i];
    const name = str(s.name);
    if (name === '') p.add([...at, 'name'], MSG.required, R);
    switch (s.kind) {
      case 'ServiceAccount':
        if (s.apiGroup !== undefined && s.apiGroup !== '') p.add([...at, 'apiGroup'], MSG.enumValue(s.apiGroup, ['']), R);
        if (name) {
          const e = dns1123Subdomain(name);
          if (e) p.add([...at, 'name'], `bad name ${JSON.stringify(name)}: ${e}`, R);
        }
        if (typeof s.namespace === 'string' && s.namespace !== '') {
          const e = dns1123Label(s.namespace);
          if (e) p.add([...at, 'namespace'], `bad name ${JSON.stringify(s.namespace)}: ${e}`, R);
        }
        break;
      case 'User':
      case 'Group':
        if (s.apiGroup !== RBAC_GROUP) p.add([...at, 'apiGroup'], MSG.enumValue(s.apiGroup ?? '', [RBAC_GROUP]), R);
        break;
      default:
        if (typeof s.kind === 'string') p.add([...at, 'kind'], MSG.enumValue(s.kind, ['ServiceAccount', 'User', 'Group']), R);
    }
  });
}

function checkPvc(obj: Record<string, unknown>, p: Problems): void {
  if (obj.spec === undefined) p.add(['spec'], MSG.required, R);
  else checkPvcSpec(obj.spec, ['spec'], p);
}

// ---------------------------------------------------------------------------
// Layer 5: PrometheusRule (monitoring.coreos.com/v1), hand-written and strict
// ---------------------------------------------------------------------------

const PR: ErrorSource = 'prometheus-rule';
// prometheus-operator's Duration pattern (must also be non-empty)
const PROM_DURATION_RE = /^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$/;
const PROM_METRIC_NAME_RE = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const PROM_LABEL_NAME_RE = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

type FieldKind = 'string' | 'integer' | 'intOrString' | 'duration' | 'stringMap' | 'array' | 'object';

function strictFields(
  v: unknown,
  at: Seg[],
  p: Problems,
  fields: Record<string, FieldKind>,
  required: string[],
): v is Record<string, unknown> {
  if (!isObj(v)) {
    p.add(at, MSG.wrongType('object', v), PR);
    return false;
  }
  for (const r of required) if (v[r] === undefined) p.add([...at, r], MSG.required, PR);
  for (const [k, val] of Object.entries(v)) {
    const kind = fields[k];
    const kat = [...at, k];
    if (!kind) {
      p.add(kat, MSG.unknown, PR);
      continue;
    }
    switch (kind) {
      case 'string':
        if (typeof val !== 'string') p.add(kat, MSG.wrongType('string', val), PR);
        break;
      case 'integer':
        if (typeof val !== 'number' || !Number.isInteger(val)) p.add(kat, MSG.wrongType('integer', val), PR);
        else if (val < 0) p.add(kat, 'must be greater than or equal to 0', PR);
        break;
      case 'intOrString':
        if (typeof val !== 'string' && !(typeof val === 'number' && Number.isInteger(val))) {
          p.add(kat, MSG.wrongType('string or integer', val), PR);
        }
        break;
      case 'duration':
        if (typeof val !== 'string') p.add(kat, MSG.wrongType('string', val), PR);
        else if (val === '' || !PROM_DURATION_RE.test(val)) p.add(kat, `bad duration ${JSON.stringify(val)}: expected e.g. 30s, 5m, 1h30m`, PR);
        break;
      case 'stringMap':
        if (!isObj(val)) p.add(kat, MSG.wrongType('object', val), PR);
        else {
          for (const [mk, mv] of Object.entries(val)) {
            if (typeof mv !== 'string') p.add([...kat, mk], MSG.wrongType('string', mv), PR);
          }
        }
        break;
      case 'array':
        if (!Array.isArray(val)) p.add(kat, MSG.wrongType('array', val), PR);
        break;
      case 'object':
        if (!isObj(val)) p.add(kat, MSG.wrongType('object', val), PR);
        break;
    }
  }
  return true;
}

function checkPrometheusRule(obj: Record<string, unknown>, p: Problems): void {
  strictFields(obj, [], p, { apiVersion: 'string', kind: 'string', metadata: 'object', spec: 'object' }, ['metadata', 'spec']);
  if (isObj(obj.metadata)) walkClientNode(obj.metadata, 'V1ObjectMeta', ['metadata'], p);
  const spec = obj.spec;
  if (!isObj(spec)) return;
  strictFields(spec, ['spec'], p, { groups: 'array' }, []);
  const groupNames = new Set<string>();
  arr(spec.groups).forEach((g, i) => {
    const gat: Seg[] = ['spec', 'groups', i];
    const ok = strictFields(
      g,
      gat,
      p,
      {
        name: 'string',
        interval: 'duration',
        query_offset: 'duration',
        limit: 'integer',
        partial_response_strategy: 'string',
        labels: 'stringMap',
        rules: 'array',
      },
      ['name'],
    );
    if (!ok || !isObj(g)) return;
    if (g.name === '') p.add([...gat, 'name'], 'must not be empty', PR);
    if (typeof g.name === 'string' && g.name !== '') {
      if (groupNames.has(g.name)) p.add([...gat, 'name'], `duplicate rule group name ${JSON.stringify(g.name)}`, PR);
      groupNames.add(g.name);
    }
    if (typeof g.partial_response_strategy === 'string' && !/^(abort|warn)?$/i.test(g.partial_response_strategy)) {
      p.add([...gat, 'partial_response_strategy'], MSG.enumValue(g.partial_response_strategy, ['abort', 'warn']), PR);
    }
    arr(g.rules).forEach((r, j) => {
      const rat: Seg[] = [...gat, 'rules', j];
      const rok = strictFields(
        r,
        rat,
        p,
        {
          alert: 'string',
          record: 'string',
          expr: 'intOrString',
          for: 'duration',
          keep_firing_for: 'duration',
          labels: 'stringMap',
          annotations: 'stringMap',
        },
        ['expr'],
      );
      if (!rok || !isObj(r)) return;
      const isAlert = r.alert !== undefined;
      const isRecord = r.record !== undefined;
      if (isAlert === isRecord) p.add(rat, 'must have exactly one of alert or record', PR);
      if (r.expr === '') p.add([...rat, 'expr'], 'must not be empty', PR);
      if (isAlert && r.alert === '') p.add([...rat, 'alert'], 'must not be empty', PR);
      if (isRecord && typeof r.record === 'string' && !PROM_METRIC_NAME_RE.test(r.record)) {
        p.add([...rat, 'record'], `bad metric name ${JSON.stringify(r.record)}: must match [a-zA-Z_:][a-zA-Z0-9_:]*`, PR);
      }
      if (isRecord && !isAlert) {
        for (const f of ['for', 'keep_firing_for', 'annotations']) {
          if (r[f] !== undefined) p.add([...rat, f], 'only allowed in alerting rules', PR);
        }
      }
      for (const f of ['labels', 'annotations']) {
        if (!isObj(r[f])) continue;
        for (const k of Object.keys(r[f] as object)) {
          if (!PROM_LABEL_NAME_RE.test(k)) p.add([...rat, f, k], `bad label name ${JSON.stringify(k)}: must match [a-zA-Z_][a-zA-Z0-9_]*`, PR);
        }
      }
    });
  });
}

// ---------------------------------------------------------------------------
// Kind table
// ---------------------------------------------------------------------------

interface KindSpec {
  model?: ModelCtor;
  clientNodeType?: string;
  definition?: string;
  nameRule: NameRule;
  rules?: (obj: Record<string, unknown>, p: Problems) => void;
}

const KINDS = new Map<string, KindSpec>([
  ['batch/v1/CronJob', { model: CronJob, clientNodeType: 'V1CronJob', definition: 'io.k8s.api.batch.v1.CronJob', nameRule: cronJobName, rules: checkCronJob }],
  ['batch/v1/Job', { model: Job, clientNodeType: 'V1Job', definition: 'io.k8s.api.batch.v1.Job', nameRule: jobName, rules: checkJob }],
  [
    'v1/PersistentVolumeClaim',
    { model: PersistentVolumeClaim, clientNodeType: 'V1PersistentVolumeClaim', definition: 'io.k8s.api.core.v1.PersistentVolumeClaim', nameRule: subdomainName, rules: checkPvc },
  ],
  ['v1/ConfigMap', { model: ConfigMap, clientNodeType: 'V1ConfigMap', definition: 'io.k8s.api.core.v1.ConfigMap', nameRule: subdomainName, rules: checkConfigMap }],
  ['v1/Secret', { model: Secret, clientNodeType: 'V1Secret', definition: 'io.k8s.api.core.v1.Secret', nameRule: subdomainName, rules: checkSecret }],
  ['v1/ServiceAccount', { model: ServiceAccount, clientNodeType: 'V1ServiceAccount', definition: 'io.k8s.api.core.v1.ServiceAccount', nameRule: subdomainName }],
  [
    'rbac.authorization.k8s.io/v1/Role',
    { model: Role, clientNodeType: 'V1Role', definition: 'io.k8s.api.rbac.v1.Role', nameRule: pathSegmentName, rules: checkRole },
  ],
  [
    'rbac.authorization.k8s.io/v1/RoleBinding',
    { model: RoleBinding, clientNodeType: 'V1RoleBinding', definition: 'io.k8s.api.rbac.v1.RoleBinding', nameRule: pathSegmentName, rules: checkRoleBinding },
  ],
  ['monitoring.coreos.com/v1/PrometheusRule', { nameRule: subdomainName, rules: checkPrometheusRule }],
]);
