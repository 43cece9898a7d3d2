/** Parses and validates BackupPolicy documents; every problem is reported at once. */
import { parseAllDocuments } from 'yaml';
import { IssueList, PolicyError } from './errors';
import { validateAgainstSchema } from './schema-validate';
import type { BackupPolicy } from './types';
import { validateSettings } from './validate';
import { ENGINES, ENGINE_KEYS, EngineDefinition, enginesOf } from '../engines/registry';
import { validateRetentionOptions } from './retention-options';

/** Validates one parsed document; throws PolicyError listing every problem. */
export function validatePolicy(input: unknown, source?: string): BackupPolicy {
  const doc = withoutUndefined(input);
  const schemaIssues = validateAgainstSchema(doc);
  if (schemaIssues.length > 0) throw new PolicyError(schemaIssues, source);
  const policy = doc as BackupPolicy;
  const issues = new IssueList();
  const engines = enginesOf(policy);
  if (engines.length !== 1) {
    issues.add('spec', `received ${engines.length === 0 ? 'no engine' : `engines ${engines.join(', ')}`}; set exactly one of: ${ENGINE_KEYS.join(', ')}`);
  }
  validateSettings(policy.spec.defaults, 'spec.defaults', issues);
  if (policy.spec.metrics?.prometheusRule && !policy.spec.metrics.pushgatewayUrl) {
    issues.add('spec.metrics.prometheusRule', 'alerts read the pushed metrics: set spec.metrics.pushgatewayUrl too');
  }
  if (policy.spec.retention) {
    const engine = engines.length === 1 ? (ENGINES[engines[0]] as EngineDefinition) : undefined;
    validateRetentionOptions(policy.spec.retention, 'spec.retention', issues, engine?.retentionDestination?.(policy));
  }
  for (const engine of engines) ENGINES[engine].validate(policy, `spec.${engine}`, issues);
  issues.throwIfAny(source);
  return policy;
}

/** Parses YAML or JSON text (one or more documents) into validated policies. */
export function loadPolicies(text: string, source?: string): BackupPolicy[] {
  const docs = parseAllDocuments(text, { prettyErrors: true, uniqueKeys: true });
  const list = Array.isArray(docs) ? docs : [docs];
  const policies: BackupPolicy[] = [];
  const issues: { path: string; message: string }[] = [];
  list.forEach((doc, i) => {
    const where = list.length > 1 ? `document ${i + 1}` : '(document)';
    if (doc.errors.length > 0) {
      for (const e of doc.errors) issues.push({ path: where, message: `YAML syntax: ${e.message.split('\n')[0]}` });
      return;
    }
    const value = doc.toJS({ maxAliasCount: 100 });
    if (value === null || value === undefined) return;
    try {
      policies.push(validatePolicy(value));
    } catch (e) {
      if (!(e instanceof PolicyError)) throw e;
      for (const issue of e.issues) issues.push({ path: list.length > 1 ? `${where}: ${issue.path}` : issue.path, message: issue.message });
    }
  });
  if (issues.length > 0) throw new PolicyError(issues, source);
  if (policies.length === 0) throw new PolicyError([{ path: '(document)', message: 'no BackupPolicy document found' }], source);
  return policies;
}

/** TypeScript props may carry `undefined` fields; a policy document never does. */
function withoutUndefined(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutUndefined);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = withoutUndefined(v);
    return out;
  }
  return value;
}
