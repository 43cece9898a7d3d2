/**
 * Object and DNS names as the Kubernetes 1.28 API server checks them (the DNS-1123 subdomain, which
 * policy checks use, is in lib/kubernetes/validation/names.ts). Test-only: the package builds every
 * object name itself (`joinName`), so no policy input reaches these rules.
 *
 * Sources (Kubernetes 1.28: apimachinery v0.28.8, kubernetes v1.28.8):
 * - k8s.io/apimachinery/pkg/util/validation/validation.go: IsDNS1123Label, IsDNS1123Subdomain,
 *   IsDNS1035Label (formats, 63/253 limits, messages).
 * - k8s.io/apimachinery/pkg/api/validation/path/name.go: IsValidPathSegmentName (RBAC object names).
 * - k8s.io/apimachinery/pkg/api/validation/generic.go + objectmeta.go: NameIsDNSSubdomain,
 *   NameIsDNSLabel (namespaces), "name or generateName is required".
 * - pkg/apis/batch/validation/validation.go ValidateCronJobCreate: CronJob names ≤ 52
 *   (DNS1035LabelMaxLength - 11: the controller appends `-<8 digits>` to name its Jobs).
 * - pkg/registry/batch/job/strategy.go (1.27+): a Job's name becomes the value of the pod template
 *   labels `batch.kubernetes.io/job-name` and `job-name`, so a Job name over 63 characters fails
 *   the label-value rule of the pod template.
 * - pkg/apis/rbac/validation/validation.go minimalNameRequirements: RBAC names are path segments.
 * - staging/src/k8s.io/apiextensions-apiserver/pkg/registry/customresource/validator.go: custom
 *   resources (e.g. PrometheusRule) use NameIsDNSSubdomain.
 * 1.28–1.33 do not differ in these rules.
 */
import { anchored, byteLength, maxLenError, received, regexError } from '../../../lib/kubernetes/validation/problems';
import {
  DNS1123_LABEL_FMT,
  DNS1123_SUBDOMAIN_FMT,
  DNS1123_SUBDOMAIN_MAX_LENGTH,
  dns1123SubdomainErrors,
  dns1123SubdomainProblem,
} from '../../../lib/kubernetes/validation/names';

export const DNS1123_LABEL_MAX_LENGTH = 63;
export const DNS1035_LABEL_MAX_LENGTH = 63;
/** The CronJob controller names Jobs `<cronjob>-<8 digits>` and Job names end up in 63-character label values. */
export const CRONJOB_NAME_MAX_LENGTH = DNS1035_LABEL_MAX_LENGTH - 11;
export const JOB_NAME_MAX_LENGTH = 63;

const DNS1123_LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1035_LABEL_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const DNS1035_LABEL_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";

const DNS1123_LABEL = anchored(DNS1123_LABEL_FMT);
const DNS1123_SUBDOMAIN = anchored(DNS1123_SUBDOMAIN_FMT);
const DNS1035_LABEL = anchored(DNS1035_LABEL_FMT);

/** IsDNS1123Label: the API server's messages, empty when valid. */
function dns1123LabelErrors(value: string): string[] {
  const errors: string[] = [];
  if (byteLength(value) > DNS1123_LABEL_MAX_LENGTH) errors.push(maxLenError(DNS1123_LABEL_MAX_LENGTH));
  if (!DNS1123_LABEL.test(value)) {
    errors.push(
      DNS1123_SUBDOMAIN.test(value)
        ? 'must not contain dots'
        : regexError(DNS1123_LABEL_MSG, DNS1123_LABEL_FMT, 'my-name', '123-abc'),
    );
  }
  return errors;
}

function dns1035LabelErrors(value: string): string[] {
  const errors: string[] = [];
  if (byteLength(value) > DNS1035_LABEL_MAX_LENGTH) errors.push(maxLenError(DNS1035_LABEL_MAX_LENGTH));
  if (!DNS1035_LABEL.test(value)) errors.push(regexError(DNS1035_LABEL_MSG, DNS1035_LABEL_FMT, 'my-name', 'abc-123'));
  return errors;
}

/** IsValidPathSegmentName: no `.`/`..`, no `/` or `%`. */
function pathSegmentNameErrors(value: string): string[] {
  if (value === '.' || value === '..') return [`may not be '${value}'`];
  return ['/', '%'].filter((c) => value.includes(c)).map((c) => `may not contain '${c}'`);
}

/** A DNS-1123 label (≤ 63): namespaces, container, volume and port names. */
export function dns1123LabelProblem(value: string): string | undefined {
  return received(value, dns1123LabelErrors(value));
}

/** A DNS-1035 label (≤ 63, starts with a letter): Service names. */
export function dns1035LabelProblem(value: string): string | undefined {
  return received(value, dns1035LabelErrors(value));
}

/** A name that is safe as one URL path segment: RBAC object names. */
export function pathSegmentNameProblem(value: string): string | undefined {
  return received(value, pathSegmentNameErrors(value));
}

/** A DNS-1123 subdomain held to a shorter limit; the shorter limit replaces the 253 one. */
function shortSubdomainErrors(value: string, max: number, why: string): string[] {
  const errors = dns1123SubdomainErrors(value).filter((e) => e !== maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (byteLength(value) > max) errors.unshift(`${maxLenError(max)} (${why})`);
  return errors;
}

/** A CronJob name: a DNS-1123 subdomain of at most 52 characters. */
export function cronJobNameProblem(value: string): string | undefined {
  return received(
    value,
    shortSubdomainErrors(
      value,
      CRONJOB_NAME_MAX_LENGTH,
      'the CronJob controller appends 11 characters to name each Job, and Job names are limited to 63',
    ),
  );
}

/** A Job name: a DNS-1123 subdomain of at most 63 characters. */
export function jobNameProblem(value: string): string | undefined {
  return received(
    value,
    shortSubdomainErrors(
      value,
      JOB_NAME_MAX_LENGTH,
      'the name becomes the value of the pod label batch.kubernetes.io/job-name',
    ),
  );
}

/** A namespace name (NameIsDNSLabel). */
export function namespaceNameProblem(value: string): string | undefined {
  return dns1123LabelProblem(value);
}

/** The API group of an apiVersion (`batch/v1` → `batch`, `v1` → `''`). */
export function apiGroup(apiVersion: string): string {
  return apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
}

/** The name rule the API server applies to `metadata.name` of an object of this kind. */
function objectNameRule(apiVersion: string, kind: string): (name: string) => string | undefined {
  const group = apiGroup(apiVersion);
  if (group === 'batch' && kind === 'CronJob') return cronJobNameProblem;
  if (group === 'batch' && kind === 'Job') return jobNameProblem;
  if (
    group === 'rbac.authorization.k8s.io' &&
    ['Role', 'RoleBinding', 'ClusterRole', 'ClusterRoleBinding'].includes(kind)
  )
    return pathSegmentNameProblem;
  if (group === '' && kind === 'Namespace') return namespaceNameProblem;
  if (group === '' && kind === 'Service') return dns1035LabelProblem;
  // Every other built-in kind the core emits (ConfigMap, Secret, ServiceAccount, PersistentVolumeClaim, Pod)
  // and every custom resource (PrometheusRule) uses NameIsDNSSubdomain.
  return dns1123SubdomainProblem;
}

/** `metadata.name` of an object of this kind: required, then the kind's name rule. */
export function objectNameProblem(apiVersion: string, kind: string, name: string): string | undefined {
  if (name === '') return 'name or generateName is required';
  return objectNameRule(apiVersion, kind)(name);
}
