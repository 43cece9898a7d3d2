import {
  prometheusLabelNameProblem,
  prometheusLabelValueProblem,
  prometheusRuleSpecProblems,
} from '../../../support/kubernetes-validation';

const paths = (problems: readonly { path: string }[]) => problems.map((p) => p.path);

describe('PrometheusRule rule groups', () => {
  test('label names follow the legacy Prometheus scheme; __name__ is reserved', () => {
    for (const name of ['severity', '_team', 'team_2']) expect(prometheusLabelNameProblem(name)).toBeUndefined();
    for (const name of ['2team', 'team-name', 'app.kubernetes.io/name', '', 'sévérité'])
      expect(prometheusLabelNameProblem(name)).toContain('invalid label name');
    expect(prometheusLabelNameProblem('__name__')).toContain('cannot be set');
  });

  test('label values are valid UTF-8', () => {
    expect(prometheusLabelValueProblem('critical ✓')).toBeUndefined();
    expect(prometheusLabelValueProblem('bad \ud800')).toContain('invalid label value');
  });

  test('groups, rules, labels and annotations, with paths', () => {
    const spec = {
      groups: [
        {
          name: 'backup',
          rules: [
            {
              alert: 'BackupStale',
              expr: 'up == 0',
              for: '10m',
              labels: { severity: 'warning', 'team-name': 'x' },
              annotations: { summary: 's', 'runbook-url': 'u' },
            },
          ],
        },
        {
          name: 'backup',
          labels: { __name__: 'x' },
          rules: [
            { expr: 'up' },
            { alert: 'A', record: 'b', expr: '' },
            { record: 'job:up:sum', expr: 'sum(up)', for: '5m', annotations: { a: 'b' } },
            { record: 'bad name', expr: 'up', for: '0s' },
          ],
        },
        { rules: [] },
      ],
    };
    expect(paths(prometheusRuleSpecProblems(spec))).toEqual([
      'groups[0].rules[0].labels[team-name]',
      'groups[0].rules[0].annotations[runbook-url]',
      'groups[1].name',
      'groups[1].labels[__name__]',
      'groups[1].rules[0]',
      'groups[1].rules[1]',
      'groups[1].rules[1].expr',
      'groups[1].rules[2].annotations',
      'groups[1].rules[2].for',
      'groups[1].rules[3].record',
      'groups[2].name',
    ]);
  });
});
