/**
 * The samples of the differential test (differential.test.ts): for each rule of lib/kubernetes/validation and
 * test/support/kubernetes-validation, objects the package renders, changed to hit the rule just inside its
 * boundary (`inside`: both must accept), just outside (`outside`: both must refuse), or with a value the fuzz
 * generators make
 * (test/lib/model/fuzz/arbitraries.ts; `either`: both must only agree).
 */
import { ENV_FIELD_PATHS } from '../support/kubernetes-validation';
import { ANNOTATION_LIMIT, ANNOTATION_SLACK, FUZZ_VALUES, allValues } from '../lib/model/fuzz/arbitraries';

/** The rendered objects the samples start from (differential.test.ts picks them from the example policies). */
export type Base =
  | 'cronJob' // Vitess: init container, secret items, emptyDir, ephemeral PVC, anti-affinity, tolerations, env fieldRef
  | 'etcdCronJob' // etcd per node: hostPath, node affinity, priority class, Exists tolerations
  | 'job' // the Vitess CronJob's jobTemplate as a Job (what `backup-cronjobs restore` emits)
  | 'configMap'
  | 'serviceAccount'
  | 'role'
  | 'roleBinding'
  | 'prometheusRule'
  | 'scc';

export type Side = 'inside' | 'outside' | 'either';

/** Changes to a copy of a base object, by dotted path (`spec.template.spec.containers.0.name`; a key with dots in brackets: `requests[example.com/foo]`). */
export interface Editor {
  get(path: string): unknown;
  set(path: string, value: unknown): void;
  push(path: string, value: unknown): void;
  delete(path: string): void;
}

export interface Sample {
  /** The rule of lib/kubernetes/validation or test/support/kubernetes-validation (file: rule). */
  readonly rule: string;
  /** The value tried, as written. */
  readonly value: string;
  readonly base: Base;
  readonly side: Side;
  readonly edit: (e: Editor) => void;
  /** Sent with a dry-run POST rather than server-side apply: names that cannot be a URL path segment. */
  readonly create?: boolean;
}

export const POD: Record<'cronJob' | 'job', string> = {
  cronJob: 'spec.jobTemplate.spec.template.spec',
  job: 'spec.template.spec',
};
const P = POD.cronJob;
const MAIN = `${P}.containers.0`;
const INIT = `${P}.initContainers.0`;
/** Volume indexes of the Vitess CronJob: 0 secret with items, 1 emptyDir, 3 ephemeral PVC, 5 configMap. */
const SECRET_VOLUME = `${P}.volumes.0`;
const EMPTY_DIR = `${P}.volumes.1`;
const EPHEMERAL = `${P}.volumes.3.ephemeral.volumeClaimTemplate`;
const ETCD_P = POD.cronJob;
const ETCD_HOSTPATH = `${ETCD_P}.volumes.1.hostPath`;
const ETCD_NODE_TERM = `${ETCD_P}.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms.0`;
const ANTI = `${P}.affinity.podAntiAffinity`;

const show = (v: unknown): string => {
  const text = v === undefined ? 'nothing' : (JSON.stringify(v) ?? typeof v);
  return text.length > 60 ? `${text.slice(0, 40)}…(${text.length} chars)` : text;
};
const repeat = (s: string, n: number) => s.repeat(n);

// The values of the fuzz generators (test/lib/model/fuzz/arbitraries.ts), plausible and adversarial.
const name63 = 'a' + repeat('b', 61) + 'c';
const name64 = name63 + 'd';
const subdomain253 = [repeat('a', 63), repeat('b', 63), repeat('c', 63), repeat('d', 61)].join('.');
const subdomain254 = subdomain253 + 'e';
const FUZZ = {
  dnsLabels: allValues(FUZZ_VALUES.dnsLabels),
  subdomains: allValues(FUZZ_VALUES.subdomains),
  secretKeys: allValues(FUZZ_VALUES.secretKeys),
  labelKeys: allValues(FUZZ_VALUES.labelKeys),
  labelValues: allValues(FUZZ_VALUES.labelValues),
  quantities: allValues(FUZZ_VALUES.quantities),
  resourceNames: allValues(FUZZ_VALUES.resourceNames),
  schedules: allValues(FUZZ_VALUES.schedules),
  timeZones: allValues(FUZZ_VALUES.timeZones),
  topologyKeys: allValues(FUZZ_VALUES.topologyKeys),
  nodeNames: allValues(FUZZ_VALUES.nodeNames),
  gtLtValues: allValues(FUZZ_VALUES.gtLtValues),
  tolerationSeconds: allValues(FUZZ_VALUES.tolerationSeconds),
  envNames: allValues(FUZZ_VALUES.envNames),
  mountPaths: allValues(FUZZ_VALUES.mountPaths),
  hostPaths: allValues(FUZZ_VALUES.hostPaths),
  sizeLimits: allValues(FUZZ_VALUES.sizeLimits),
  annotationSlack: ANNOTATION_SLACK,
};

const CONFIGMAP_LIMIT = 1024 * 1024;

/** One sample per value of a table, all at one side. */
function each<T>(
  rule: string,
  base: Base,
  side: Side,
  values: readonly T[],
  edit: (v: T) => (e: Editor) => void,
): Sample[] {
  return values.map((v) => ({ rule, base, side, value: show(v), edit: edit(v) }));
}

/** A boundary pair: the value just inside and the value just outside. */
function pair<T>(rule: string, base: Base, inside: T, outside: T, edit: (v: T) => (e: Editor) => void): Sample[] {
  return [
    { rule, base, side: 'inside', value: show(inside), edit: edit(inside) },
    { rule, base, side: 'outside', value: show(outside), edit: edit(outside) },
  ];
}

const set = (path: string) => (v: unknown) => (e: Editor) => e.set(path, v);
const setKey = (path: string, value: unknown) => (k: string) => (e: Editor) =>
  e.set(`${path}`, { ...(e.get(path) as object), [k]: value });

