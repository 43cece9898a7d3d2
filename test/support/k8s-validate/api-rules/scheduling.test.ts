// Node selectors, node and pod affinity, tolerations, topology spread constraints (api-rules/scheduling.ts).
import { validateManifest } from '..';
import { AcceptedCase, POD, RuleCase, expectApiRule, mutate, validCronJob } from '../fixtures';
import { podSpecOf } from '../../kube';

const HOSTNAME = 'kubernetes.io/hostname';
const REQUIRED = `${POD}.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms`;
const PREFERRED = `${POD}.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution`;
const ANTI = `${POD}.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm`;
const SPREAD = `${POD}.topologySpreadConstraints`;
const TOLERATION = `${POD}.tolerations[0]`;
const expr = (key: string, operator: string, values?: unknown[]) => ({ key, operator, ...(values ? { values } : {}) });
const spread = (extra: Record<string, unknown>) => ({
  maxSkew: 1,
  topologyKey: 'topology.kubernetes.io/zone',
  whenUnsatisfiable: 'DoNotSchedule',
  ...extra,
});

test.each<RuleCase>([
  [
    'nodeSelector key',
    () => mutate(validCronJob(), `${POD}.nodeSelector`, { 'bad key': 'x' }),
    `${POD}.nodeSelector["bad key"]`,
    'bad label key',
  ],
  [
    'nodeSelector value',
    () => mutate(validCronJob(), `${POD}.nodeSelector`, { zone: 'a b' }),
    `${POD}.nodeSelector.zone`,
    'bad label value "a b"',
  ],
  [
    'nodeSelector hostname over 63 characters',
    () => mutate(validCronJob(), `${POD}.nodeSelector`, { [HOSTNAME]: `${'a'.repeat(40)}.${'b'.repeat(30)}` }),
    `${POD}.nodeSelector["${HOSTNAME}"]`,
    'bad label value',
    'no more than 63',
  ],
  [
    'nodeSelector hostname in upper case',
    () => mutate(validCronJob(), `${POD}.nodeSelector`, { [HOSTNAME]: 'CP-1' }),
    `${POD}.nodeSelector["${HOSTNAME}"]`,
    'must be lower case',
  ],
  [
    'required node affinity: no term',
    () => mutate(validCronJob(), REQUIRED, []),
    REQUIRED,
    'at least one node selector term',
  ],
  [
    'node requirement key',
    () => mutate(validCronJob(), `${REQUIRED}[0].matchExpressions[0].key`, 'kubernetes.io/bad key'),
    `${REQUIRED}[0].matchExpressions[0].key`,
    'bad label key',
  ],
  [
    'node requirement value',
    () => mutate(validCronJob(), `${REQUIRED}[0].matchExpressions[0].values`, ['linux', 'a b']),
    `${REQUIRED}[0].matchExpressions[0].values[1]`,
    'bad label value "a b"',
    'never match',
  ],
  [
    'node requirement hostname in upper case',
    () => mutate(validCronJob(), `${REQUIRED}[1].matchExpressions[0].values`, ['CP-1']),
    `${REQUIRED}[1].matchExpressions[0].values[0]`,
    `bad ${HOSTNAME} value "CP-1"`,
    'lower case',
  ],
  [
    'preferred node requirement hostname in upper case',
    () => mutate(validCronJob(), `${PREFERRED}[0].preference.matchExpressions[0]`, expr(HOSTNAME, 'In', ['Cp-2'])),
    `${PREFERRED}[0].preference.matchExpressions[0].values[0]`,
    'lower case',
  ],
  [
    'node requirement In without values',
    () => mutate(validCronJob(), `${REQUIRED}[0].matchExpressions[0].values`, []),
    `${REQUIRED}[0].matchExpressions[0].values`,
    'must be non-empty when operator is In',
  ],
  [
    'node requirement Exists with values',
    () => mutate(validCronJob(), `${PREFERRED}[0].preference.matchExpressions[0].values`, ['x']),
    `${PREFERRED}[0].preference.matchExpressions[0].values`,
    'must be empty when operator is Exists',
  ],
  [
    'node requirement Gt with two values',
    () => mutate(validCronJob(), `${REQUIRED}[0].matchExpressions[0]`, expr('example.com/cores', 'Gt', ['1', '2'])),
    `${REQUIRED}[0].matchExpressions[0].values`,
    'exactly one integer value',
  ],
  [
    'preferred weight 0',
    () => mutate(validCronJob(), `${PREFERRED}[0].weight`, 0),
    `${PREFERRED}[0].weight`,
    'must be in the range 1-100',
  ],
  [
    'node field selector key',
    () => mutate(validCronJob(), `${REQUIRED}[2].matchFields[0].key`, 'metadata.labels'),
    `${REQUIRED}[2].matchFields[0].key`,
    'not in enum ["metadata.name"]',
  ],
  [
    'node field selector operator',
    () => mutate(validCronJob(), `${REQUIRED}[2].matchFields[0]`, expr('metadata.name', 'Exists')),
    `${REQUIRED}[2].matchFields[0].operator`,
    'not in enum ["In","NotIn"]',
  ],
  [
    'node field selector with two values',
    () => mutate(validCronJob(), `${REQUIRED}[2].matchFields[0].values`, ['cp-1', 'cp-2']),
    `${REQUIRED}[2].matchFields[0].values`,
    'exactly one value',
  ],
  [
    'node field selector value not a node name',
    () => mutate(validCronJob(), `${REQUIRED}[2].matchFields[0].values`, ['CP_2']),
    `${REQUIRED}[2].matchFields[0].values[0]`,
    'bad node name "CP_2"',
  ],
  [
    'pod affinity matchLabels value',
    () => mutate(validCronJob(), `${ANTI}.labelSelector.matchLabels.x`, 'a b'),
    `${ANTI}.labelSelector.matchLabels.x`,
    'bad label value',
  ],
  [
    'pod affinity matchExpressions value',
    () => mutate(validCronJob(), `${ANTI}.labelSelector.matchExpressions[0].values`, ['backup job']),
    `${ANTI}.labelSelector.matchExpressions[0].values[0]`,
    'bad label value "backup job"',
  ],
  [
    'pod affinity matchExpressions key',
    () => mutate(validCronJob(), `${ANTI}.labelSelector.matchExpressions[0].key`, 'a/b/c'),
    `${ANTI}.labelSelector.matchExpressions[0].key`,
    'bad label key',
  ],
  [
    'pod affinity operator Gt',
    () => mutate(validCronJob(), `${ANTI}.labelSelector.matchExpressions[0]`, expr('x', 'Gt', ['1'])),
    `${ANTI}.labelSelector.matchExpressions[0].operator`,
    'not in enum ["In","NotIn","Exists","DoesNotExist"]',
  ],
  [
    'pod affinity In without values',
    () => mutate(validCronJob(), `${ANTI}.labelSelector.matchExpressions[0].values`, []),
    `${ANTI}.labelSelector.matchExpressions[0].values`,
    'must be non-empty',
  ],
  [
    'pod affinity empty topologyKey',
    () => mutate(validCronJob(), `${ANTI}.topologyKey`, ''),
    `${ANTI}.topologyKey`,
    'can not be empty',
  ],
  [
    'pod affinity topologyKey',
    () => mutate(validCronJob(), `${ANTI}.topologyKey`, 'kubernetes.io/host name'),
    `${ANTI}.topologyKey`,
    'bad label key',
  ],
  [
    'pod affinity namespace',
    () => mutate(validCronJob(), `${ANTI}.namespaces`, ['Backups']),
    `${ANTI}.namespaces[0]`,
    'bad namespace name "Backups"',
  ],
  [
    'pod affinity namespaceSelector value',
    () => mutate(validCronJob(), `${ANTI}.namespaceSelector`, { matchLabels: { team: 'db ops' } }),
    `${ANTI}.namespaceSelector.matchLabels.team`,
    'bad label value',
  ],
  [
    'toleration key',
    () => mutate(validCronJob(), `${TOLERATION}.key`, 'dedicated/x/y'),
    `${TOLERATION}.key`,
    'bad label key',
  ],
  [
    'toleration value',
    () => mutate(validCronJob(), `${TOLERATION}.value`, 'back up'),
    `${TOLERATION}.value`,
    'bad label value "back up"',
  ],
  [
    'toleration value longer than 63',
    () => mutate(validCronJob(), `${TOLERATION}.value`, 'v'.repeat(64)),
    `${TOLERATION}.value`,
    'no more than 63',
  ],
  [
    'toleration Exists with a value',
    () => mutate(validCronJob(), `${POD}.tolerations[1].value`, 'x'),
    `${POD}.tolerations[1].value`,
    'must be empty when operator is "Exists"',
  ],
  [
    'toleration without key and not Exists',
    () => mutate(validCronJob(), `${TOLERATION}.key`, undefined),
    `${TOLERATION}.operator`,
    'must be "Exists" when key is empty',
  ],
  [
    'toleration effect',
    () => mutate(validCronJob(), `${TOLERATION}.effect`, 'NoScheduleEver'),
    `${TOLERATION}.effect`,
    'not in enum ["NoSchedule","PreferNoSchedule","NoExecute"]',
  ],
  [
    'tolerationSeconds without NoExecute',
    () => mutate(validCronJob(), `${TOLERATION}.tolerationSeconds`, 30),
    `${TOLERATION}.effect`,
    'must be "NoExecute"',
  ],
  [
    'spread maxSkew 0',
    () => mutate(validCronJob(), `${SPREAD}[0].maxSkew`, 0),
    `${SPREAD}[0].maxSkew`,
    'must be greater than zero',
  ],
  [
    'spread empty topologyKey',
    () => mutate(validCronJob(), `${SPREAD}[0].topologyKey`, ''),
    `${SPREAD}[0].topologyKey`,
    'can not be empty',
  ],
  [
    'spread topologyKey',
    () => mutate(validCronJob(), `${SPREAD}[0].topologyKey`, 'topology zone'),
    `${SPREAD}[0].topologyKey`,
    'bad label key',
  ],
  [
    'spread whenUnsatisfiable',
    () => mutate(validCronJob(), `${SPREAD}[0].whenUnsatisfiable`, 'Maybe'),
    `${SPREAD}[0].whenUnsatisfiable`,
    'not in enum ["DoNotSchedule","ScheduleAnyway"]',
  ],
  [
    'spread duplicate {topologyKey, whenUnsatisfiable}',
    () =>
      mutate(validCronJob(), `${SPREAD}[1]`, {
        ...podSpecOf(validCronJob()).topologySpreadConstraints?.[0],
        maxSkew: 2,
      }),
    `${SPREAD}[1]`,
    'duplicate {topologyKey, whenUnsatisfiable} pair',
  ],
  [
    'spread minDomains with ScheduleAnyway',
    () => mutate(validCronJob(), `${SPREAD}[0].minDomains`, 2),
    `${SPREAD}[0].minDomains`,
    'whenUnsatisfiable DoNotSchedule',
  ],
  [
    'spread minDomains 0',
    () => mutate(validCronJob(), `${SPREAD}[0]`, spread({ minDomains: 0 })),
    `${SPREAD}[0].minDomains`,
    'must be greater than zero',
  ],
  [
    'spread labelSelector value',
    () => mutate(validCronJob(), `${SPREAD}[0].labelSelector.matchLabels`, { app: 'a b' }),
    `${SPREAD}[0].labelSelector.matchLabels.app`,
    'bad label value',
  ],
])('%s', (_rule, bad, path, ...fragments) => {
  expectApiRule(bad(), path, ...fragments);
});

test.each<AcceptedCase>([
  [
    'a lower-case hostname in a nodeSelector',
    () => mutate(validCronJob(), `${POD}.nodeSelector`, { [HOSTNAME]: 'ip-10-0-1-23.eu-west-1.compute.internal' }),
  ],
  [
    'Gt with one integer value',
    () => mutate(validCronJob(), `${REQUIRED}[0].matchExpressions[0]`, expr('example.com/cores', 'Gt', ['4'])),
  ],
  [
    'a toleration for every taint (no key, Exists)',
    () => mutate(validCronJob(), `${POD}.tolerations`, [{ operator: 'Exists' }]),
  ],
  ['a toleration with an empty value', () => mutate(validCronJob(), `${TOLERATION}.value`, '')],
  ['minDomains with DoNotSchedule', () => mutate(validCronJob(), `${SPREAD}[0]`, spread({ minDomains: 2 }))],
  ['the same topologyKey with the other whenUnsatisfiable', () => mutate(validCronJob(), `${SPREAD}[1]`, spread({}))],
])('accepts %s', (_what, good) => {
  expect(validateManifest(good())).toEqual([]);
});
