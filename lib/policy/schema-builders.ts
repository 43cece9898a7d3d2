/** Small builders that keep the JSON Schema readable. Every object is closed. */
import { DURATION_GRAMMAR, DURATION_PATTERN, SIZE_GRAMMAR, SIZE_PATTERN, durationProblem, sizeProblem } from '../units';

/** A JSON Schema (draft-07) object, as the builders below make it. */
export type Schema = Record<string, unknown>;

/**
 * What a field's JSON Schema cannot say, kept on the schema under a symbol (so
 * no JSON output carries it): the name of an object's generated type, how the
 * front ends take a value (a cdk8s `Duration`, a cdk8s-plus `ISecret`, a
 * Pulumi `Input`), the text of a default no literal states. The generator
 * (`scripts/generate-types.ts`) and the front ends read it.
 */
export const FIELD_META: unique symbol = Symbol('backup-cronjobs.field');

/** Kubernetes objects a policy field names. */
export type NamedKind = 'Secret' | 'ConfigMap' | 'PersistentVolumeClaim';

/** What a pass-through stand-in must look like where it stands (the Pulumi components' `Input`s). */
export type PassThroughFormat = 'name' | 'address' | 'url';

export interface FieldMeta {
  /** The generated type of an object (`Placement`). @default - its parent's type name and its key */
  readonly typeName?: string;
  /** A value of the policy's duration, size or cron grammar (a cdk8s `Duration`, `Size`, `Cron` too). */
  readonly grammar?: 'duration' | 'size' | 'cron';
  /** A string naming an object of this kind (a cdk8s-plus object of the kind too). */
  readonly names?: NamedKind;
  /** The value only passes through into the objects (a Pulumi `Input`): the format of its stand-in. */
  readonly passThrough?: PassThroughFormat;
  /** Every string field of this object passes through (image references). */
  readonly passThroughFields?: PassThroughFormat;
  /** The default in words, where no literal `default` states it (`the chart's namespace`). */
  readonly defaultText?: string;
}

/** The field metadata of `schema` (none: `{}`); a string of the duration or size pattern is of that grammar. */
export function fieldMeta(schema: unknown): FieldMeta {
  const meta: FieldMeta = (schema as { [FIELD_META]?: FieldMeta } | undefined)?.[FIELD_META] ?? {};
  if (meta.grammar !== undefined) return meta;
  const pattern = (schema as { pattern?: unknown } | undefined)?.pattern;
  const grammar = pattern === DURATION_PATTERN ? 'duration' : pattern === SIZE_PATTERN ? 'size' : undefined;
  return grammar === undefined ? meta : { ...meta, grammar };
}

/** `schema` with `meta` added to its field metadata. */
export function withMeta(schema: Schema, meta: FieldMeta): Schema {
  return { ...schema, [FIELD_META]: { ...fieldMeta(schema), ...meta } };
}

/** An object schema whose generated type is `typeName`. */
export function named(typeName: string, schema: Schema): Schema {
  return withMeta(schema, { typeName });
}

/** The default in words, for `extra`: `str('…', defaultText('the namespace default'))`. */
export function defaultText(text: string): Schema {
  return { [FIELD_META]: { defaultText: text } };
}

export const PATTERNS = {
  dnsLabel: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$',
  dnsSubdomain: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$',
  duration: DURATION_PATTERN,
  size: SIZE_PATTERN,
  quantity: '^[0-9]+(\\.[0-9]+)?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E|m)?$',
  /** An env var name (IsEnvVarName): not ".", and not starting with ".." (the API server's path rule). */
  envName: '^(?!\\.$)(?!\\.\\.)[-._a-zA-Z][-._a-zA-Z0-9]*$',
  url: '^https?://[^\\s]+$',
  absolutePath: '^/',
  /** A container image: the API server refuses leading or trailing whitespace. */
  image: '^\\S([\\s\\S]*\\S)?$',
  /** A key of a Secret or ConfigMap (IsConfigMapKey: not ".", not starting with ".."). */
  secretKey: '^(?!\\.$)(?!\\.\\.)[-._a-zA-Z0-9]+$',
  /** An age recipient: an X25519 public key (bech32 `age1…`, lowercase) or an SSH public key. */
  ageRecipient: '^(age1[02-9ac-hj-np-z]{58}|ssh-(ed25519|rsa) [A-Za-z0-9+/]+={0,3}( [^\\n]*)?)$',
} as const;

/** How each pattern is explained in error messages. */
export const PATTERN_DESCRIPTIONS: Record<string, string> = {
  [PATTERNS.dnsLabel]:
    'a DNS-1123 label: lowercase letters, digits and "-", starting and ending with a letter or digit',
  [PATTERNS.dnsSubdomain]:
    'a DNS-1123 subdomain: lowercase letters, digits, "-" and ".", starting and ending with a letter or digit',
  [PATTERNS.duration]: DURATION_GRAMMAR,
  [PATTERNS.size]: SIZE_GRAMMAR,
  [PATTERNS.quantity]: 'a Kubernetes quantity, e.g. "10Gi", "500Mi", "250m"',
  [PATTERNS.envName]:
    'an environment variable name: letters, digits, "_", "-", "."; not starting with a digit, not "." and not starting with ".."',
  [PATTERNS.url]: 'an http:// or https:// URL',
  [PATTERNS.absolutePath]: 'an absolute path',
  [PATTERNS.image]: 'an image reference without leading or trailing whitespace',
  [PATTERNS.secretKey]: 'a Secret key: letters, digits, "-", "_" and ".", not "." and not starting with ".."',
  [PATTERNS.ageRecipient]:
    'an age recipient: an X25519 public key ("age1" and 58 bech32 characters, as age-keygen prints it) or an SSH public key ("ssh-ed25519 AAAA…" or "ssh-rsa AAAA…")',
};

