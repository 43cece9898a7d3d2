// The operator's naming and key-range rules, against the vectors the reference quotes (vitess.md §4.4)
// and vitess-operator's own unit tests (pkg/apis/planetscale/v2/{vitesskeyspace_methods,keyrange}_test.go).
import {
  backupScheduleName,
  compareKeyRanges,
  equalKeyRanges,
  globalEtcdName,
  joinWithConstraints,
  SERVICE_NAME_MAX,
} from '../../../lib/convert/vitess-names';

test.each([
  ['commerce', 'example-vbsc-commerce-ca641fc1'],
  ['customer', 'example-vbsc-customer-05e172de'],
  ['every-minute', 'example-vbsc-every-minute-94d12263'],
  ['cluster-every-minute', 'example-vbsc-cluster-every-minute-ea63062d'],
  ['frequent-customer', 'example-vbsc-frequent-customer-2233c748'],
])('ScheduleName(example, %s) = %s (§4.4)', (schedule, expected) => {
  expect(backupScheduleName('example', schedule)).toBe(expected);
});

test.each([
  [
    ['example-vbsc-customer-05e172de', 'customer', '80-x', '1740521040'],
    'example-vbsc-customer-05e172de-customer-80-x-1740521---04a9dd74',
  ],
  [
    ['example-vbsc-every-five-minute-d19101ff', 'commerce', 'x-x', '1741282260'],
    'example-vbsc-every-five-minute-d19101ff-commerce-x-x---3a7345c4',
  ],
  [['Daily_Sched', 'commerce', 'x-x', '1700000000'], 'daily-sched-commerce-x-x-1700000000-cd2e87fe'],
  [['1abc', 'commerce', 'x-x', '1700000000'], 'x1abc-commerce-x-x-1700000000-dd154c59'],
])('JobName with Service constraints: truncation, lowercasing and the first letter (§4.4)', (parts, expected) => {
  expect(joinWithConstraints(SERVICE_NAME_MAX, true, parts)).toBe(expected);
});

test('the managed global etcd of cluster example (§4.4)', () => {
  expect(globalEtcdName('example')).toBe('example-etcd-faf13de3');
});

test.each([
  [1, 0, ['-']],
  [3, 0, ['-55', '55-aa', 'aa-']],
  [6, 0, ['-2a', '2a-55', '55-80', '80-aa', 'aa-d5', 'd5-']],
  [8, 0, ['-20', '20-40', '40-60', '60-80', '80-a0', 'a0-c0', 'c0-e0', 'e0-']],
  [7, 4, ['-2492', '2492-4924', '4924-6db6', '6db6-9249', '9249-b6db', 'b6db-db6d', 'db6d-']],
  [2, 4, ['-8000', '8000-']],
])(
  'equal partitioning of %i parts, hexWidth %i (TestTranslationToVitessKeyRange; 2 × 4: the 401 manifest, §4.3)',
  (parts, hexWidth, expected) => {
    expect(equalKeyRanges(parts, hexWidth)).toEqual(expected);
  },
);

test('key ranges sort like SortKeyRanges: by start, an unbounded end last (TestSortKeyRanges)', () => {
  const input = ['4040-4050', 'a0-', '80-a0', '80-', '-80', '80-90', '70-80', '-', '07-80'];
  expect([...input].sort(compareKeyRanges)).toEqual([
    '-80',
    '-',
    '07-80',
    '4040-4050',
    '70-80',
    '80-90',
    '80-a0',
    '80-',
    'a0-',
  ]);
});
