/**
 * Every engine the core knows, in one table, and what is assembled from it:
 * the whole BackupPolicy type, its JSON Schema and the engine dispatch.
 * Adding an engine: its folder under `lib/engines/`, one line here (and its
 * two thin adapters, docs and tests: see ARCHITECTURE.md, "Adding an engine").
 */
import type { EngineDefinition } from './engines/engine';
import { etcdEngine } from './engines/etcd';
import { redisEngine } from './engines/redis';
import { vitessEngine } from './engines/vitess';
import { documentSchema } from './policy/document-schema';
import type { Schema } from './policy/schema-builders';
import type { PolicyCommonSpec, PolicyDocument } from './policy/types';

export const ENGINES = {
  vitess: vitessEngine,
  redis: redisEngine,
  etcd: etcdEngine,
} as const;

export type EngineKey = keyof typeof ENGINES;
export const ENGINE_KEYS = Object.keys(ENGINES) as EngineKey[];

type SpecOf<E> = E extends EngineDefinition<infer Spec> ? Spec : never;

/** `spec` of a BackupPolicy: the common fields and exactly one engine's key. */
export type BackupPolicySpec = PolicyCommonSpec & { readonly [K in EngineKey]?: SpecOf<(typeof ENGINES)[K]> };

/** A BackupPolicy document: the same structure in policy files and in TypeScript props. */
export type BackupPolicy = PolicyDocument<BackupPolicySpec>;

/** The published JSON Schema of a BackupPolicy document. */
export const policySchema: Schema = documentSchema(Object.fromEntries(ENGINE_KEYS.map((key) => [key, ENGINES[key].schema])));

/** The engine definition behind a key, untyped (the core's dispatch). */
export function engineDefinition(key: EngineKey): EngineDefinition<unknown> {
  return ENGINES[key];
}

/** The engines a policy sets (valid policies set exactly one). */
export function enginesOf(spec: object): EngineKey[] {
  return ENGINE_KEYS.filter((key) => (spec as Record<string, unknown>)[key] !== undefined);
}
