/**
 * The rule groups of a monitoring.coreos.com/v1 PrometheusRule as Prometheus loads them
 * (prometheus-operator's admission webhook and Prometheus itself run the same checks).
 *
 * Source: github.com/prometheus/prometheus model/rulefmt/rulefmt.go RuleGroups.Validate and
 * Rule.Validate: group names non-empty and unique; exactly one of `record` and `alert`; `expr`
 * set; recording rules take no annotations or `for` and are named like metrics; label names
 * valid and not `__name__`, label values valid UTF-8; annotation names valid label names.
 * Names are checked with the legacy scheme of github.com/prometheus/common/model
 * (`[a-zA-Z_][a-zA-Z0-9_]*` for labels, `[a-zA-Z_:][a-zA-Z0-9_:]*` for metrics), the strictest
 * scheme Prometheus offers (Prometheus 3 accepts any UTF-8 by default). PromQL and templates are
 * not parsed here.
 */
import { show } from '../../../lib/messages';
import { type Problem, asRecord, keyPath } from '../../../lib/kubernetes/validation/problems';
import { asList, fieldPath, under } from './problems';

const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const ZERO_DURATION = /^0+(ms|s|m|h|d|w|y)?$/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** A label name of a rule or group (`labels`); annotation names follow the same rule minus the `__name__` ban. */
export function prometheusLabelNameProblem(name: string): string | undefined {
  if (name === '__name__')
    return 'received "__name__"; invalid label name: the metric name label cannot be set by a rule';
  return LABEL_NAME.test(name)
    ? undefined
    : `received ${show(name)}; invalid label name: must match [a-zA-Z_][a-zA-Z0-9_]*`;
}

/** A label value: valid UTF-8 (no lone surrogate). */
export function prometheusLabelValueProblem(value: string): string | undefined {
  return LONE_SURROGATE.test(value) ? `received ${show(value)}; invalid label value: must be valid UTF-8` : undefined;
}

function labelMapProblems(labels: unknown): Problem[] {
  const map = asRecord(labels) ?? {};
  return Object.entries(map).flatMap(([k, v]) => {
    const problems: Problem[] = [];
    const nameProblem = prometheusLabelNameProblem(k);
    if (nameProblem) problems.push({ path: keyPath('', k), message: nameProblem });
    const valueProblem =
      typeof v === 'string' ? prometheusLabelValueProblem(v) : `received ${show(v)}; must be a string`;
    if (valueProblem) problems.push({ path: keyPath('', k), message: valueProblem });
    return problems;
  });
}

function ruleProblems(rule: unknown): Problem[] {
  const r = asRecord(rule) ?? {};
  const record = typeof r.record === 'string' ? r.record : '';
  const alert = typeof r.alert === 'string' ? r.alert : '';
  const problems: Problem[] = [];
  if (record !== '' && alert !== '')
    problems.push({ path: '', message: "only one of 'record' and 'alert' must be set" });
  if (record === '' && alert === '') problems.push({ path: '', message: "one of 'record' or 'alert' must be set" });
  if (typeof r.expr !== 'string' || r.expr === '')
    problems.push({ path: 'expr', message: "field 'expr' must be set in rule" });
  if (record !== '') {
    if (Object.keys(asRecord(r.annotations) ?? {}).length > 0)
      problems.push({ path: 'annotations', message: "invalid field 'annotations' in recording rule" });
    if (
      r.for !== undefined &&
      !((typeof r.for === 'string' || typeof r.for === 'number') && ZERO_DURATION.test(String(r.for)))
    )
      problems.push({ path: 'for', message: "invalid field 'for' in recording rule" });
    if (!METRIC_NAME.test(record))
      problems.push({
        path: 'record',
        message: `received ${show(record)}; invalid recording rule name: must match [a-zA-Z_:][a-zA-Z0-9_:]*`,
      });
  }
  problems.push(...under('labels', labelMapProblems(r.labels)));
  for (const k of Object.keys(asRecord(r.annotations) ?? {})) {
    if (!LABEL_NAME.test(k))
      problems.push({
        path: keyPath('annotations', k),
        message: `received ${show(k)}; invalid annotation name: must match [a-zA-Z_][a-zA-Z0-9_]*`,
      });
  }
  return problems;
}

/** A PrometheusRule `spec`. Paths: `groups[0].rules[1].labels[severity]`, ... */
export function prometheusRuleSpecProblems(spec: unknown): Problem[] {
  const names = new Set<string>();
  return asList(asRecord(spec)?.groups).flatMap((group, i) => {
    const g = asRecord(group) ?? {};
    const at = fieldPath('groups', i);
    const name = typeof g.name === 'string' ? g.name : '';
    const problems: Problem[] = [];
    if (name === '') problems.push({ path: fieldPath(at, 'name'), message: 'Groupname must not be empty' });
    else if (names.has(name))
      problems.push({
        path: fieldPath(at, 'name'),
        message: `received ${show(name)}; groupname is repeated in the same PrometheusRule`,
      });
    names.add(name);
    problems.push(...under(fieldPath(at, 'labels'), labelMapProblems(g.labels)));
    asList(g.rules).forEach((rule, j) =>
      problems.push(...under(fieldPath(fieldPath(at, 'rules'), j), ruleProblems(rule))),
    );
    return problems;
  });
}
