/**
 * Every engine the core knows, in one table, and what is assembled from it:
 * the whole BackupPolicy type, its JSON Schema and the engine dispatch.
 * Adding an engine: its folder under `lib/engines/`, one line here (and its
 * two thin adapters, docs and tests: see ARCHITECTURE.md, "Adding an engine").
 */
import type { EngineConverter } from './engines/convert';
import type { EngineDiscover } from './engines/discover';
import type { EngineDefinition, EngineProps } from './engines/engine';
import { etcdEngine } from './engines/etcd';
import { redisEngine } from './engines/redis';
import { vitessEngine } from './engines/vitess';
import { documentSchema } from './policy/document-schema';
import { GENERIC_RETENTION_DESTINATIONS } from './retention';
import type { RetentionDestinationDefinition } from './retention';
import type { Schema } from './policy/schema-builders';
import type { PolicyCommonSpec, PolicyDocument } from './policy/types';

export const ENGINES = {
  vitess: vitessEngine,
  redis: redisEngine,
  etcd: etcdEngine,
} as const;

/** An engine's key: its `spec.<key>` (`vitess`, `redis`, `etcd`). */
export type EngineKey = keyof typeof ENGINES;
export const ENGINE_KEYS = Object.keys(ENGINES) as EngineKey[];

type SpecOf<E> = E extends EngineDefinition<infer Spec> ? Spec : never;

/** `spec` of a BackupPolicy: the common fields and exactly one engine's key. */
export type BackupPolicySpec = PolicyCommonSpec & { readonly [K in EngineKey]?: SpecOf<(typeof ENGINES)[K]> };

/** A BackupPolicy document: the same structure in policy files and in TypeScript props. */
export type BackupPolicy = PolicyDocument<BackupPolicySpec>;

/** The published JSON Schema of a BackupPolicy document. */
export const policySchema: Schema = documentSchema(
  Object.fromEntries(ENGINE_KEYS.map((key) => [key, ENGINES[key].schema])),
);

/** The engine definition behind a key, untyped (the core's dispatch). */
export function engineDefinition(key: EngineKey): EngineDefinition<unknown> {
  return ENGINES[key];
}

/** The engines a policy sets (valid policies set exactly one). */
export function enginesOf(spec: object): EngineKey[] {
  return ENGINE_KEYS.filter((key) => (spec as Record<string, unknown>)[key] !== undefined);
}

// eslint-disable-next-line @typescript-eslint/no-unused-vars -- _Spec: inferred only to match the definition's two parameters
type PropsOf<E> = E extends EngineDefinition<infer _Spec, infer Props> ? Props : never;

/** Engines with flat props: a schedule construct (cdk8s) and a component (Pulumi) each. */
export type ScheduleEngineKey = {
  [K in EngineKey]: [PropsOf<(typeof ENGINES)[K]>] extends [never] ? never : K;
}[EngineKey];

/** The flat props of an engine's schedule construct and component (`RedisScheduleProps`). */
export type EngineScheduleProps<K extends ScheduleEngineKey> = PropsOf<(typeof ENGINES)[K]>;

/** How an engine's flat props become a policy (the front ends' schedule factories read this). */
export function engineProps(key: ScheduleEngineKey): EngineProps<unknown> {
  const props = (ENGINES[key] as EngineDefinition<unknown, unknown>).props;
  if (props === undefined) throw new Error(`backup-cronjobs: the ${key} engine has no schedule props`);
  return props;
}

/**
 * The order in which `convert` names the kinds it reads and writes the policies (kept from before the
 * converters moved into their engines, so its messages and output stay as they were); an engine left
 * out comes after these, in registry order.
 */
const CONVERT_ORDER: readonly EngineKey[] = ['vitess', 'etcd', 'redis'];

/** Every engine's converters (`backup-cronjobs convert`), in `convert`'s order. */
export const CONVERTERS: readonly EngineConverter[] = [
  ...CONVERT_ORDER,
  ...ENGINE_KEYS.filter((key) => !CONVERT_ORDER.includes(key)),
].flatMap((key) => (ENGINES[key] as EngineDefinition<unknown>).converters ?? []);

/** Every engine's part of `backup-cronjobs discover`, in registry order. */
export const DISCOVERERS: readonly EngineDiscover[] = ENGINE_KEYS.flatMap((key) => {
  const discover = (ENGINES[key] as EngineDefinition<unknown>).discover;
  return discover ? [discover] : [];
});

/**
 * Every kind of retention destination by its name (`BACKUP_DEST_KIND`): the generic ones (`dir`, `s3`),
 * then each engine's own (Vitess: `vitess`), in registry order. A kind is defined once.
 */
export const RETENTION_DESTINATIONS: Readonly<Record<string, RetentionDestinationDefinition>> = (() => {
  const table: Record<string, RetentionDestinationDefinition> = { ...GENERIC_RETENTION_DESTINATIONS };
  for (const key of ENGINE_KEYS) {
    for (const definition of (ENGINES[key] as EngineDefinition<unknown>).retentionDestinations ?? []) {
      if (Object.prototype.hasOwnProperty.call(table, definition.kind))
        throw new Error(
          `backup-cronjobs: the retention destination kind ${definition.kind} of the ${key} engine is defined twice`,
        );
      table[definition.kind] = definition;
    }
  }
  return table;
})();

/** The retention destination an engine's spec prunes at, for the rules it supports. @default - none: every rule */
export function retentionDestinationOf(key: EngineKey, spec: unknown): RetentionDestinationDefinition | undefined {
  const kind = (ENGINES[key] as EngineDefinition<unknown>).retentionDestination?.(spec);
  if (kind === undefined) return undefined;
  const own = (ENGINES[key] as EngineDefinition<unknown>).retentionDestinations ?? [];
  const definition = Object.prototype.hasOwnProperty.call(GENERIC_RETENTION_DESTINATIONS, kind)
    ? RETENTION_DESTINATIONS[kind]
    : own.find((d) => d.kind === kind);
  if (definition === undefined)
    throw new Error(
      `backup-cronjobs: the ${key} engine prunes at retention destination ${kind}, which is neither generic nor one of its own`,
    );
  return definition;
}
