/**
 * DNS-1123 subdomains as the Kubernetes 1.28 API server checks them: object names, label and
 * annotation key prefixes, node names, class names. The other name rules (object names by kind,
 * DNS-1123 and DNS-1035 labels, path segments) are the tests' oracle
 * (test/support/kubernetes-validation/names.ts): the package builds every object name itself.
 *
 * Source: k8s.io/apimachinery/pkg/util/validation/validation.go (v0.28.8) IsDNS1123Subdomain
 * (format, 253 limit, message). 1.28–1.33 do not differ in this rule.
 */
import { anchored, byteLength, maxLenError, received, regexError } from './problems';

export const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;

/** IsDNS1123Label's format; a subdomain is labels joined by dots. */
export const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
export const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";

const DNS1123_SUBDOMAIN = anchored(DNS1123_SUBDOMAIN_FMT);

/** IsDNS1123Subdomain: the API server's messages, empty when valid. */
export function dns1123SubdomainErrors(value: string): string[] {
  const errors: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) errors.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!DNS1123_SUBDOMAIN.test(value))
    errors.push(regexError(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, 'example.com'));
  return errors;
}

/** A DNS-1123 subdomain (≤ 253): most object names, secret, service account and class names. */
export function dns1123SubdomainProblem(value: string): string | undefined {
  return received(value, dns1123SubdomainErrors(value));
}
