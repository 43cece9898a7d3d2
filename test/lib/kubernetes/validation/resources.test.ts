import {
  containerResourceNameProblem,
  parseQuantity,
  requestLimitProblem,
} from '../../../../lib/kubernetes/validation';
import { resourceRequirementsProblems } from '../../../support/kubernetes-validation';
import type { Quantity } from '../../../../lib/kubernetes/validation';

const q = (text: string): Quantity => {
  const result = parseQuantity(text);
  if ('problem' in result) throw new Error(result.problem);
  return result.quantity;
};

describe('requests against limits', () => {
  test('a request over its limit names the limit as the API server prints it', () => {
    expect(resourceRequirementsProblems({ requests: { memory: '2Gi' }, limits: { memory: '1024Mi' } })).toEqual([
      { path: 'requests[memory]', message: 'received "2Gi"; must be less than or equal to memory limit of 1Gi' },
    ]);
  });

  test('equal and smaller requests pass, compared exactly', () => {
    expect(
      resourceRequirementsProblems({
        requests: { cpu: '1000m', memory: '1Gi' },
        limits: { cpu: '1', memory: '1073741824' },
      }),
    ).toEqual([]);
    expect(resourceRequirementsProblems({ requests: { cpu: '999999999n' }, limits: { cpu: '1' } })).toEqual([]);
    expect(requestLimitProblem('cpu', q('1000000001n'), q('1'))).toBe(
      'received "1000000001n"; must be less than or equal to cpu limit of 1',
    );
  });

  test('a request without a limit is fine for cpu, memory and ephemeral-storage', () => {
    expect(
      resourceRequirementsProblems({ requests: { cpu: '100m', memory: '128Mi', 'ephemeral-storage': '1Gi' } }),
    ).toEqual([]);
  });

  test('extended resources: integer, limit required, request equal to the limit', () => {
    expect(
      resourceRequirementsProblems({ requests: { 'example.com/gpu': '1' }, limits: { 'example.com/gpu': '2' } }),
    ).toEqual([
      { path: 'requests[example.com/gpu]', message: 'received "1"; must be equal to example.com/gpu limit of 2' },
    ]);
    expect(resourceRequirementsProblems({ requests: { 'example.com/gpu': '1' } })).toEqual([
      {
        path: 'limits',
        message: 'Limit must be set for non overcommitable resources: example.com/gpu is requested but has no limit',
      },
    ]);
    expect(resourceRequirementsProblems({ limits: { 'example.com/gpu': '500m' } })).toEqual([
      { path: 'limits[example.com/gpu]', message: 'received "500m"; must be an integer' },
    ]);
  });

  test('hugepages: a multiple of the page size, next to cpu or memory', () => {
    expect(
      resourceRequirementsProblems({
        limits: { 'hugepages-2Mi': '4Mi', memory: '1Gi' },
        requests: { 'hugepages-2Mi': '4Mi' },
      }),
    ).toEqual([]);
    expect(resourceRequirementsProblems({ limits: { 'hugepages-2Mi': '3Mi', memory: '1Gi' } })).toEqual([
      {
        path: 'limits[hugepages-2Mi]',
        message: 'received "3Mi"; 3Mi is not positive integer multiple of hugepages-2Mi',
      },
    ]);
    expect(resourceRequirementsProblems({ limits: { 'hugepages-2Mi': '4Mi' } })).toEqual([
      { path: '', message: 'HugePages require cpu or memory' },
    ]);
  });

  test('negative and malformed quantities', () => {
    expect(resourceRequirementsProblems({ limits: { cpu: '-1' } })).toEqual([
      { path: 'limits[cpu]', message: 'received "-1"; must be greater than or equal to 0' },
    ]);
    expect(resourceRequirementsProblems({ requests: { memory: '1 Gi' } })[0]).toEqual({
      path: 'requests[memory]',
      message: expect.stringContaining('received "1 Gi"; quantities must match the regular expression') as unknown,
    });
  });
});

describe('container resource names', () => {
  test.each([
    ['cpu', undefined],
    ['memory', undefined],
    ['ephemeral-storage', undefined],
    ['hugepages-1Gi', undefined],
    ['example.com/gpu', undefined],
    ['kubernetes.io/anything', undefined],
    ['pods', ['must be a standard resource for containers']],
    ['storage', ['must be a standard resource for containers']],
    ['gpu', ['must be a standard resource type or fully qualified', 'must be a standard resource for containers']],
    ['requests.example.com/gpu', ["doesn't follow extended resource name standard"]],
    ['CPU Cores', ['name part must consist of', 'must be a standard resource for containers']],
  ])('%s', (name, details) => {
    const problem = containerResourceNameProblem(name);
    if (details === undefined) expect(problem).toBeUndefined();
    else details.forEach((d) => expect(problem).toContain(d));
  });
});