function names(): Sample[] {
  const name = set('metadata.name');
  return [
    ...pair('names: CronJob name ≤ 52', 'cronJob', repeat('c', 52), repeat('c', 53), name),
    ...each('names: CronJob name a DNS-1123 subdomain', 'cronJob', 'inside', ['a.b', '0', 'a-b.c-d'], name),
    ...each('names: CronJob name a DNS-1123 subdomain', 'cronJob', 'outside', ['Abc', 'a_b', '-a', 'a-', 'a..b'], name),
    ...pair('names: Job name ≤ 63', 'job', repeat('j', 63), repeat('j', 64), name),
    ...each('names: Job name a DNS-1123 subdomain', 'job', 'outside', ['J', 'j_b'], name),
    ...pair('names: object name a DNS-1123 subdomain ≤ 253', 'configMap', subdomain253, subdomain254, name),
    ...each(
      'names: object name (fuzz dnsLabel, subdomain)',
      'configMap',
      'either',
      [...FUZZ.dnsLabels, ...FUZZ.subdomains],
      name,
    ),
    ...each('names: object name a DNS-1123 subdomain', 'configMap', 'outside', ['A', 'a_b', 'a.', '.a'], name),
    ...pair('names: object name a DNS-1123 subdomain ≤ 253', 'serviceAccount', subdomain253, 'Sa', name),
    ...pair('names: custom resource name a DNS-1123 subdomain', 'prometheusRule', 'a.b', 'A', name),
    ...pair('names: SCC name a DNS-1123 subdomain', 'scc', 'a.b', 'A_b', name),
    ...each('names: RBAC names are path segments', 'role', 'inside', ['UPPER_case:x', 'a..b', 'a b', '...'], name),
    ...each('names: RBAC names are path segments', 'roleBinding', 'inside', ['UPPER_case:x', subdomain254], name),
    ...['a%b', 'a/b', '..', '.'].map((v): Sample => ({
      rule: 'names: RBAC names are path segments',
      base: 'role',
      side: 'outside',
      value: show(v),
      edit: name(v),
      create: true,
    })),
  ];
}

function labels(): Sample[] {
  const out: Sample[] = [];
  const spots: [Base, string][] = [
    ['cronJob', 'metadata.labels'],
    ['cronJob', 'spec.jobTemplate.metadata.labels'],
    ['cronJob', `${P.replace(/\.spec$/, '')}.metadata.labels`],
    ['cronJob', `${P}.nodeSelector`],
    ['cronJob', `${ANTI}.requiredDuringSchedulingIgnoredDuringExecution.0.labelSelector.matchLabels`],
    ['configMap', 'metadata.labels'],
  ];
  for (const [base, path] of spots) {
    out.push(...each(`labels: label keys (${path})`, base, 'either', FUZZ.labelKeys, setKey(path, 'v')));
    out.push(
      ...each(`labels: label values (${path})`, base, 'either', FUZZ.labelValues, (v: string) =>
        setKey(path, v)('example.com/k'),
      ),
    );
  }
  const key = setKey('metadata.labels', 'v');
  out.push(
    ...pair('labels: label key name part ≤ 63', 'cronJob', `example.com/${name63}`, `example.com/${name64}`, key),
  );
  out.push(...pair('labels: label key prefix ≤ 253', 'cronJob', `${subdomain253}/x`, `${subdomain254}/x`, key));
  out.push(
    ...pair('labels: label value ≤ 63', 'cronJob', name63, name64, (v: string) => setKey('metadata.labels', v)('k')),
  );
  // annotations: keys, and the 256 KiB total (the CronJob's own annotations replaced by one)
  for (const [base, path] of [
    ['cronJob', 'metadata.annotations'],
    ['cronJob', `${P.replace(/\.spec$/, '')}.metadata.annotations`],
    ['cronJob', 'spec.jobTemplate.metadata.annotations'],
  ] as [Base, string][]) {
    out.push(
      ...each(
        `labels: annotation keys (${path})`,
        base,
        'either',
        [...FUZZ.labelKeys, 'Example.COM/X', 'A'],
        setKey(path, 'v'),
      ),
    );
    out.push(
      ...FUZZ.annotationSlack.map((slack): Sample => ({
        rule: `labels: annotations total ≤ 256 KiB (${path})`,
        base,
        side: slack >= 0 ? 'inside' : 'outside',
        value: `one annotation, keys and values ${ANNOTATION_LIMIT - slack} bytes`,
        edit: (e) =>
          e.set(path, { 'example.com/big': 'z'.repeat(ANNOTATION_LIMIT - slack - 'example.com/big'.length) }),
      })),
    );
  }
  // label selectors (pod anti-affinity) and node selector requirements (etcd's node affinity)
  const expr = (r: Record<string, unknown>) => (e: Editor) =>
    e.set(`${ANTI}.requiredDuringSchedulingIgnoredDuringExecution.0.labelSelector.matchExpressions`, [r]);
  out.push(
    ...each(
      'labels: label selector requirement',
      'cronJob',
      'inside',
      [
        { key: 'a', operator: 'In', values: ['x'] },
        { key: 'a', operator: 'NotIn', values: ['x', ''] },
        { key: 'a', operator: 'Exists' },
        { key: 'example.com/a', operator: 'DoesNotExist' },
      ],
      expr,
    ),
    ...each(
      'labels: label selector requirement',
      'cronJob',
      'outside',
      [
        { key: 'a', operator: 'In' },
        { key: 'a', operator: 'In', values: [] },
        { key: 'a', operator: 'Exists', values: ['x'] },
        { key: 'a', operator: 'Gt', values: ['1'] },
        { key: 'a', operator: 'in', values: ['x'] },
        { key: 'a b', operator: 'Exists' },
        { key: 'a', operator: 'In', values: ['x y'] },
        { key: 'a', operator: 'In', values: [name64] },
      ],
      expr,
    ),
  );
  const required = (r: Record<string, unknown>) => (e: Editor) => e.push(`${ETCD_NODE_TERM}.matchExpressions`, r);
  const preferred = (r: Record<string, unknown>) => (e: Editor) =>
    e.set(`${ETCD_P}.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution`, [
      { weight: 1, preference: { matchExpressions: [r] } },
    ]);
  for (const [where, edit] of [
    ['required', required],
    ['preferred', preferred],
  ] as const) {
    out.push(
      ...each(
        `labels: node selector requirement (${where})`,
        'etcdCronJob',
        'inside',
        [
          { key: 'a', operator: 'Gt', values: ['1'] },
          { key: 'a', operator: 'Lt', values: ['5'] },
          { key: 'a', operator: 'In', values: ['x', 'y'] },
          { key: 'a', operator: 'DoesNotExist' },
        ],
        edit,
      ),
      ...each(
        `labels: node selector requirement (${where})`,
        'etcdCronJob',
        'outside',
        [
          { key: 'a', operator: 'Gt', values: ['1', '2'] },
          { key: 'a', operator: 'Gt' },
          { key: 'a', operator: 'In' },
          { key: 'a', operator: 'Exists', values: ['x'] },
          { key: 'a', operator: 'Bogus', values: ['x'] },
          { key: '-a', operator: 'Exists' },
        ],
        edit,
      ),
      ...each(
        `labels: node selector Gt/Lt values (${where}; fuzz)`,
        'etcdCronJob',
        'either',
        FUZZ.gtLtValues,
        (v: string) => edit({ key: 'a', operator: 'Gt', values: [v] }),
      ),
      ...each(
        `labels: node selector In values (${where}; fuzz label values)`,
        'etcdCronJob',
        'either',
        FUZZ.labelValues,
        (v: string) => edit({ key: 'a', operator: 'In', values: [v] }),
      ),
      ...each(`labels: node selector keys (${where}; fuzz)`, 'etcdCronJob', 'either', FUZZ.labelKeys, (v: string) =>
        edit({ key: v, operator: 'Exists' }),
      ),
    );
  }
  return out;
}

