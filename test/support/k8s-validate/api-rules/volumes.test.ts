// Pod volumes (api-rules/volumes.ts).
import { validateManifest } from '..';
import type { V1Volume } from '@kubernetes/client-node';
import { AcceptedCase, POD, RuleCase, expectApiRule, mutate, validCronJob } from '../fixtures';
import { podSpecOf } from '../../kube';

const VOLUMES = `${POD}.volumes`;
const SCRATCH = `${VOLUMES}[0].ephemeral.volumeClaimTemplate`;
const SECRET_ITEM = `${VOLUMES}[1].secret.items[0]`;
const CONFIGMAP_ITEM = `${VOLUMES}[4].configMap.items[0]`;
const PROJECTED = `${VOLUMES}[5].projected.sources`;
const withVolume = (volume: V1Volume) => {
  const o = validCronJob();
  const volumes = podSpecOf(o).volumes;
  if (!volumes) throw new Error('validCronJob has no volumes');
  volumes.push(volume);
  return o;
};

test.each<RuleCase>([
  [
    'duplicate volume name',
    () => withVolume({ name: 'tmp', emptyDir: {} }),
    `${VOLUMES}[6].name`,
    'duplicate volume name "tmp"',
  ],
  [
    'volume name not a DNS-1123 label',
    () => mutate(validCronJob(), `${VOLUMES}[2].name`, 'Tmp'),
    `${VOLUMES}[2].name`,
    'bad name "Tmp"',
  ],
  [
    'two volume types',
    () => mutate(validCronJob(), `${VOLUMES}[2].secret`, { secretName: 'x' }),
    `${VOLUMES}[2]`,
    'may not specify more than 1 volume type',
  ],
  ['no volume type', () => withVolume({ name: 'nothing' }), `${VOLUMES}[6]`, 'must specify a volume type'],
  [
    'defaultMode above 0777',
    () => mutate(validCronJob(), `${VOLUMES}[1].secret.defaultMode`, 644),
    `${VOLUMES}[1].secret.defaultMode`,
    'between 0 and 0777',
  ],
  [
    'item mode negative',
    () => mutate(validCronJob(), `${SECRET_ITEM}.mode`, -1),
    `${SECRET_ITEM}.mode`,
    'between 0 and 0777',
  ],
  [
    'item path with ".."',
    () => mutate(validCronJob(), `${SECRET_ITEM}.path`, '../x'),
    `${SECRET_ITEM}.path`,
    'must not contain ".."',
  ],
  [
    'item path absolute',
    () => mutate(validCronJob(), `${SECRET_ITEM}.path`, '/etc/x'),
    `${SECRET_ITEM}.path`,
    'must be a relative path',
  ],
  [
    'item path starting with ".."',
    () => mutate(validCronJob(), `${CONFIGMAP_ITEM}.path`, '..data'),
    `${CONFIGMAP_ITEM}.path`,
    'must not start with ".."',
  ],
  [
    'item without path',
    () => mutate(validCronJob(), `${CONFIGMAP_ITEM}.path`, ''),
    `${CONFIGMAP_ITEM}.path`,
    'missing required field',
  ],
  [
    'secret item key ".."',
    () => mutate(validCronJob(), `${SECRET_ITEM}.key`, '..'),
    `${SECRET_ITEM}.key`,
    'bad key ".."',
    'must not be ".."',
  ],
  [
    'configMap item key "."',
    () => mutate(validCronJob(), `${CONFIGMAP_ITEM}.key`, '.'),
    `${CONFIGMAP_ITEM}.key`,
    'must not be "."',
  ],
  [
    'configMap item key starting with ".."',
    () => mutate(validCronJob(), `${CONFIGMAP_ITEM}.key`, '..2024'),
    `${CONFIGMAP_ITEM}.key`,
    'must not start with ".."',
  ],
  [
    'item key with "/"',
    () => mutate(validCronJob(), `${SECRET_ITEM}.key`, 'aws/id'),
    `${SECRET_ITEM}.key`,
    'must consist of alphanumerics',
  ],
  [
    'item without key',
    () => mutate(validCronJob(), `${SECRET_ITEM}.key`, ''),
    `${SECRET_ITEM}.key`,
    'missing required field',
  ],
  [
    'projected secret item key',
    () => mutate(validCronJob(), `${PROJECTED}[0].secret.items[0].key`, 'a b'),
    `${PROJECTED}[0].secret.items[0].key`,
    'bad key "a b"',
  ],
  [
    'projected configMap item path',
    () => mutate(validCronJob(), `${PROJECTED}[1].configMap.items[0].path`, 'a/../../b'),
    `${PROJECTED}[1].configMap.items[0].path`,
    'must not contain ".."',
  ],
  [
    'projected duplicate paths',
    () => mutate(validCronJob(), `${PROJECTED}[1].configMap.items[0].path`, 'keys/id'),
    `${PROJECTED}[1].configMap.items[0].path`,
    'conflicting duplicate path "keys/id"',
  ],
  [
    'hostPath path with ".."',
    () => mutate(validCronJob(), `${VOLUMES}[3].hostPath.path`, '/etc/ssl/../../root'),
    `${VOLUMES}[3].hostPath.path`,
    'must not contain ".."',
  ],
  [
    'hostPath without path',
    () => mutate(validCronJob(), `${VOLUMES}[3].hostPath.path`, ''),
    `${VOLUMES}[3].hostPath.path`,
    'missing required field',
  ],
  [
    'negative emptyDir sizeLimit',
    () => mutate(validCronJob(), `${VOLUMES}[2].emptyDir.sizeLimit`, '-1Mi'),
    `${VOLUMES}[2].emptyDir.sizeLimit`,
    'must be greater than or equal to 0',
  ],
  [
    'ephemeral: no access mode',
    () => mutate(validCronJob(), `${SCRATCH}.spec.accessModes`, undefined),
    `${SCRATCH}.spec.accessModes`,
    'missing required field',
  ],
  [
    'ephemeral: ReadWriteOncePod with another mode',
    () => mutate(validCronJob(), `${SCRATCH}.spec.accessModes`, ['ReadWriteOncePod', 'ReadWriteOnce']),
    `${SCRATCH}.spec.accessModes`,
    'may not use ReadWriteOncePod with other access modes',
  ],
  [
    'ephemeral: storageClassName',
    () => mutate(validCronJob(), `${SCRATCH}.spec.storageClassName`, 'Fast_SSD'),
    `${SCRATCH}.spec.storageClassName`,
    'bad storage class name "Fast_SSD"',
  ],
  [
    'ephemeral: zero storage',
    () => mutate(validCronJob(), `${SCRATCH}.spec.resources.requests.storage`, '0'),
    `${SCRATCH}.spec.resources.requests.storage`,
    'must be greater than 0',
  ],
  [
    'ephemeral: template metadata with a name',
    () => mutate(validCronJob(), `${SCRATCH}.metadata.name`, 'scratch'),
    `${SCRATCH}.metadata.name`,
    'cannot be set for a template',
  ],
  [
    'ephemeral: template label value',
    () => mutate(validCronJob(), `${SCRATCH}.metadata.labels.x`, 'a b'),
    `${SCRATCH}.metadata.labels.x`,
    'bad label value',
  ],
])('%s', (_rule, bad, path, ...fragments) => {
  expectApiRule(bad(), path, ...fragments);
});

test.each<AcceptedCase>([
  ['an item key starting with one "."', () => mutate(validCronJob(), `${CONFIGMAP_ITEM}.key`, '.env')],
  ['an item path with a ".." inside a name', () => mutate(validCronJob(), `${CONFIGMAP_ITEM}.path`, 'a..b/c')],
  ['ReadWriteOncePod alone', () => mutate(validCronJob(), `${SCRATCH}.spec.accessModes`, ['ReadWriteOncePod'])],
  [
    'an ephemeral volume without storage class',
    () => mutate(validCronJob(), `${SCRATCH}.spec.storageClassName`, undefined),
  ],
])('accepts %s', (_what, good) => {
  expect(validateManifest(good())).toEqual([]);
});