/** Patterns whose grammar explains a mismatch better than the pattern can (hints such as "a unit is required"). */
export const PATTERN_PROBLEMS: Record<string, (value: unknown) => string | undefined> = {
  [PATTERNS.duration]: durationProblem,
  [PATTERNS.size]: sizeProblem,
};

export function str(description: string, extra: Schema = {}): Schema {
  return { type: 'string', description, ...extra };
}

export function nonEmptyStr(description: string, extra: Schema = {}): Schema {
  return str(description, { minLength: 1, ...extra });
}

export function int(description: string, minimum?: number, maximum?: number, extra: Schema = {}): Schema {
  return {
    type: 'integer',
    description,
    ...(minimum !== undefined ? { minimum } : {}),
    ...(maximum !== undefined ? { maximum } : {}),
    ...extra,
  };
}

export function bool(description: string, extra: Schema = {}): Schema {
  return { type: 'boolean', description, ...extra };
}

export function strEnum(description: string, values: readonly string[], extra: Schema = {}): Schema {
  return { type: 'string', description, enum: [...values], ...extra };
}

export function obj(
  description: string,
  properties: Record<string, Schema>,
  required: readonly string[] = [],
  extra: Schema = {},
): Schema {
  return {
    type: 'object',
    description,
    additionalProperties: false,
    properties,
    ...(required.length > 0 ? { required: [...required] } : {}),
    ...extra,
  };
}

export function arr(description: string, items: Schema, extra: Schema = {}): Schema {
  return { type: 'array', description, items, ...extra };
}

export function stringMap(description: string, extra: Schema = {}): Schema {
  return { type: 'object', description, additionalProperties: { type: 'string' }, ...extra };
}

export function duration(description: string, extra: Schema = {}): Schema {
  return withMeta(str(description, { pattern: PATTERNS.duration, ...extra }), { grammar: 'duration' });
}

/** A CronJob schedule (5 fields or a macro; `H` fields hashed): a cdk8s `Cron` too. */
export function cron(description: string, extra: Schema = {}): Schema {
  return withMeta(str(description, extra), { grammar: 'cron' });
}

/** The name of an object of `kind` in the policy's namespace (a DNS-1123 subdomain). */
export function objectName(kind: NamedKind, description: string, extra: Schema = {}): Schema {
  return withMeta(str(description, { pattern: PATTERNS.dnsSubdomain, maxLength: 253, ...extra }), {
    names: kind,
    passThrough: 'name',
  });
}

/** A size (`10Gi`, `500M`): the policy's one size grammar. */
export function size(description: string, extra: Schema = {}): Schema {
  return withMeta(str(description, { pattern: PATTERNS.size, ...extra }), { grammar: 'size' });
}

/** A resource quantity (`250m`, `1Gi`), for resource requests and limits. */
export function quantity(description: string, extra: Schema = {}): Schema {
  return str(description, { pattern: PATTERNS.quantity, ...extra });
}

/** A container image reference. */
export function image(description: string, extra: Schema = {}): Schema {
  return str(description, { pattern: PATTERNS.image, ...extra });
}

export function dnsLabel(description: string, extra: Schema = {}): Schema {
  return str(description, { pattern: PATTERNS.dnsLabel, maxLength: 63, ...extra });
}

export const configMapKeyRef = (description: string): Schema =>
  named(
    'ConfigMapKeyRef',
    obj(
      description,
      {
        name: objectName('ConfigMap', 'ConfigMap name.'),
        key: nonEmptyStr('Key in the ConfigMap.', { pattern: PATTERNS.secretKey, maxLength: 253 }),
      },
      ['name', 'key'],
    ),
  );

export const secretKeyRef = (description: string): Schema =>
  named(
    'SecretKeyRef',
    obj(
      description,
      {
        name: objectName('Secret', 'Secret name.'),
        key: nonEmptyStr('Key in the Secret.', { pattern: PATTERNS.secretKey, maxLength: 253 }),
      },
      ['name', 'key'],
    ),
  );

/** A CA bundle by reference: exactly one of a ConfigMap key or a Secret key (`CaBundleRef`). */
export const caBundleRef = (description: string): Schema =>
  named(
    'CaBundleRef',
    obj(
      `${description} Exactly one of configMap, secret.`,
      {
        configMap: withMeta(configMapKeyRef('A ConfigMap key holding the PEM bundle.'), { defaultText: 'none' }),
        secret: withMeta(secretKeyRef('A Secret key holding the PEM bundle.'), { defaultText: 'none' }),
      },
      [],
      { minProperties: 1, maxProperties: 1 },
    ),
  );