function resources(): Sample[] {
  const out: Sample[] = [];
  const request = (name: string) => (q: unknown) => (e: Editor) =>
    e.set(`${MAIN}.resources.requests`, { ...(e.get(`${MAIN}.resources.requests`) as object), [name]: q });
  out.push(
    ...each('quantity: quantities (fuzz), as a cpu request', 'cronJob', 'either', FUZZ.quantities, request('cpu')),
  );
  out.push(
    ...each(
      'quantity: the quantity grammar',
      'cronJob',
      'inside',
      [
        '1e3',
        '1E3',
        '.5',
        '5.',
        '+1',
        ' 1',
        '1 ',
        'Ki',
        'e5',
        '0.000000001',
        '1n',
        '123456789012345678901234567890',
        '9223372036854775807Ki',
        1,
        0.5,
        1000,
      ],
      request('cpu'),
    ),
    ...each(
      'quantity: the quantity grammar',
      'cronJob',
      'outside',
      ['', 'x', '1x', '1 m', '1.2.3', '--1', '1e', 'Pi', '.e-10', '1Kib', '1m2', 'Ei', '1e1.5'],
      request('cpu'),
    ),
    ...pair('quantity: non-negative', 'cronJob', '0', '-1m', request('cpu')),
    ...pair('quantity: non-negative (memory)', 'cronJob', '0', '-0.1', request('memory')),
  );
  // resource names (a request and an equal limit, so only the name decides)
  const both =
    (name: string, q = '1') =>
    (e: Editor) => {
      e.set(`${MAIN}.resources.requests[${name}]`, q);
      e.set(`${MAIN}.resources.limits[${name}]`, q);
    };
  out.push(
    ...each('resources: container resource names (fuzz)', 'cronJob', 'either', FUZZ.resourceNames, (n: string) =>
      both(n, n.startsWith('hugepages-') ? n.slice('hugepages-'.length) : '1'),
    ),
  );
  out.push(
    ...pair('resources: requests ≤ limits', 'cronJob', '2Gi', '2049Mi', set(`${MAIN}.resources.requests.memory`)),
    ...pair(
      'resources: requests ≤ limits (exact, 10^-9)',
      'cronJob',
      '2147483648',
      '2147483648.000000001',
      set(`${MAIN}.resources.requests.memory`),
    ),
    ...pair('resources: extended resources are integers', 'cronJob', '2', '1.5', (q: string) =>
      both('example.com/foo', q),
    ),
    ...pair('resources: extended resources are integers', 'cronJob', '1k', '500m', (q: string) =>
      both('example.com/foo', q),
    ),
    ...pair(
      'resources: extended resources need a limit equal to the request',
      'cronJob',
      '1',
      '2',
      (q: string) => (e: Editor) => {
        e.set(`${MAIN}.resources.requests[example.com/foo]`, '1');
        e.set(`${MAIN}.resources.limits[example.com/foo]`, q);
      },
    ),
    ...each(
      'resources: extended resources need a limit',
      'cronJob',
      'outside',
      ['1'],
      (q: string) => (e: Editor) => e.set(`${MAIN}.resources.requests[example.com/foo]`, q),
    ),
    ...pair('resources: hugepages are a multiple of the page size', 'cronJob', '4Mi', '3Mi', (q: string) =>
      both('hugepages-2Mi', q),
    ),
    ...each(
      'resources: hugepages need cpu or memory',
      'cronJob',
      'outside',
      ['2Mi'],
      (q: string) => (e: Editor) =>
        e.set(`${MAIN}.resources`, { requests: { 'hugepages-2Mi': q }, limits: { 'hugepages-2Mi': q } }),
    ),
  );
  return out;
}

function env(): Sample[] {
  const envName = set(`${MAIN}.env.0.name`);
  const fieldPath = (v: string) => (e: Editor) =>
    e.push(`${MAIN}.env`, { name: 'FIELD', valueFrom: { fieldRef: { fieldPath: v } } });
  const valueFrom = (v: unknown) => (e: Editor) => e.push(`${MAIN}.env`, { name: 'FROM', ...(v as object) });
  return [
    ...each('env: env var names (fuzz)', 'cronJob', 'either', FUZZ.envNames, envName),
    ...each('env: env var names', 'cronJob', 'inside', ['a', 'A_B', 'a-b.c', '_1', '-', 'x..y'], envName),
    ...each('env: env var names', 'cronJob', 'outside', ['', '.', '..', '..x', 'A=B'], envName),
    ...each(
      'env: env var names (1.28: C-like; 1.30+: printable ASCII but "=")',
      'cronJob',
      'either',
      ['1X', 'a b', 'a:b', 'ü', '$X'],
      envName,
    ),
    ...each(
      'env: fieldRef fieldPaths',
      'cronJob',
      'inside',
      [...ENV_FIELD_PATHS, "metadata.labels['app']", "metadata.annotations['Example.com/x']", 'spec.host'],
      fieldPath,
    ),
    ...each(
      'env: fieldRef fieldPaths',
      'cronJob',
      'outside',
      [
        'metadata.labels',
        'metadata.generateName',
        'status.phase',
        "metadata.labels['a b']",
        "spec.nodeName['x']",
        'bogus',
      ],
      fieldPath,
    ),
    ...each(
      'env: fieldRef fieldPaths (1.28 gates status.hostIPs)',
      'cronJob',
      'either',
      ['status.hostIPs', 'metadata.annotations', 'metadata.labels[app]'],
      fieldPath,
    ),
    ...each(
      'env: valueFrom',
      'cronJob',
      'inside',
      [
        { valueFrom: { resourceFieldRef: { resource: 'limits.memory' } } },
        { valueFrom: { secretKeyRef: { name: 'a', key: 'b' } } },
        { valueFrom: { configMapKeyRef: { name: 'a.b', key: '.b' } } },
        { value: '', valueFrom: { secretKeyRef: { name: 'a', key: 'b' } } },
      ],
      valueFrom,
    ),
    ...each(
      'env: valueFrom',
      'cronJob',
      'outside',
      [
        { valueFrom: {} },
        { value: 'x', valueFrom: { secretKeyRef: { name: 'a', key: 'b' } } },
        { valueFrom: { secretKeyRef: { name: 'a', key: 'b' }, configMapKeyRef: { name: 'a', key: 'b' } } },
        { valueFrom: { resourceFieldRef: { resource: 'limits.bogus' } } },
        { valueFrom: { fieldRef: { apiVersion: 'v2', fieldPath: 'metadata.name' } } },
        { valueFrom: { secretKeyRef: { name: 'A', key: 'b' } } },
        { valueFrom: { secretKeyRef: { name: 'a', key: '' } } },
      ],
      valueFrom,
    ),
    ...each('env: secretKeyRef names (fuzz subdomains)', 'cronJob', 'either', FUZZ.subdomains, (n: string) =>
      valueFrom({ valueFrom: { secretKeyRef: { name: n, key: 'k' } } }),
    ),
    ...each('env: secretKeyRef keys (fuzz)', 'cronJob', 'either', FUZZ.secretKeys, (k: string) =>
      valueFrom({ valueFrom: { secretKeyRef: { name: 's', key: k } } }),
    ),
    ...each(
      'env: duplicate names (a list-map keyed by name)',
      'cronJob',
      'outside',
      ['BACKUP_JOB', 'POD_IP'],
      (n: string) => (e: Editor) => e.push(`${MAIN}.env`, { name: n, value: 'again' }),
    ),
  ];
}

