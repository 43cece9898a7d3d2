/** The fields of the engine's spec: generated from its schema (schema.ts) into types.generated.ts. */
export type * from './types.generated';
