/**
 * Container environment variables as the Kubernetes 1.28 API server checks them.
 *
 * Sources:
 * - k8s.io/apimachinery/pkg/util/validation/validation.go (v0.28.8) IsEnvVarName:
 *   `[-._a-zA-Z][-._a-zA-Z0-9]*` and not `.`, `..` or starting with `..` (C identifiers have not
 *   been required since 1.8). 1.30+ relax this behind RelaxedEnvironmentVariableValidation (any
 *   printable ASCII but `=`); 1.28 is the strictest, so it is the rule here.
 * - pkg/apis/core/validation/validation.go (v1.28.8) ValidateEnv, validateEnvVarValueFrom
 *   (exactly one source, not together with a non-empty `value`), validateObjectFieldSelector
 *   with validEnvDownwardAPIFieldPathExpressions (status.hostIPs needs the PodHostIPs feature gate,
 *   off by default in 1.28), validateConfigMapKeySelector / validateSecretKeySelector (name a DNS
 *   subdomain, key a config key), validateContainerResourceFieldSelector.
 * - pkg/apis/core/pods/helpers.go ConvertDownwardAPIFieldLabel (apiVersion v1; subscripts only on
 *   metadata.labels and metadata.annotations; `spec.host` is read as spec.nodeName) and
 *   pkg/fieldpath/fieldpath.go SplitMaybeSubscriptedPath (`path['key']`).
 * Not checked: resourceFieldRef divisors (the core never sets one).
 */
import { show } from '../../../lib/messages';
import { annotationKeyProblem, qualifiedNameProblem } from '../../../lib/kubernetes/validation/labels';
import { dns1123SubdomainProblem } from '../../../lib/kubernetes/validation/names';
import { configKeyProblem, chDirPrefixErrors } from '../../../lib/kubernetes/validation/paths';
import {
  type Problem,
  anchored,
  asRecord,
  problemAt,
  received,
  regexError,
} from '../../../lib/kubernetes/validation/problems';
import { fieldPath, under } from './problems';

const ENV_VAR_NAME_FMT = '[-._a-zA-Z][-._a-zA-Z0-9]*';
const ENV_VAR_NAME_MSG =
  "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit";
const ENV_VAR_NAME = anchored(ENV_VAR_NAME_FMT);
/** The pod fields an env var's fieldRef may name (besides labels and annotations by key), as the API server allows them. */
export const ENV_FIELD_PATHS = [
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
  'spec.nodeName',
  'spec.serviceAccountName',
  'status.hostIP',
  'status.podIP',
  'status.podIPs',
];
const RESOURCE_FIELD_PATHS = [
  'limits.cpu',
  'limits.memory',
  'limits.ephemeral-storage',
  'requests.cpu',
  'requests.memory',
  'requests.ephemeral-storage',
];
const RESOURCE_FIELD_PREFIXES = ['requests.hugepages-', 'limits.hugepages-'];
const SOURCES = ['fieldRef', 'resourceFieldRef', 'configMapKeyRef', 'secretKeyRef'];

/** An env var `name`. */
export function envVarNameProblem(name: string): string | undefined {
  if (name === '') return 'received ""; an environment variable needs a name';
  const errors = ENV_VAR_NAME.test(name)
    ? []
    : [regexError(ENV_VAR_NAME_MSG, ENV_VAR_NAME_FMT, 'my.env-name', 'MY_ENV.NAME', 'MyEnvName1')];
  return received(name, [...errors, ...chDirPrefixErrors(name)]);
}

/** The `fieldPath` of an env `fieldRef` (apiVersion v1). */
export function envFieldPathProblem(fieldPathValue: string): string | undefined {
  const subscripted = /^(.+?)\['(.*)'\]$/s.exec(fieldPathValue);
  if (subscripted) {
    const [, path, key] = subscripted;
    if (path === 'metadata.labels') return qualifiedNameProblem(key);
    if (path === 'metadata.annotations') return annotationKeyProblem(key);
    return `received ${show(fieldPathValue)}; only metadata.labels['<key>'] and metadata.annotations['<key>'] take a subscript`;
  }
  const path = fieldPathValue === 'spec.host' ? 'spec.nodeName' : fieldPathValue;
  if (ENV_FIELD_PATHS.includes(path)) return undefined;
  return `received ${show(fieldPathValue)}; supported values: ${ENV_FIELD_PATHS.map((p) => show(p)).join(', ')}, metadata.labels['<key>'], metadata.annotations['<key>']`;
}

function keySelectorProblems(selector: Record<string, unknown>): Problem[] {
  const name = typeof selector.name === 'string' ? selector.name : '';
  const key = typeof selector.key === 'string' ? selector.key : '';
  return [
    ...problemAt('name', dns1123SubdomainProblem(name)),
    ...problemAt('key', key === '' ? 'received ""; the key of the entry to read is required' : configKeyProblem(key)),
  ];
}

function sourceProblems(source: string, ref: Record<string, unknown>): Problem[] {
  switch (source) {
    case 'fieldRef': {
      const apiVersion = ref.apiVersion ?? 'v1';
      if (apiVersion !== 'v1')
        return [{ path: 'apiVersion', message: `received ${show(apiVersion)}; unsupported pod version (allowed: v1)` }];
      return problemAt(
        'fieldPath',
        typeof ref.fieldPath === 'string' && ref.fieldPath !== ''
          ? envFieldPathProblem(ref.fieldPath)
          : 'a fieldPath is required',
      );
    }
    case 'resourceFieldRef': {
      const resource = typeof ref.resource === 'string' ? ref.resource : '';
      if (RESOURCE_FIELD_PATHS.includes(resource) || RESOURCE_FIELD_PREFIXES.some((p) => resource.startsWith(p)))
        return [];
      return [
        {
          path: 'resource',
          message: `received ${show(resource)}; supported values: ${RESOURCE_FIELD_PATHS.map((p) => show(p)).join(', ')}, requests.hugepages-<size>, limits.hugepages-<size>`,
        },
      ];
    }
    default:
      return keySelectorProblems(ref);
  }
}

/** One env var: its name, and its valueFrom. Paths: `name`, `valueFrom...`. */
export function envVarProblems(envVar: unknown): Problem[] {
  const e = asRecord(envVar) ?? {};
  const problems = problemAt('name', envVarNameProblem(typeof e.name === 'string' ? e.name : ''));
  const valueFrom = asRecord(e.valueFrom);
  if (!valueFrom) return problems;
  const present = SOURCES.filter((s) => valueFrom[s] !== undefined);
  if (present.length === 0)
    problems.push({
      path: 'valueFrom',
      message: 'must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`',
    });
  else if (typeof e.value === 'string' && e.value !== '')
    problems.push({ path: 'valueFrom', message: 'may not be specified when `value` is not empty' });
  else if (present.length > 1)
    problems.push({
      path: 'valueFrom',
      message: `may not have more than one field specified at a time, received ${present.join(', ')}`,
    });
  for (const source of present)
    problems.push(...under(fieldPath('valueFrom', source), sourceProblems(source, asRecord(valueFrom[source]) ?? {})));
  return problems;
}
