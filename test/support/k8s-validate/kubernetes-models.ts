/** Layer `kubernetes-models`: the precompiled validators of kubernetes-models 4.5.1 (types, enums,
 *  required fields; they do NOT reject unknown fields). */
import type { ErrorObject } from 'ajv';
import { Problems, addAjvErrors } from './problems';

/**
 * A kubernetes-models class. Its constructor takes the kind's valid objects (each class its own type, hence
 * `never` here); runModel hands it the object under test unchecked, which is what `validate` is for.
 */
export type ModelCtor = new (data?: never) => { validate(): void };

export function runModel(ctor: ModelCtor, obj: Record<string, unknown>, p: Problems): void {
  try {
    new ctor(obj as never).validate();
  } catch (err) {
    const errors = (err as { errors?: ErrorObject[] }).errors;
    if (!Array.isArray(errors)) throw err;
    addAjvErrors(errors, p, 'kubernetes-models');
  }
}