function pod(): Sample[] {
  const volumeName = set(`${EMPTY_DIR}.name`);
  const mounts = `${MAIN}.volumeMounts`;
  const item = (v: Record<string, unknown>) => (e: Editor) =>
    e.set(`${SECRET_VOLUME}.secret.items.0`, { key: 'credentials', path: 'credentials', ...v });
  const hostPath = set(`${ETCD_HOSTPATH}.path`);
  return [
    // volumes (the emptyDir `vt-root` is mounted: a renamed one leaves its mounts dangling, so a fresh volume)
    ...each(
      'pod: volume names (fuzz)',
      'cronJob',
      'either',
      [...FUZZ.dnsLabels, 'tmp', 'scratch', 'vt-root', 'Vol', name64],
      (n: string) => (e: Editor) => e.push(`${P}.volumes`, { name: n, emptyDir: {} }),
    ),
    ...pair(
      'pod: volume names are DNS-1123 labels ≤ 63',
      'cronJob',
      name63,
      name64,
      (n: string) => (e: Editor) => e.push(`${P}.volumes`, { name: n, emptyDir: {} }),
    ),
    ...each('pod: volume needs a name', 'cronJob', 'outside', [''], volumeName),
    ...pair(
      'pod: at most one volume type (none: v1 defaulting makes an emptyDir)',
      'cronJob',
      {},
      { emptyDir: {}, secret: { secretName: 's' } },
      (v: object) => (e: Editor) => e.push(`${P}.volumes`, { name: 'extra', ...v }),
    ),
    ...each(
      'pod: emptyDir sizeLimit (fuzz)',
      'cronJob',
      'either',
      FUZZ.sizeLimits,
      set(`${EMPTY_DIR}.emptyDir.sizeLimit`),
    ),
    ...pair('pod: emptyDir sizeLimit ≥ 0', 'cronJob', '0', '-1', set(`${EMPTY_DIR}.emptyDir.sizeLimit`)),
    ...each(
      'pod: secret/configMap items',
      'cronJob',
      'inside',
      [{ path: 'a..b' }, { path: 'a/b' }, { path: 'a...' }, { mode: 0 }, { mode: 0o777 }],
      item,
    ),
    ...each(
      'pod: secret/configMap items',
      'cronJob',
      'outside',
      [
        { path: '' },
        { path: '/abs' },
        { path: '..' },
        { path: '../x' },
        { path: 'a/../b' },
        { path: '..a' },
        { key: '' },
        { mode: 0o1000 },
        { mode: -1 },
      ],
      item,
    ),
    ...each('pod: secret items keys (fuzz secret keys)', 'cronJob', 'either', FUZZ.secretKeys, (k: string) =>
      item({ key: k }),
    ),
    ...pair('pod: defaultMode 0..0777', 'cronJob', 0o777, 0o1000, set(`${SECRET_VOLUME}.secret.defaultMode`)),
    ...each(
      'pod: secret needs secretName, configMap a name',
      'cronJob',
      'outside',
      ['secret.secretName', 'configMap.name'],
      (f: string) => (e: Editor) =>
        e.push(`${P}.volumes`, { name: 'extra', [f.split('.')[0]]: { [f.split('.')[1]]: '' } }),
    ),
    ...each(
      'pod: persistentVolumeClaim needs claimName',
      'cronJob',
      'outside',
      [''],
      (c: string) => (e: Editor) => e.push(`${P}.volumes`, { name: 'extra', persistentVolumeClaim: { claimName: c } }),
    ),
    ...each('pod: hostPath paths (fuzz)', 'etcdCronJob', 'either', FUZZ.hostPaths, hostPath),
    ...each('pod: hostPath paths', 'etcdCronJob', 'inside', ['/', '/a', '/a.b/c'], hostPath),
    ...each('pod: hostPath paths', 'etcdCronJob', 'outside', ['', '/a/..', '../a', '..'], hostPath),
    ...each(
      'pod: hostPath paths (ours: absolute, normalized)',
      'etcdCronJob',
      'either',
      ['relative', '/a/', '/a/./b', '/a//b'],
      hostPath,
    ),
    ...pair('pod: hostPath type', 'etcdCronJob', 'Socket', 'Bogus', set(`${ETCD_HOSTPATH}.type`)),
    ...each('pod: hostPath type', 'etcdCronJob', 'inside', [''], set(`${ETCD_HOSTPATH}.type`)),
    // mounts
    ...each(
      'pod: mount paths (fuzz), a new mount',
      'cronJob',
      'either',
      FUZZ.mountPaths,
      (p: string) => (e: Editor) => e.push(mounts, { name: 'tmp', mountPath: p }),
    ),
    ...each(
      'pod: a mount names a volume of the pod',
      'cronJob',
      'outside',
      ['nope', ''],
      (n: string) => (e: Editor) => e.push(mounts, { name: n, mountPath: '/nope' }),
    ),
    ...each(
      'pod: mountPath unique in the container',
      'cronJob',
      'outside',
      ['/tmp'],
      (p: string) => (e: Editor) => e.push(mounts, { name: 'vt-root', mountPath: p }),
    ),
    ...each(
      'pod: mountPath required',
      'cronJob',
      'outside',
      [''],
      (p: string) => (e: Editor) => e.push(mounts, { name: 'tmp', mountPath: p }),
    ),
    ...each('pod: subPath', 'cronJob', 'inside', ['a/b', 'a..b', '..a', 'a/'], set(`${mounts}.0.subPath`)),
    ...each('pod: subPath', 'cronJob', 'outside', ['/a', '..', 'a/../b', '../a'], set(`${mounts}.0.subPath`)),
    ...each('pod: subPathExpr', 'cronJob', 'inside', ['$(POD_IP)/x'], (v: string) => (e: Editor) => {
      e.delete(`${mounts}.0.subPath`);
      e.set(`${mounts}.0.subPathExpr`, v);
    }),
    ...each('pod: subPathExpr', 'cronJob', 'outside', ['/$(POD_IP)', '../$(POD_IP)'], (v: string) => (e: Editor) => {
      e.delete(`${mounts}.0.subPath`);
      e.set(`${mounts}.0.subPathExpr`, v);
    }),
    ...each('pod: subPath and subPathExpr exclusive', 'cronJob', 'outside', ['x'], set(`${mounts}.0.subPathExpr`)),
    // containers
    ...each(
      'pod: container names (fuzz dnsLabel)',
      'cronJob',
      'either',
      [...FUZZ.dnsLabels, 'Vtbackup', 'a_b', name64],
      set(`${MAIN}.name`),
    ),
    ...each(
      'pod: container names unique across init and regular containers',
      'cronJob',
      'outside',
      ['vtbackup'],
      set(`${INIT}.name`),
    ),
    ...each(
      'pod: a container needs a name and an image',
      'cronJob',
      'outside',
      ['name', 'image'],
      (f: string) => (e: Editor) => e.set(`${MAIN}.${f}`, ''),
    ),
    ...each(
      'pod: image without surrounding white space',
      'cronJob',
      'outside',
      [' vitess/lite', 'vitess/lite ', 'vitess/lite\n'],
      set(`${MAIN}.image`),
    ),
    ...each(
      'pod: image without surrounding white space',
      'cronJob',
      'inside',
      ['vitess/lite:v 1', 'x'],
      set(`${MAIN}.image`),
    ),
    ...each('pod: a pod needs a container', 'cronJob', 'outside', [[]], set(`${P}.containers`)),
    // names in the pod spec
    ...each(
      'pod: serviceAccountName (fuzz)',
      'cronJob',
      'either',
      [...FUZZ.subdomains, 'backup', 'sa.v1', 'default'],
      set(`${P}.serviceAccountName`),
    ),
    ...each(
      'pod: priorityClassName (fuzz)',
      'etcdCronJob',
      'either',
      [...FUZZ.subdomains, 'high', 'backup.low', 'system-node-critical'],
      set(`${ETCD_P}.priorityClassName`),
    ),
    ...each('pod: nodeName (fuzz node names)', 'cronJob', 'either', FUZZ.nodeNames, set(`${P}.nodeName`)),
    ...each(
      'pod: hostname and subdomain are DNS-1123 labels',
      'cronJob',
      'either',
      ['a', name63, name64, 'a.b', 'A'],
      set(`${P}.hostname`),
    ),
    ...each(
      'pod: hostname and subdomain are DNS-1123 labels',
      'cronJob',
      'either',
      ['a', name64, 'a.b'],
      set(`${P}.subdomain`),
    ),
    ...pair('pod: activeDeadlineSeconds 1..2^31-1', 'cronJob', 1, 0, set(`${P}.activeDeadlineSeconds`)),
    ...pair('pod: activeDeadlineSeconds 1..2^31-1', 'cronJob', 2 ** 31 - 1, 2 ** 31, set(`${P}.activeDeadlineSeconds`)),
    // the list-maps server-side apply keys: duplicates
    ...each(
      'pod: duplicate volume names',
      'cronJob',
      'outside',
      ['tmp'],
      (n: string) => (e: Editor) => e.push(`${P}.volumes`, { name: n, emptyDir: {} }),
    ),
    ...each(
      'pod: duplicate container names',
      'cronJob',
      'outside',
      ['vtbackup'],
      (n: string) => (e: Editor) => e.push(`${P}.containers`, { ...(e.get(MAIN) as object), name: n }),
    ),
    ...each(
      'pod: duplicate imagePullSecrets',
      'cronJob',
      'outside',
      ['regcred'],
      (n: string) => (e: Editor) => e.set(`${P}.imagePullSecrets`, [{ name: n }, { name: n }]),
    ),
    ...each(
      'pod: container ports',
      'cronJob',
      'inside',
      [
        [{ containerPort: 80 }, { containerPort: 80, protocol: 'UDP' }],
        [
          { containerPort: 1, name: 'a' },
          { containerPort: 65535, name: 'b', protocol: 'SCTP' },
        ],
        [
          { containerPort: 80, name: repeat('a', 15) },
          { containerPort: 81, name: 'a-1' },
        ],
      ],
      set(`${MAIN}.ports`),
    ),
    ...each(
      'pod: container ports',
      'cronJob',
      'outside',
      [
        [{ containerPort: 80 }, { containerPort: 80 }],
        [{ containerPort: 80 }, { containerPort: 80, protocol: 'TCP' }],
        [{ containerPort: 0 }],
        [{ containerPort: 65536 }],
        [{ containerPort: 80, protocol: 'tcp' }],
        [
          { containerPort: 80, name: 'a' },
          { containerPort: 81, name: 'a' },
        ],
        [{ containerPort: 80, name: repeat('a', 16) }],
        [{ containerPort: 80, name: '1' }],
        [{ containerPort: 80, name: 'a--b' }],
        [{ containerPort: 80, name: 'A' }],
        [{ containerPort: 80, name: '-a' }],
      ],
      set(`${MAIN}.ports`),
    ),
  ];
}

