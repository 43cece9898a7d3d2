/** Small builders that keep the JSON Schema readable. Every object is closed. */
import { DURATION_GRAMMAR, DURATION_PATTERN, SIZE_GRAMMAR, SIZE_PATTERN, durationProblem, sizeProblem } from '../units';

export type Schema = Record<string, unknown>;

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
  return str(description, { pattern: PATTERNS.duration, ...extra });
}

/** A size (`10Gi`, `500M`): the policy's one size grammar. */
export function size(description: string, extra: Schema = {}): Schema {
  return str(description, { pattern: PATTERNS.size, ...extra });
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
  obj(
    description,
    {
      name: str('ConfigMap name.', { pattern: PATTERNS.dnsSubdomain, maxLength: 253 }),
      key: nonEmptyStr('Key in the ConfigMap.', { pattern: PATTERNS.secretKey, maxLength: 253 }),
    },
    ['name', 'key'],
  );

export const secretKeyRef = (description: string): Schema =>
  obj(
    description,
    {
      name: str('Secret name.', { pattern: PATTERNS.dnsSubdomain, maxLength: 253 }),
      key: nonEmptyStr('Key in the Secret.', { pattern: PATTERNS.secretKey, maxLength: 253 }),
    },
    ['name', 'key'],
  );

/** A CA bundle by reference: exactly one of a ConfigMap key or a Secret key (`CaBundleRef`). */
export const caBundleRef = (description: string): Schema =>
  obj(
    `${description} Exactly one of configMap, secret.`,
    {
      configMap: configMapKeyRef('A ConfigMap key holding the PEM bundle.'),
      secret: secretKeyRef('A Secret key holding the PEM bundle.'),
    },
    [],
    { minProperties: 1, maxProperties: 1 },
  );
