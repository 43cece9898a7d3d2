// Quantities compared exactly, and container resource requirements (api-rules/quantity.ts).
import { validateManifest } from '..';
import { AcceptedCase, POD, RuleCase, expectApiRule, mutate, validCronJob } from '../fixtures';
import { isQuantity, quantityNanos } from './quantity';

const RES = `${POD}.containers[0].resources`;
const withResources = (resources: unknown) => mutate(validCronJob(), RES, resources);

describe('quantityNanos: the exact value in units of 1e-9, as ParseQuantity reads it', () => {
  test.each<[unknown, bigint]>([
    ['1', 1_000_000_000n],
    ['500m', 500_000_000n],
    ['1.5', 1_500_000_000n],
    ['.5', 500_000_000n],
    ['1.', 1_000_000_000n],
    ['+2', 2_000_000_000n],
    ['-3k', -3_000_000_000_000n],
    ['1Ki', 1024n * 1_000_000_000n],
    ['1Gi', 2n ** 30n * 1_000_000_000n],
    ['1e3', 1000n * 1_000_000_000n],
    ['1E-3', 1_000_000n],
    ['2u', 2000n],
    ['7n', 7n],
    ['0.1n', 1n], // finer than nano: rounded up
    ['-0.1n', -1n], // away from zero
    [2147483648, 2147483648n * 1_000_000_000n],
    [0.25, 250_000_000n],
    [1e21, 10n ** 30n],
  ])('%j', (q, nanos) => {
    expect(quantityNanos(q)).toBe(nanos);
  });

  test.each(['', '.', 'Ki', '1.2.3', '64 MB', '1KB', '1ki', '--1', '1e', 'one'])('%j is not a quantity', (q) => {
    expect(isQuantity(q)).toBe(false);
    expect(quantityNanos(q)).toBeUndefined();
  });
});

test.each<RuleCase>([
  [
    'request above limit',
    () => withResources({ requests: { memory: '2Gi' }, limits: { memory: '1Gi' } }),
    `${RES}.requests.memory`,
    'must be less than or equal to memory limit of 1Gi',
    'got 2Gi',
  ],
  [
    'request 1 cpu above limit 500m',
    () => withResources({ requests: { cpu: '1' }, limits: { cpu: '500m' } }),
    `${RES}.requests.cpu`,
    'cpu limit of 500m',
  ],
  // 2^53 + 1 and 2^53 are the same JavaScript number: only an exact comparison sees the difference
  [
    'request above limit by one unit beyond float precision',
    () => withResources({ requests: { memory: '9007199254740993' }, limits: { memory: '9007199254740992' } }),
    `${RES}.requests.memory`,
    'must be less than or equal to',
  ],
  [
    'request above limit given as a number',
    () => withResources({ requests: { cpu: 2 }, limits: { cpu: '1999m' } }),
    `${RES}.requests.cpu`,
    'must be less than or equal to',
  ],
  [
    'negative limit',
    () => withResources({ limits: { memory: '-1Mi' } }),
    `${RES}.limits.memory`,
    'must be greater than or equal to 0',
  ],
  [
    'unknown unprefixed resource',
    () => withResources({ requests: { gpu: '1' } }),
    `${RES}.requests.gpu`,
    'bad resource name "gpu"',
    'standard resource',
  ],
  [
    'resource name not a qualified name',
    () => withResources({ limits: { 'example.com/a b': '1' } }),
    `${RES}.limits["example.com/a b"]`,
    'bad resource name',
  ],
  [
    'hugepages request without limit',
    () => withResources({ requests: { memory: '1Gi', 'hugepages-2Mi': '4Mi' }, limits: { memory: '1Gi' } }),
    `${RES}.limits.hugepages-2Mi`,
    'a limit must be set for hugepages-2Mi',
  ],
  [
    'hugepages request below limit',
    () =>
      withResources({
        requests: { memory: '1Gi', 'hugepages-2Mi': '2Mi' },
        limits: { memory: '1Gi', 'hugepages-2Mi': '4Mi' },
      }),
    `${RES}.requests.hugepages-2Mi`,
    'must be equal to hugepages-2Mi limit of 4Mi',
  ],
  [
    'hugepages without cpu or memory',
    () => withResources({ requests: { 'hugepages-2Mi': '4Mi' }, limits: { 'hugepages-2Mi': '4Mi' } }),
    RES,
    'HugePages require cpu or memory',
  ],
  [
    'extended resource request without limit',
    () => withResources({ requests: { 'example.com/dongle': '1' } }),
    `${RES}.limits["example.com/dongle"]`,
    'a limit must be set',
  ],
  [
    'extended resource request unequal to limit',
    () => withResources({ requests: { 'example.com/dongle': '1' }, limits: { 'example.com/dongle': '2' } }),
    `${RES}.requests["example.com/dongle"]`,
    'must be equal to',
  ],
  [
    'fractional extended resource',
    () => withResources({ requests: { 'example.com/dongle': '500m' }, limits: { 'example.com/dongle': '500m' } }),
    `${RES}.requests["example.com/dongle"]`,
    'must be an integer',
  ],
  [
    'init container request above limit',
    () =>
      mutate(validCronJob(), `${POD}.initContainers[0].resources`, {
        requests: { memory: '64Mi' },
        limits: { memory: '32Mi' },
      }),
    `${POD}.initContainers[0].resources.requests.memory`,
    'must be less than or equal to',
  ],
])('%s', (_rule, bad, path, ...fragments) => {
  expectApiRule(bad(), path, ...fragments);
});

test.each<AcceptedCase>([
  [
    'a request equal to the limit written differently (1 and 1000m)',
    () => withResources({ requests: { cpu: '1' }, limits: { cpu: '1000m' } }),
  ],
  [
    '1Gi and 1073741824 (the same amount)',
    () => withResources({ requests: { memory: '1073741824' }, limits: { memory: '1Gi' } }),
  ],
  ['a request without a limit', () => withResources({ requests: { cpu: '100m', 'ephemeral-storage': '1Gi' } })],
  ['a limit without a request', () => withResources({ limits: { memory: '1Gi' } })],
  [
    'equal hugepages with memory',
    () =>
      withResources({
        requests: { memory: '1Gi', 'hugepages-2Mi': '4Mi' },
        limits: { memory: '1Gi', 'hugepages-2Mi': '4Mi' },
      }),
  ],
  [
    'an equal integer extended resource',
    () => withResources({ requests: { 'example.com/dongle': '2' }, limits: { 'example.com/dongle': 2 } }),
  ],
])('accepts %s', (_what, good) => {
  expect(validateManifest(good())).toEqual([]);
});