function scheduling(): Sample[] {
  const tol = (t: Record<string, unknown>) => (e: Editor) => e.push(`${P}.tolerations`, t);
  const term = `${ANTI}.requiredDuringSchedulingIgnoredDuringExecution.0`;
  const preferred = (weight: unknown) => (e: Editor) =>
    e.set(`${ANTI}.preferredDuringSchedulingIgnoredDuringExecution`, [
      {
        weight,
        podAffinityTerm: { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { a: 'b' } } },
      },
    ]);
  const fields = (r: unknown) => (e: Editor) => e.set(`${ETCD_NODE_TERM}.matchFields`, [r]);
  return [
    ...each('scheduling: toleration keys (fuzz)', 'cronJob', 'either', FUZZ.labelKeys, (k: string) =>
      tol({ key: k, operator: 'Exists' }),
    ),
    ...each('scheduling: toleration values (fuzz)', 'cronJob', 'either', FUZZ.labelValues, (v: string) =>
      tol({ key: 'k', operator: 'Equal', value: v }),
    ),
    ...each('scheduling: tolerationSeconds (fuzz)', 'cronJob', 'either', FUZZ.tolerationSeconds, (s: number) =>
      tol({ key: 'k', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: s }),
    ),
    // the largest double below 2^63, and 2^63 (JSON: 9223372036854776000): the API server takes both
    ...each('scheduling: tolerationSeconds (int64)', 'cronJob', 'either', [2 ** 63 - 1024, 2 ** 63], (s: number) =>
      tol({ key: 'k', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: s }),
    ),
    ...each(
      'scheduling: tolerations',
      'cronJob',
      'inside',
      [
        { operator: 'Exists' },
        { key: 'k', value: 'v' },
        { key: 'k', operator: 'Equal', value: '' },
        { key: 'k', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: -5 },
      ],
      tol,
    ),
    ...each(
      'scheduling: tolerations',
      'cronJob',
      'outside',
      [
        { operator: 'Equal', value: 'v' },
        { key: '', value: 'v' },
        { key: 'k', operator: 'Exists', value: 'v' },
        { key: 'k', operator: 'Bogus' },
        { key: 'k', operator: 'Exists', effect: 'NoSchedule', tolerationSeconds: 5 },
        { key: 'k', operator: 'Exists', tolerationSeconds: 5 },
        { key: 'k', operator: 'Exists', effect: 'Bogus' },
      ],
      tol,
    ),
    ...each('scheduling: topology keys (fuzz)', 'cronJob', 'either', FUZZ.topologyKeys, set(`${term}.topologyKey`)),
    ...each('scheduling: topology key required', 'cronJob', 'outside', [''], set(`${term}.topologyKey`)),
    ...each(
      'scheduling: affinity namespaces (fuzz dnsLabel)',
      'cronJob',
      'either',
      [...FUZZ.dnsLabels, 'A', 'a.b', name64],
      (ns: string) => (e: Editor) => e.set(`${term}.namespaces`, [ns]),
    ),
    ...pair('scheduling: weight 1..100', 'cronJob', 1, 0, preferred),
    ...pair('scheduling: weight 1..100', 'cronJob', 100, 101, preferred),
    ...pair(
      'scheduling: node affinity weight 1..100',
      'etcdCronJob',
      100,
      0,
      (w: number) => (e: Editor) =>
        e.set(`${ETCD_P}.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution`, [
          { weight: w, preference: { matchExpressions: [{ key: 'a', operator: 'Exists' }] } },
        ]),
    ),
    ...each(
      'scheduling: node selector terms',
      'etcdCronJob',
      'outside',
      [[]],
      set(`${ETCD_P}.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms`),
    ),
    ...each(
      'scheduling: node field selector',
      'etcdCronJob',
      'inside',
      [
        { key: 'metadata.name', operator: 'In', values: ['cp-1'] },
        { key: 'metadata.name', operator: 'NotIn', values: ['a.b'] },
      ],
      fields,
    ),
    ...each(
      'scheduling: node field selector',
      'etcdCronJob',
      'outside',
      [
        { key: 'metadata.name', operator: 'In', values: ['a', 'b'] },
        { key: 'metadata.name', operator: 'In', values: [] },
        { key: 'metadata.name', operator: 'Exists' },
        { key: 'metadata.uid', operator: 'In', values: ['a'] },
        { key: 'metadata.name', operator: 'In', values: ['A'] },
      ],
      fields,
    ),
    ...each(
      'scheduling: node field selector values (fuzz node names)',
      'etcdCronJob',
      'either',
      FUZZ.nodeNames,
      (n: string) => fields({ key: 'metadata.name', operator: 'In', values: [n] }),
    ),
  ];
}

