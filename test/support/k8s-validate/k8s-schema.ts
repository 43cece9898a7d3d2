/**
 * Layer `k8s-1.28-schema`: ajv 8 over the official Kubernetes 1.28 definitions from the shared folder,
 * made strict (`additionalProperties: false` wherever a schema lists `properties`).
 * The file is optional on a developer machine; with CI=true it is required.
 */
import * as fs from 'fs';
import * as path from 'path';
import Ajv from 'ajv';
import type { ValidateFunction } from 'ajv';
import { Problems, addAjvErrors, isObj } from './problems';

/** Where the strict schema is looked up (`<repo>/../shared/k8s-schema/v1.28.0/_definitions.json`). */
export const SHARED_SCHEMA_PATH = path.resolve(
  __dirname,
  '..',
  '..',
  '..',
  '..',
  'shared',
  'k8s-schema',
  'v1.28.0',
  '_definitions.json',
);

let sharedSchemaExists: boolean | undefined;

/**
 * Whether the strict shared schema file exists (checked once). Missing is not an error on a developer
 * machine; with CI=true it throws, naming the path.
 */
export function sharedSchemaAvailable(): boolean {
  sharedSchemaExists ??= fs.existsSync(SHARED_SCHEMA_PATH);
  if (!sharedSchemaExists && process.env.CI === 'true') {
    throw new Error(
      `k8s-validate: CI=true requires the strict Kubernetes 1.28 schema at ${SHARED_SCHEMA_PATH}, which does not exist`,
    );
  }
  return sharedSchemaExists;
}

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
  if (
    isObj(out.properties) &&
    out.additionalProperties === undefined &&
    out['x-kubernetes-preserve-unknown-fields'] !== true
  ) {
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

export function runSharedSchema(definition: string, obj: Record<string, unknown>, p: Problems): void {
  const v = sharedValidator(definition);
  if (!v(obj) && v.errors) addAjvErrors(v.errors, p, 'k8s-1.28-schema');
}
