/**
 * Layer `prometheus-rule`: a hand-written strict check for monitoring.coreos.com/v1 PrometheusRule
 * (no package ships its schema).
 */
import { ErrorSource, MSG, Problems, Seg, arr, isObj } from './problems';
import { walkClientNode } from './client-node';

const PR: ErrorSource = 'prometheus-rule';
// prometheus-operator's Duration pattern (must also be non-empty)
const PROM_DURATION_RE = /^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$/;
const PROM_METRIC_NAME_RE = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const PROM_LABEL_NAME_RE = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

type FieldKind = 'string' | 'integer' | 'intOrString' | 'duration' | 'stringMap' | 'array' | 'object';

function strictFields(
  v: unknown,
  at: Seg[],
  p: Problems,
  fields: Record<string, FieldKind>,
  required: string[],
): v is Record<string, unknown> {
  if (!isObj(v)) {
    p.add(at, MSG.wrongType('object', v), PR);
    return false;
  }
  for (const r of required) if (v[r] === undefined) p.add([...at, r], MSG.required, PR);
  for (const [k, val] of Object.entries(v)) {
    const kind = fields[k];
    const kat = [...at, k];
    if (!kind) {
      p.add(kat, MSG.unknown, PR);
      continue;
    }
    switch (kind) {
      case 'string':
        if (typeof val !== 'string') p.add(kat, MSG.wrongType('string', val), PR);
        break;
      case 'integer':
        if (typeof val !== 'number' || !Number.isInteger(val)) p.add(kat, MSG.wrongType('integer', val), PR);
        else if (val < 0) p.add(kat, 'must be greater than or equal to 0', PR);
        break;
      case 'intOrString':
        if (typeof val !== 'string' && !(typeof val === 'number' && Number.isInteger(val))) {
          p.add(kat, MSG.wrongType('string or integer', val), PR);
        }
        break;
      case 'duration':
        if (typeof val !== 'string') p.add(kat, MSG.wrongType('string', val), PR);
        else if (val === '' || !PROM_DURATION_RE.test(val))
          p.add(kat, `bad duration ${JSON.stringify(val)}: expected e.g. 30s, 5m, 1h30m`, PR);
        break;
      case 'stringMap':
        if (!isObj(val)) p.add(kat, MSG.wrongType('object', val), PR);
        else {
          for (const [mk, mv] of Object.entries(val)) {
            if (typeof mv !== 'string') p.add([...kat, mk], MSG.wrongType('string', mv), PR);
          }
        }
        break;
      case 'array':
        if (!Array.isArray(val)) p.add(kat, MSG.wrongType('array', val), PR);
        break;
      case 'object':
        if (!isObj(val)) p.add(kat, MSG.wrongType('object', val), PR);
        break;
    }
  }
  return true;
}

export function checkPrometheusRule(obj: Record<string, unknown>, p: Problems): void {
  strictFields(obj, [], p, { apiVersion: 'string', kind: 'string', metadata: 'object', spec: 'object' }, [
    'metadata',
    'spec',
  ]);
  if (isObj(obj.metadata)) walkClientNode(obj.metadata, 'V1ObjectMeta', ['metadata'], p);
  const spec = obj.spec;
  if (!isObj(spec)) return;
  strictFields(spec, ['spec'], p, { groups: 'array' }, []);
  const groupNames = new Set<string>();
  arr(spec.groups).forEach((g, i) => {
    const gat: Seg[] = ['spec', 'groups', i];
    const ok = strictFields(
      g,
      gat,
      p,
      {
        name: 'string',
        interval: 'duration',
        query_offset: 'duration',
        limit: 'integer',
        partial_response_strategy: 'string',
        labels: 'stringMap',
        rules: 'array',
      },
      ['name'],
    );
    if (!ok || !isObj(g)) return;
    if (g.name === '') p.add([...gat, 'name'], 'must not be empty', PR);
    if (typeof g.name === 'string' && g.name !== '') {
      if (groupNames.has(g.name)) p.add([...gat, 'name'], `duplicate rule group name ${JSON.stringify(g.name)}`, PR);
      groupNames.add(g.name);
    }
    if (typeof g.partial_response_strategy === 'string' && !/^(abort|warn)?$/i.test(g.partial_response_strategy)) {
      p.add([...gat, 'partial_response_strategy'], MSG.enumValue(g.partial_response_strategy, ['abort', 'warn']), PR);
    }
    arr(g.rules).forEach((r, j) => {
      const rat: Seg[] = [...gat, 'rules', j];
      const rok = strictFields(
        r,
        rat,
        p,
        {
          alert: 'string',
          record: 'string',
          expr: 'intOrString',
          for: 'duration',
          keep_firing_for: 'duration',
          labels: 'stringMap',
          annotations: 'stringMap',
        },
        ['expr'],
      );
      if (!rok || !isObj(r)) return;
      const isAlert = r.alert !== undefined;
      const isRecord = r.record !== undefined;
      if (isAlert === isRecord) p.add(rat, 'must have exactly one of alert or record', PR);
      if (r.expr === '') p.add([...rat, 'expr'], 'must not be empty', PR);
      if (isAlert && r.alert === '') p.add([...rat, 'alert'], 'must not be empty', PR);
      if (isRecord && typeof r.record === 'string' && !PROM_METRIC_NAME_RE.test(r.record)) {
        p.add(
          [...rat, 'record'],
          `bad metric name ${JSON.stringify(r.record)}: must match [a-zA-Z_:][a-zA-Z0-9_:]*`,
          PR,
        );
      }
      if (isRecord && !isAlert) {
        for (const f of ['for', 'keep_firing_for', 'annotations']) {
          if (r[f] !== undefined) p.add([...rat, f], 'only allowed in alerting rules', PR);
        }
      }
      checkPromLabelNames(r.labels, [...rat, 'labels'], p, true);
      checkPromLabelNames(r.annotations, [...rat, 'annotations'], p, false);
    });
    checkPromLabelNames(g.labels, [...gat, 'labels'], p, true);
  });
}

/**
 * Rule (and group) label and annotation names, as prometheus/prometheus model/rulefmt/rulefmt.go
 * (Rule.Validate) checks them: legacy label names; `__name__` is not a label a rule may set.
 */
function checkPromLabelNames(map: unknown, at: Seg[], p: Problems, labels: boolean): void {
  if (!isObj(map)) return;
  for (const k of Object.keys(map)) {
    if (!PROM_LABEL_NAME_RE.test(k))
      p.add(
        [...at, k],
        `bad ${labels ? 'label' : 'annotation'} name ${JSON.stringify(k)}: must match [a-zA-Z_][a-zA-Z0-9_]*`,
        PR,
      );
    else if (labels && k === '__name__')
      p.add([...at, k], 'bad label name "__name__": a rule may not set the metric name label', PR);
  }
}