function batch(): Sample[] {
  const jobSpec = 'spec.jobTemplate.spec';
  const nonNegative = (path: string) => pair(`batch: ${path.split('.').pop()} ≥ 0`, 'cronJob', 0, -1, set(path));
  return [
    ...each('batch: cron schedules (fuzz)', 'cronJob', 'either', FUZZ.schedules, set('spec.schedule')),
    ...each(
      'batch: cron schedules',
      'cronJob',
      'inside',
      ['0 0 * * 0', '59 23 31 12 6', '@yearly', '@midnight', '*/1 * * * *', '0 0 * * SUN', '0 0 1 * *'],
      set('spec.schedule'),
    ),
    ...each(
      'batch: cron schedules',
      'cronJob',
      'outside',
      ['', '60 * * * *', '* 24 * * *', '* * 0 * *', '* * * 13 *', '* * * * * *', 'TZ=UTC 0 0 * * *'],
      set('spec.schedule'),
    ),
    ...each('batch: timeZone (fuzz)', 'cronJob', 'either', FUZZ.timeZones, set('spec.timeZone')),
    ...each(
      'batch: timeZone',
      'cronJob',
      'inside',
      ['Etc/GMT-14', 'America/Argentina/Buenos_Aires', 'Europe/London'],
      set('spec.timeZone'),
    ),
    ...each(
      'batch: timeZone',
      'cronJob',
      'outside',
      ['', 'local', 'Europe/Nowhere', 'Europe/berlin', 'A/.', '-x', 'abcdefghijklmno/x'],
      set('spec.timeZone'),
    ),
    ...nonNegative('spec.startingDeadlineSeconds'),
    ...nonNegative('spec.successfulJobsHistoryLimit'),
    ...nonNegative('spec.failedJobsHistoryLimit'),
    ...nonNegative(`${jobSpec}.backoffLimit`),
    ...nonNegative(`${jobSpec}.ttlSecondsAfterFinished`),
    ...nonNegative(`${jobSpec}.parallelism`),
    ...nonNegative(`${jobSpec}.completions`),
    ...each(
      'batch: job activeDeadlineSeconds',
      'cronJob',
      'either',
      [1, 0, -1],
      set(`${jobSpec}.activeDeadlineSeconds`),
    ),
    ...pair('batch: restartPolicy OnFailure or Never', 'cronJob', 'OnFailure', 'Always', set(`${P}.restartPolicy`)),
    ...each(
      'batch: restartPolicy OnFailure or Never',
      'job',
      'outside',
      ['Always', ''],
      set(`${POD.job}.restartPolicy`),
    ),
    ...each(
      'batch: jobTemplate selector generated',
      'cronJob',
      'outside',
      [{ matchLabels: { a: 'b' } }],
      set(`${jobSpec}.selector`),
    ),
    ...pair('batch: jobTemplate manualSelector', 'cronJob', false, true, set(`${jobSpec}.manualSelector`)),
    ...each('batch: concurrencyPolicy', 'cronJob', 'inside', ['Allow', 'Replace'], set('spec.concurrencyPolicy')),
    ...each('batch: concurrencyPolicy', 'cronJob', 'outside', ['Bogus', 'forbid'], set('spec.concurrencyPolicy')),
    ...each('pod: imagePullPolicy', 'cronJob', 'inside', ['Always', 'Never'], set(`${MAIN}.imagePullPolicy`)),
    ...each('pod: imagePullPolicy', 'cronJob', 'outside', ['Sometimes', 'always'], set(`${INIT}.imagePullPolicy`)),
  ];
}

