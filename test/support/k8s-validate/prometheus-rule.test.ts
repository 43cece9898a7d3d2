// The strict PrometheusRule check (prometheus-rule.ts).
import { validateManifest } from '.';
import { expectError, mutate, validPrometheusRule } from './fixtures';

const v = (o: unknown) => validateManifest(o);
const RULES = 'spec.groups[0].rules';

test.each<[string, string, unknown, string, ...string[]]>([
  ['unknown rule field', `${RULES}[1].severity`, 'x', `${RULES}[1].severity: unknown field`, 'prometheus-rule'],
  ['unknown spec field', 'spec.group', [], 'spec.group: unknown field'],
  ['unknown metadata field', 'metadata.lables', {}, 'metadata.lables: unknown field'],
  ['alert and record', `${RULES}[1].record`, 'x', `${RULES}[1]: must have exactly one of alert or record`],
  ['neither alert nor record', `${RULES}[1].alert`, undefined, `${RULES}[1]: must have exactly one of alert or record`],
  ['no expr', `${RULES}[0].expr`, undefined, `${RULES}[0].expr: missing required field`],
  ['expr not a string', `${RULES}[1].expr`, ['up'], `${RULES}[1].expr: wrong type`],
  ['bad duration', `${RULES}[1].for`, '15 minutes', `${RULES}[1].for: bad duration`],
  ['interval not a string', 'spec.groups[0].interval', 60, 'spec.groups[0].interval: wrong type: expected string'],
  ['group without name', 'spec.groups[0].name', undefined, 'spec.groups[0].name: missing required field'],
  ['for on a recording rule', `${RULES}[0].for`, '5m', `${RULES}[0].for: only allowed in alerting rules`],
  ['bad metric name', `${RULES}[0].record`, 'backup last', `${RULES}[0].record: bad metric name`],
  ['bad rule label name', `${RULES}[1].labels`, { 'bad-name': 'x' }, `${RULES}[1].labels.bad-name: bad label name`],
  [
    'rule label __name__',
    `${RULES}[0].labels`,
    { __name__: 'other' },
    `${RULES}[0].labels.__name__: bad label name "__name__"`,
  ],
  [
    'bad annotation name',
    `${RULES}[1].annotations`,
    { 'runbook-url': 'x' },
    `${RULES}[1].annotations.runbook-url: bad annotation name`,
  ],
  [
    'bad group label name',
    'spec.groups[0].labels',
    { 'team name': 'x' },
    'spec.groups[0].labels["team name"]: bad label name',
  ],
  ['metadata name', 'metadata.name', 'Backup', 'metadata.name: bad name', 'api-rules'],
])('%s', (_what, path, value, prefix, ...fragments) => {
  expectError(v(mutate(validPrometheusRule(), path, value)), prefix, ...fragments);
});
