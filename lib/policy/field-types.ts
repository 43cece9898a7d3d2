/**
 * TypeScript interfaces written from the policy's JSON Schema and its field
 * metadata (`FIELD_META`): the one declaration of every field gives its type,
 * its docs and its `@default`, and each front end's form of it (a cdk8s
 * `Duration`, `Size`, `Cron`, a cdk8s-plus object). `scripts/generate-types.ts`
 * writes the result to committed `*.generated.ts` files; a test keeps them in
 * step. No conditional or mapped type is written, so jsii compiles them.
 */
import { NamedKind, Schema, fieldMeta, withMeta } from './schema-builders';

/** How one front end spells the values the schema declares. */
export interface TypeFlavor {
  /** The type of a string of a grammar (`'duration'`): e.g. `string | Duration`. */
  grammar(kind: 'duration' | 'size' | 'cron'): string;
  /** The type of a string naming an object of `kind`. */
  names(kind: NamedKind): string;
  /** The object that may stand for a whole `{ name }` reference to an object of `kind`. @default - none */
  wholeReference?(kind: NamedKind): string;
  /** Arrays as `readonly T[]` (jsii refuses them: JSII3001). @default false */
  readonly readonlyArrays?: boolean;
  /** Enums as `string`, their values in the docs (jsii refuses string-literal unions: JSII1001). @default false */
  readonly enumsAsStrings?: boolean;
  /** The type of a string that only passes through into the objects (`pulumi.Input<string>`). @default - as any string */
  passThrough?(): string;
  /** Appended to the name of every object type (`PlacementArgs`). @default - none */
  readonly typeNameSuffix?: string;
}

/** The policy's own spelling: strings. */
export const PLAIN_FLAVOR: TypeFlavor = { grammar: () => 'string', names: () => 'string', readonlyArrays: true };

/** One property of a generated interface. */
export interface PropertySource {
  readonly key: string;
  readonly schema: Schema;
  readonly required: boolean;
  /** Replaces the schema's description and default in the docs. @default - from the schema */
  readonly docs?: { readonly summary: string; readonly default?: string };
}

/** An interface to write: its name, its docs and its properties, in order. */
export interface InterfaceSource {
  readonly name: string;
  readonly summary: string;
  readonly properties: readonly PropertySource[];
}

const isObjectSchema = (s: Schema) =>
  s.properties !== undefined && (s.type === 'object' || (Array.isArray(s.type) && s.type.includes('object')));

const pascal = (key: string) => key.charAt(0).toUpperCase() + key.slice(1);

/** The description of a schema ('' without one). */
const descriptionOf = (schema: Schema) => (typeof schema.description === 'string' ? schema.description : '');

/** The properties of an object schema, in declaration order. */
export function propertiesOf(schema: Schema): PropertySource[] {
  const required = (schema.required as string[] | undefined) ?? [];
  return Object.entries(schema.properties as Record<string, Schema>).map(([key, s]) => ({
    key,
    schema: s,
    required: required.includes(key),
  }));
}

/**
 * Writes interfaces from schemas: each object schema becomes one interface,
 * named by its `typeName` or after its parent and key (`RedisSpec` +
 * `compression` → `RedisSpecCompression`). The same name for two schemas of
 * different properties is an error.
 */
export class InterfaceWriter {
  private readonly written = new Map<string, { readonly schema: Schema; readonly text: string }>();
  private readonly names = new Map<Schema, string>();
  private readonly used = new Set<string>();

  /** `external`: type names written elsewhere, by the module they are imported from. */
  constructor(
    private readonly flavor: TypeFlavor,
    private readonly external: ReadonlyMap<string, string> = new Map(),
  ) {}

  /** The external names the interfaces use, by module, each list sorted. */
  public get imports(): ReadonlyMap<string, readonly string[]> {
    const out = new Map<string, string[]>();
    for (const name of [...this.used].sort()) {
      const module = this.external.get(name)!;
      out.set(module, [...(out.get(module) ?? []), name]);
    }
    return out;
  }

  /** Every interface written so far, in the order first reached. */
  public get text(): string {
    return [...this.written.values()].map((w) => w.text).join('\n');
  }

  /** The names written so far. */
  public get typeNames(): readonly string[] {
    return [...this.written.keys()];
  }

  /** The schema a name was written from. */
  public schemaOf(name: string): Schema | undefined {
    return this.written.get(name)?.schema;
  }

  /** Writes the type of an object schema with a type name (and every type it reaches); its name. */
  public addType(schema: Schema): string {
    return this.typeOf(schema, '', '');
  }

  /** Writes an interface of `source`'s properties (and every object type they reach). */
  public addInterface(source: InterfaceSource, schema?: Schema): void {
    const existing = this.written.get(source.name);
    if (existing !== undefined) {
      if (schema !== undefined && !sameShape(existing.schema, schema))
        throw new Error(`field types: two different objects are named ${source.name}`);
      return;
    }
    // reserve the name first: a type reaching itself ends there
    this.written.set(source.name, { schema: schema ?? {}, text: '' });
    const members = source.properties.map((p) => this.member(source.name, p));
    this.written.set(source.name, {
      schema: schema ?? {},
      text: `${doc(source.summary, undefined, '')}export interface ${source.name} {\n${members.join('\n')}\n}\n`,
    });
  }