function configMap(): Sample[] {
  const data = (key: string) => (e: Editor) => e.set('data', { [key]: 'x' });
  const size = (n: number) => (e: Editor) => e.set('data', { a: 'x'.repeat(n - 2), b: 'yy' });
  return [
    ...each('configmap: data keys (fuzz secret keys)', 'configMap', 'either', FUZZ.secretKeys, data),
    ...each('configmap: data keys', 'configMap', 'inside', ['a', '.a', '_', repeat('k', 253), 'a..b'], data),
    ...each('configmap: data keys', 'configMap', 'outside', ['.', '..', '..a', 'a/b', 'a b', repeat('k', 254)], data),
    ...pair('configmap: data ≤ 1 MiB', 'configMap', CONFIGMAP_LIMIT, CONFIGMAP_LIMIT + 1, size),
    ...pair(
      'configmap: data and binaryData ≤ 1 MiB',
      'configMap',
      CONFIGMAP_LIMIT - 3,
      CONFIGMAP_LIMIT - 2,
      (n: number) => (e: Editor) => {
        e.set('data', { a: 'x'.repeat(n) });
        e.set('binaryData', { b: Buffer.from('abc').toString('base64') });
      },
    ),
    ...each('configmap: a key in data and binaryData', 'configMap', 'outside', ['a'], (k: string) => (e: Editor) => {
      e.set('data', { [k]: 'x' });
      e.set('binaryData', { [k]: 'eA==' });
    }),
    ...each(
      'configmap: binaryData keys',
      'configMap',
      'outside',
      ['..', 'a b'],
      (k: string) => (e: Editor) => e.set('binaryData', { [k]: 'eA==' }),
    ),
  ];
}

function storage(): Sample[] {
  const spec = `${EPHEMERAL}.spec`;
  return [
    ...each(
      'storage: accessModes',
      'cronJob',
      'inside',
      [['ReadWriteOncePod'], ['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany']],
      set(`${spec}.accessModes`),
    ),
    ...each(
      'storage: accessModes',
      'cronJob',
      'outside',
      [[], ['ReadWriteOncePod', 'ReadWriteOnce'], ['Bogus']],
      set(`${spec}.accessModes`),
    ),
    ...pair('storage: storage request > 0', 'cronJob', '1', '0', set(`${spec}.resources.requests.storage`)),
    ...each('storage: storage request', 'cronJob', 'outside', ['-1Gi', 'x'], set(`${spec}.resources.requests.storage`)),
    ...each('storage: storage request required', 'cronJob', 'outside', [{}], set(`${spec}.resources.requests`)),
    ...each(
      'storage: storageClassName (fuzz subdomains)',
      'cronJob',
      'either',
      [...FUZZ.subdomains, '', 'A'],
      set(`${spec}.storageClassName`),
    ),
    ...pair('storage: volumeMode', 'cronJob', 'Block', 'Bogus', set(`${spec}.volumeMode`)),
    ...each(
      'storage: claim template metadata holds labels and annotations',
      'cronJob',
      'outside',
      ['name', 'namespace'],
      (f: string) => set(`${EPHEMERAL}.metadata.${f}`)('x'),
    ),
    ...each(
      'storage: claim template labels (fuzz keys)',
      'cronJob',
      'either',
      FUZZ.labelKeys.slice(6, 14),
      setKey(`${EPHEMERAL}.metadata.labels`, 'v'),
    ),
    ...each(
      'storage: claim selector',
      'cronJob',
      'either',
      [{ matchLabels: { a: 'b' } }, { matchLabels: { 'a b': 'c' } }],
      set(`${spec}.selector`),
    ),
    ...each('storage: volumeClaimTemplate required', 'cronJob', 'outside', [{}], set(`${P}.volumes.3.ephemeral`)),
  ];
}

