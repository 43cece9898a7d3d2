/**
 * Jest setup of every test (jest.config.js `setupFilesAfterEnv`): no problem a test's process finds names
 * another policy field as text. A message names one with `fieldText` (its `parts`), so that the front ends
 * name it as their users wrote it (`metrics.pushgatewayUrl`, in Python `metrics.pushgateway_url`); a path
 * written as text would reach a cdk8s or Pulumi user as a policy path. A message that does fails the test.
 */
import * as errors from '../../lib/policy/errors';
import type * as Registry from '../../lib/registry';

/** `spec.` or `metadata.` and a word: cheap, before the schema is loaded to tell a policy field. */
const CANDIDATE = /\b(?:spec|metadata)\.[A-Za-z_]/;

let policyField: RegExp | undefined;

/** A path of the policy (`spec.<a field of spec>`, `metadata.<a field of metadata>`) in text. */
function policyFieldPattern(): RegExp {
  if (policyField === undefined) {
    const { policySchema } = jest.requireActual<typeof Registry>('../../lib/registry');
    const keys = (field: string) =>
      Object.keys((policySchema.properties as Record<string, { properties: object }>)[field].properties).join('|');
    policyField = new RegExp(`\\b(?:spec\\.(?:${keys('spec')})|metadata\\.(?:${keys('metadata')}))\\b`);
  }
  return policyField;
}

/** The first policy path written as text in `issue`'s message, if any. */
export function policyPathInText(issue: errors.PolicyIssue): string | undefined {
  const texts = issue.parts ? issue.parts.filter((p): p is string => typeof p === 'string') : [issue.message];
  const named = texts.filter((text) => CANDIDATE.test(text)).map((text) => policyFieldPattern().exec(text)?.[0]);
  return named.find((path) => path !== undefined);
}

const { add } = errors.IssueList.prototype as {
  add: (this: errors.IssueList, ...args: Parameters<errors.IssueList['add']>) => void;
};
errors.IssueList.prototype.add = function (this: errors.IssueList, ...args: Parameters<errors.IssueList['add']>): void {
  add.apply(this, args);
  const issue = this.issues[this.issues.length - 1];
  const named = policyPathInText(issue);
  if (named !== undefined)
    throw new Error(
      `issue-guard: the problem at ${issue.path} names ${named} as text; name it with fieldText\`...\${path}...\`: ${issue.message}`,
    );
};
