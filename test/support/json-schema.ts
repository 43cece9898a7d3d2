/** The JSON Schema keywords the tests read, and a walk down `properties`. */
export interface JsonSchema {
  readonly type?: string | readonly string[];
  readonly description?: string;
  readonly default?: unknown;
  readonly const?: unknown;
  readonly enum?: readonly unknown[];
  readonly pattern?: string;
  readonly required?: readonly string[];
  readonly additionalProperties?: boolean | JsonSchema;
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly items?: JsonSchema;
}

/** The schema of the property at `keys` (each under the previous one's `properties`); throws when one is missing. */
export function schemaAt(schema: object, ...keys: string[]): JsonSchema {
  return keys.reduce<JsonSchema>((s, key) => {
    const next = s.properties?.[key];
    if (!next) throw new Error(`no property ${key} in the schema (keys: ${keys.join('.')})`);
    return next;
  }, schema);
}
