/** Layer `kubernetes-models`: the precompiled validators of kubernetes-models 4.5.1 (types, enums,
 *  required fields; they do NOT reject unknown fields). */
import type { ErrorObject } from 'ajv';
import { Problems, addAjvErrors } from './problems';

export type ModelCtor = new (data?: any) => { validate(): void };

export function runModel(ctor: ModelCtor, obj: Record<string, unknown>, p: Problems): void {
  try {
    new ctor(obj).validate();
  } catch (err) {
    const errors = (err as { errors?: ErrorObject[] }).errors;
    if (!Array.isArray(errors)) throw err;
    addAjvErrors(errors, p, 'kubernetes-models');
  }
}