  /** The type of a value of `schema`, found at `key` of the type `parent`. */
  public typeOf(schema: Schema, parent: string, key: string): string {
    const meta = fieldMeta(schema);
    if (schema.const !== undefined) return JSON.stringify(schema.const).replace(/"/g, "'");
    if (isObjectSchema(schema)) {
      const suffix = this.flavor.typeNameSuffix ?? '';
      const parentName = suffix !== '' && parent.endsWith(suffix) ? parent.slice(0, -suffix.length) : parent;
      const name = this.objectType(schema, `${parentName}${pascal(key)}`);
      const whole = this.wholeReference(schema);
      const object = whole === undefined ? name : `${name} | ${whole}`;
      return Array.isArray(schema.type) && schema.type.includes('string') ? `string | ${object}` : object;
    }
    if (meta.passThrough !== undefined && this.flavor.passThrough !== undefined && schema.type === 'string')
      return this.flavor.passThrough();
    switch (schema.type) {
      case 'string':
        if (Array.isArray(schema.enum))
          return this.flavor.enumsAsStrings ? 'string' : schema.enum.map((v) => `'${String(v)}'`).join(' | ');
        if (meta.grammar !== undefined) return this.flavor.grammar(meta.grammar);
        if (meta.names !== undefined) return this.flavor.names(meta.names);
        return 'string';
      case 'integer':
      case 'number':
        return 'number';
      case 'boolean':
        return 'boolean';
      case 'array': {
        const item = this.typeOf(schema.items as Schema, parent, key);
        const array = item.includes(' ') ? `(${item})[]` : `${item}[]`;
        return this.flavor.readonlyArrays ? `readonly ${array}` : array;
      }
      case 'object': {
        const values = schema.additionalProperties;
        const value =
          typeof values === 'object' && values !== null ? this.typeOf(values as Schema, parent, key) : 'string';
        return `{ [key: string]: ${value} }`;
      }
      default:
        throw new Error(`field types: ${parent}.${key}: no TypeScript type for ${JSON.stringify(schema.type)}`);
    }
  }

  private objectType(schema: Schema, parentAndKey: string): string {
    const known = this.names.get(schema);
    if (known !== undefined) return known;
    const name = (fieldMeta(schema).typeName ?? parentAndKey) + (this.flavor.typeNameSuffix ?? '');
    this.names.set(schema, name);
    if (this.external.has(name)) {
      this.used.add(name);
      return name;
    }
    const every = fieldMeta(schema).passThroughFields;
    const properties = propertiesOf(schema).map((p) =>
      every === undefined ? p : { ...p, schema: withMeta(p.schema, { passThrough: every }) },
    );
    this.addInterface({ name, summary: descriptionOf(schema), properties }, schema);
    return name;
  }

  /** The object that may stand for the whole reference `schema` (only `name` required, naming an object). */
  private wholeReference(schema: Schema): string | undefined {
    const required = (schema.required as string[] | undefined) ?? [];
    const name = (schema.properties as Record<string, Schema>).name;
    const kind = name === undefined ? undefined : fieldMeta(name).names;
    if (kind === undefined || required.length !== 1 || required[0] !== 'name') return undefined;
    return this.flavor.wholeReference?.(kind);
  }

  private member(parent: string, p: PropertySource): string {
    const type = this.typeOf(p.schema, parent, p.key);
    const described = p.docs?.summary ?? descriptionOf(p.schema);
    const values = this.flavor.enumsAsStrings ? enumValues(p.schema) : undefined;
    const summary = values === undefined ? described : `${described} One of: ${values}.`;
    const dflt = p.required ? undefined : (p.docs?.default ?? defaultDoc(p.schema));
    return `${doc(summary, dflt, '  ')}  readonly ${p.key}${p.required ? '' : '?'}: ${type};`;
  }
}

/** The values of an enum (of an array's items too), quoted: `'node', 'cluster'`. */
function enumValues(schema: Schema): string | undefined {
  const values = (schema.enum ?? (schema.items as Schema | undefined)?.enum) as unknown[] | undefined;
  return values?.map((v) => `'${String(v)}'`).join(', ');
}

/** The `@default` of an optional field: its literal default, its default in words, or what its description says. */
export function defaultDoc(schema: Schema): string {
  if (schema.default !== undefined) return `\`${literal(schema.default)}\``;
  const text = fieldMeta(schema).defaultText;
  if (text !== undefined) return `- ${text}`;
  const said = /\(default:? ([^)]*)\)/i.exec(descriptionOf(schema));
  if (said) return `- ${said[1]}`;
  return /default/i.test(descriptionOf(schema)) ? '- as described above' : '- not set';
}

function literal(value: unknown): string {
  if (typeof value === 'string') return `'${value}'`;
  return JSON.stringify(value).replace(/"/g, "'").replace(/,/g, ', ');
}

/** Text as TSDoc reads it literally: `@`, `<`, `>`, `{`, `}` escaped, no comment end. */
const tsdocText = (text: string) => text.replace(/\*\//g, '*\\/').replace(/[@<>{}]/g, (c) => `\\${c}`);

function doc(summary: string, dflt: string | undefined, indent: string): string {
  const lines = [...wrap(tsdocText(summary), 100 - indent.length - 3)];
  // a literal default is a code span, which TSDoc reads as written
  if (dflt !== undefined) lines.push(`@default ${dflt.startsWith('`') ? dflt : tsdocText(dflt)}`);
  if (lines.length === 0) return '';
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`;
  return `${indent}/**\n${lines.map((l) => `${indent} * ${l}`).join('\n')}\n${indent} */\n`;
}

function* wrap(text: string, width: number): Generator<string> {
  let line = '';
  for (const word of text.split(/\s+/).filter((w) => w !== '')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      yield line;
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') yield line;
}

/** Two object schemas with the same properties, each of the same type (descriptions may differ). */
function sameShape(a: Schema, b: Schema): boolean {
  if (a === b) return true;
  const keys = (s: Schema) => Object.keys((s.properties as object | undefined) ?? {}).join(',');
  return keys(a) === keys(b);
}