function rbac(): Sample[] {
  const rule = (r: Record<string, unknown>) => (e: Editor) => e.set('rules', [r]);
  const subject = (s: Record<string, unknown>) => (e: Editor) => e.set('subjects', [s]);
  return [
    ...each(
      'rbac: role rules',
      'role',
      'inside',
      [
        { apiGroups: [''], resources: ['pods'], verbs: ['get'] },
        { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
      ],
      rule,
    ),
    ...each(
      'rbac: role rules',
      'role',
      'outside',
      [
        { apiGroups: [''], resources: ['pods'], verbs: [] },
        { apiGroups: [''], resources: ['pods'] },
        { nonResourceURLs: ['/healthz'], verbs: ['get'] },
        { apiGroups: [], resources: ['pods'], verbs: ['get'] },
        { apiGroups: [''], resources: [], verbs: ['get'] },
      ],
      rule,
    ),
    ...each(
      'rbac: roleRef',
      'roleBinding',
      'inside',
      [
        { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
        { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'A_b:c' },
      ],
      set('roleRef'),
    ),
    ...each(
      'rbac: roleRef',
      'roleBinding',
      'outside',
      [
        { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: '' },
        { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'a/b' },
        { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'a%b' },
        { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: '..' },
        { apiGroup: 'example.com', kind: 'Role', name: 'r' },
        { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'r' },
      ],
      set('roleRef'),
    ),
    ...each(
      'rbac: subjects',
      'roleBinding',
      'inside',
      [
        { kind: 'ServiceAccount', name: 'a.b', namespace: 'x' },
        { kind: 'User', name: 'Any Name', apiGroup: 'rbac.authorization.k8s.io' },
        { kind: 'Group', name: 'system:masters', apiGroup: 'rbac.authorization.k8s.io' },
      ],
      subject,
    ),
    ...each(
      'rbac: subjects',
      'roleBinding',
      'outside',
      [
        { kind: 'ServiceAccount', name: 'A', namespace: 'x' },
        { kind: 'ServiceAccount', name: '', namespace: 'x' },
        { kind: 'ServiceAccount', name: 'a', namespace: 'x', apiGroup: 'rbac.authorization.k8s.io' },
        { kind: 'User', name: 'u', apiGroup: 'example.com' },
        { kind: 'Robot', name: 'r' },
      ],
      subject,
    ),
    ...each(
      'rbac: ServiceAccount subject names (fuzz subdomains)',
      'roleBinding',
      'either',
      FUZZ.subdomains,
      (n: string) => subject({ kind: 'ServiceAccount', name: n, namespace: 'x' }),
    ),
  ];
}

function prometheus(): Sample[] {
  const group = (g: Record<string, unknown>) => (e: Editor) => e.set('spec.groups', [g]);
  const rule = (r: Record<string, unknown>) => group({ name: 'g', rules: [r] });
  return [
    ...each(
      'prometheus: rules',
      'prometheusRule',
      'inside',
      [
        { alert: 'A', expr: 'up == 0', labels: { severity: 'x' }, annotations: { summary: 's' } },
        { record: 'job:up:sum', expr: 'sum(up)', labels: { _a: 'ü' } },
      ],
      rule,
    ),
    ...each(
      'prometheus: rules (Prometheus loads them; the API server has the CRD schema)',
      'prometheusRule',
      'either',
      [
        { alert: 'A', record: 'r', expr: 'up' },
        { expr: 'up' },
        { alert: 'A', expr: '' },
        { record: 'r', expr: 'up', annotations: { a: 'b' } },
        { record: 'a-b', expr: 'up' },
        { alert: 'A', expr: 'up', labels: { 'a-b': 'c' } },
        { alert: 'A', expr: 'up', labels: { __name__: 'c' } },
        { alert: 'A', expr: 'up', annotations: { 'a.b': 'c' } },
        { alert: 'A', expr: 'up', labels: { a: '\ud800' } },
      ],
      rule,
    ),
    ...each('prometheus: group names', 'prometheusRule', 'either', [''], (n: string) =>
      group({ name: n, rules: [{ alert: 'A', expr: 'up' }] }),
    ),
    ...each(
      'prometheus: group names unique',
      'prometheusRule',
      'either',
      ['g'],
      (n: string) => (e: Editor) =>
        e.set('spec.groups', [
          { name: n, rules: [] },
          { name: n, rules: [] },
        ]),
    ),
  ];
}

function openshift(): Sample[] {
  return [
    ...each('openshift: SCC priority ≥ 0', 'scc', 'either', [0, -1], set('priority')),
    ...each(
      'openshift: SCC required fields',
      'scc',
      'either',
      ['allowHostPID', 'volumes', 'priority', 'readOnlyRootFilesystem'],
      (f: string) => (e: Editor) => e.delete(f),
    ),
    ...each(
      'openshift: SCC strategy types',
      'scc',
      'either',
      [
        { type: 'Bogus' },
        { type: 'MustRunAs' },
        { type: 'MustRunAs', uid: -1 },
        { type: 'MustRunAsRange', uidRangeMin: 1, uidRangeMax: 2 },
      ],
      set('runAsUser'),
    ),
    ...each(
      'openshift: SCC group ranges',
      'scc',
      'either',
      [
        { type: 'MustRunAs', ranges: [{ min: 2, max: 1 }] },
        { type: 'MustRunAs', ranges: [{ min: -1, max: 1 }] },
        { type: 'Bogus' },
      ],
      set('fsGroup'),
    ),
    ...each('openshift: SCC volumes', 'scc', 'either', [['none', 'secret'], ['none']], set('volumes')),
    ...each(
      'openshift: SCC capabilities',
      'scc',
      'either',
      [
        { allowedCapabilities: ['NET_ADMIN'], requiredDropCapabilities: ['NET_ADMIN'] },
        { allowedCapabilities: ['*'], requiredDropCapabilities: ['KILL'] },
      ],
      (v: object) => (e: Editor) => Object.entries(v).forEach(([k, x]) => e.set(k, x)),
    ),
    ...each(
      'openshift: SCC privilege escalation',
      'scc',
      'either',
      [[true, false]],
      ([d, a]: boolean[]) =>
        (e: Editor) => {
          e.set('defaultAllowPrivilegeEscalation', d);
          e.set('allowPrivilegeEscalation', a);
        },
    ),
    ...each(
      'openshift: SCC field types',
      'scc',
      'outside',
      [
        ['priority', 'high'],
        ['allowHostPID', 'yes'],
        ['volumes', 'secret'],
        ['bogusField', true],
      ],
      ([f, v]: unknown[]) => set(f as string)(v),
    ),
    ...each(
      'openshift: SCC is cluster-scoped (the API server drops a namespace)',
      'scc',
      'inside',
      ['x'],
      set('metadata.namespace'),
    ),
  ];
}

function metadata(): Sample[] {
  return [
    ...each(
      'object: metadata labels of every kind (fuzz keys)',
      'role',
      'either',
      FUZZ.labelKeys.slice(6, 16),
      setKey('metadata.labels', 'v'),
    ),
    ...each(
      'object: metadata labels of every kind (fuzz keys)',
      'scc',
      'either',
      FUZZ.labelKeys.slice(6, 16),
      setKey('metadata.labels', 'v'),
    ),
    ...each(
      'object: metadata annotations of every kind (fuzz keys)',
      'prometheusRule',
      'either',
      FUZZ.labelKeys.slice(12, 20),
      setKey('metadata.annotations', 'v'),
    ),
    ...each(
      'object: metadata of a ServiceAccount',
      'serviceAccount',
      'either',
      FUZZ.labelValues.slice(6, 12),
      (v: string) => setKey('metadata.labels', v)('k'),
    ),
  ];
}

/** Every sample, in rule order. */
export function samples(): Sample[] {
  return [
    ...names(),
    ...labels(),
    ...resources(),
    ...env(),
    ...pod(),
    ...scheduling(),
    ...batch(),
    ...configMap(),
    ...storage(),
    ...rbac(),
    ...prometheus(),
    ...openshift(),
    ...metadata(),
  ];
}
