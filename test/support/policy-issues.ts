// The problems a policy call reports, as the tests compare them.
import { PolicyError } from '../../lib';

/** The issues of the PolicyError that `fn` throws, as `<path>: <message>`; throws when `fn` throws none. */
export function policyIssues(fn: () => unknown): string[] {
  try {
    fn();
  } catch (e) {
    if (e instanceof PolicyError) return e.issues.map((i) => `${i.path}: ${i.message}`);
    throw e;
  }
  throw new Error('expected a PolicyError, got none');
}
