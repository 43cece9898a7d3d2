import {
  TOTAL_ANNOTATION_SIZE_LIMIT_BYTES,
  annotationKeyProblem,
  annotationsProblems,
  annotationsSizeProblem,
  labelSelectorProblems,
  labelValueProblem,
  labelsProblems,
  nodePinProblem,
  nodeSelectorRequirementProblems,
  qualifiedNameProblem,
} from '../../../support/kubernetes-validation';
import { goMessage, utilValidationRows } from './go-oracle';

const r = (c: string, n: number) => c.repeat(n);
const paths = (problems: readonly { path: string }[]) => problems.map((p) => p.path);

describe('qualified names (label keys)', () => {
  // TestIsQualifiedName, apimachinery v0.28.8 pkg/util/validation/validation_test.go.
  test('upstream vectors', () => {
    const good = [
      'simple',
      'now-with-dashes',
      '1-starts-with-num',
      '1234',
      'simple/simple',
      'now-with-dashes/simple',
      'now-with-dashes/now-with-dashes',
      'now.with.dots/simple',
      'now-with.dashes-and.dots/simple',
      '1-num.2-num/3-num',
      '1234/5678',
      '1.2.3.4/5678',
      'Uppercase_Is_OK_123',
      'example.com/Uppercase_Is_OK_123',
      'requests.storage-foo',
      r('a', 63),
      `${r('a', 253)}/${r('b', 63)}`,
    ];
    const bad = [
      'nospecialchars%^=@',
      'cantendwithadash-',
      '-cantstartwithadash-',
      'only/one/slash',
      'Example.com/abc',
      'example_com/abc',
      'example.com/',
      '/simple',
      r('a', 64),
      `${r('a', 254)}/abc`,
    ];
    expect(good.filter((v) => qualifiedNameProblem(v) !== undefined)).toEqual([]);
    expect(bad.filter((v) => qualifiedNameProblem(v) === undefined)).toEqual([]);
  });

  test('length limits of both parts', () => {
    expect(qualifiedNameProblem(`${r('a', 253)}/${r('b', 64)}`)).toContain(
      'name part must be no more than 63 characters',
    );
    expect(qualifiedNameProblem(`${r('a', 254)}/b`)).toContain('prefix part must be no more than 253 characters');
  });

  test('messages are exactly what apimachinery v0.28.8 returns, for every recorded input', () => {
    for (const row of utilValidationRows()) {
      expect([row.input, qualifiedNameProblem(row.input)]).toEqual([
        row.input,
        goMessage(row.input, row.errors.qualified),
      ]);
      expect([row.input, annotationKeyProblem(row.input)]).toEqual([
        row.input,
        goMessage(row.input, row.errors.annotation),
      ]);
      expect([row.input, labelValueProblem(row.input)]).toEqual([row.input, goMessage(row.input, row.errors.value)]);
    }
  });
});

describe('label values', () => {
  // TestIsValidLabelValue, apimachinery v0.28.8.
  test('upstream vectors', () => {
    const good = ['simple', 'now-with-dashes', '1-starts-with-num', 'end-with-num-1', '1234', r('a', 63), ''];
    const bad = [
      'nospecialchars%^=@',
      'Tama-nui-te-rā.is.Māori.sun',
      '\\backslashes\\are\\bad',
      '-starts-with-dash',
      'ends-with-dash-',
      '.starts.with.dot',
      'ends.with.dot.',
      r('a', 64),
    ];
    expect(good.filter((v) => labelValueProblem(v) !== undefined)).toEqual([]);
    expect(bad.filter((v) => labelValueProblem(v) === undefined)).toEqual([]);
  });

  test('the limit counts bytes, as Go does', () => {
    expect(labelValueProblem(r('é', 32))).toContain('must be no more than 63 characters');
  });
});

describe('label maps', () => {
  // TestValidateLabels, apimachinery v0.28.8 pkg/apis/meta/v1/validation/validation_test.go.
  test('upstream valid maps', () => {
    for (const key of [
      'simple',
      'now-with-dashes',
      '1-starts-with-num',
      '1234',
      'simple/simple',
      'now-with-dashes/simple',
      'now-with-dashes/now-with-dashes',
      'now.with.dots/simple',
      'now-with.dashes-and.dots/simple',
      '1-num.2-num/3-num',
      '1234/5678',
      '1.2.3.4/5678',
      'UpperCaseAreOK123',
    ]) {
      expect(labelsProblems({ [key]: 'bar' })).toEqual([]);
    }
    expect(labelsProblems({ goodvalue: '123_-.BaR' })).toEqual([]);
  });

  test.each([
    [{ 'nospecialchars^=@': 'bar' }, 'name part must consist of'],
    [{ 'cantendwithadash-': 'bar' }, 'name part must consist of'],
    [{ 'only/one/slash': 'bar' }, 'a qualified name must consist of'],
    [{ [r('a', 254)]: 'bar' }, 'must be no more than'],
    [{ toolongvalue: r('a', 64) }, 'must be no more than'],
    [{ backslashesinvalue: 'some\\bad\\value' }, 'a valid label must be an empty string or consist of'],
    [{ nocommasallowed: 'bad,value' }, 'a valid label must be an empty string or consist of'],
    [{ strangecharsinvalue: '?#$notsogood' }, 'a valid label must be an empty string or consist of'],
  ])('upstream invalid map %j: one problem, at the key', (labels, detail) => {
    const problems = labelsProblems(labels);
    expect(problems).toHaveLength(1);
    expect(problems[0].path).toBe(`[${Object.keys(labels)[0]}]`);
    expect(problems[0].message).toContain(detail);
  });

  test('a key problem says it is about the key', () => {
    expect(labelsProblems({ 'Bad Key': 'v' })[0].message).toMatch(/^key received "Bad Key"; /);
  });

  test('values that are not strings, and maps that are not maps', () => {
    expect(labelsProblems({ version: 1 })).toEqual([{ path: '[version]', message: 'received 1; must be a string' }]);
    expect(labelsProblems(['a'])).toEqual([
      { path: '', message: 'received ["a"]; must be a map of strings to strings' },
    ]);
    expect(labelsProblems(undefined)).toEqual([]);
  });
});

describe('annotations', () => {
  // TestValidateAnnotations, apimachinery v0.28.8 pkg/api/validation/objectmeta_test.go.
  test('upstream valid maps, including the size limit', () => {
    for (const key of [
      'simple',
      'now-with-dashes',
      '1-starts-with-num',
      '1234',
      'simple/simple',
      'now.with.dots/simple',
      '1.2.3.4/5678',
      'UpperCase123',
    ]) {
      expect(annotationsProblems({ [key]: 'bar' })).toEqual([]);
    }
    expect(annotationsProblems({ a: r('b', TOTAL_ANNOTATION_SIZE_LIMIT_BYTES - 1) })).toEqual([]);
    expect(
      annotationsProblems({
        a: r('b', TOTAL_ANNOTATION_SIZE_LIMIT_BYTES / 2 - 1),
        c: r('d', TOTAL_ANNOTATION_SIZE_LIMIT_BYTES / 2 - 1),
      }),
    ).toEqual([]);
  });

  test('upstream maps over the size limit: one problem, on the whole map', () => {
    for (const annotations of [
      { a: r('b', TOTAL_ANNOTATION_SIZE_LIMIT_BYTES) },
      { a: r('b', TOTAL_ANNOTATION_SIZE_LIMIT_BYTES / 2), c: r('d', TOTAL_ANNOTATION_SIZE_LIMIT_BYTES / 2) },
    ]) {
      const problems = annotationsProblems(annotations);
      expect(problems).toEqual([
        {
          path: '',
          message: `keys and values total ${TOTAL_ANNOTATION_SIZE_LIMIT_BYTES + Object.keys(annotations).length} bytes; must have at most 262144 bytes (256 KiB)`,
        },
      ]);
    }
  });

  test('the limit is 256 KiB of UTF-8 bytes, keys included', () => {
    expect(TOTAL_ANNOTATION_SIZE_LIMIT_BYTES).toBe(262144);
    const value = r('é', 131071); // 262142 bytes
    expect(annotationsSizeProblem({ kk: value })).toBeUndefined(); // 262144: at the limit
    expect(annotationsSizeProblem({ kkk: value })).toBe(
      'keys and values total 262145 bytes; must have at most 262144 bytes (256 KiB)',
    );
  });

  test('keys: case does not matter, the qualified-name rule does', () => {
    expect(annotationKeyProblem('Example.COM/Some-Key')).toBeUndefined();
    expect(qualifiedNameProblem('Example.COM/Some-Key')).toBeDefined();
    expect(annotationsProblems({ 'a b': 'x' })).toEqual([
      { path: '[a b]', message: expect.stringMatching(/^key received "a b"; name part must consist of/) as unknown },
    ]);
  });
});

describe('label selectors', () => {
  // TestLabelSelectorMatchExpression, apimachinery v0.28.8 pkg/apis/meta/v1/validation/validation_test.go.
  test.each([
    [{ key: 'key', operator: 'In', values: ['value'] }, []],
    [
      { key: '-key', operator: 'In', values: ['value'] },
      [['matchExpressions[0].key', 'name part must consist of alphanumeric characters']],
    ],
    [
      { key: 'key', operator: 'abc', values: ['value'] },
      [['matchExpressions[0].operator', 'not a valid selector operator']],
    ],
    [
      { key: 'key', operator: 'In', values: ['-value'] },
      [['matchExpressions[0].values[0]', 'a valid label must be an empty string or consist of']],
    ],
    [
      { key: 'key', operator: 'NotIn', values: [] },
      [['matchExpressions[0].values', "must be specified when `operator` is 'In' or 'NotIn'"]],
    ],
    [
      { key: 'key', operator: 'Exists', values: ['v'] },
      [['matchExpressions[0].values', "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"]],
    ],
    [
      { key: 'key', operator: 'Gt', values: ['1'] },
      [['matchExpressions[0].operator', 'not a valid selector operator']],
    ],
  ])('%j', (expression, expected) => {
    const problems = labelSelectorProblems({ matchExpressions: [expression] });
    expect(problems.map((p) => p.path)).toEqual(expected.map(([path]) => path));
    problems.forEach((p, i) => expect(p.message).toContain(expected[i][1]));
  });

  test('matchLabels follow the label rules', () => {
    expect(
      paths(labelSelectorProblems({ matchLabels: { 'backup-cronjobs.io/group': 'nightly', app: 'bad value' } })),
    ).toEqual(['matchLabels[app]']);
  });
});

describe('node selector requirements', () => {
  test.each([
    [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['cp-1'] }, []],
    [{ key: 'node-role.kubernetes.io/control-plane', operator: 'Exists' }, []],
    [{ key: 'example.com/cores', operator: 'Gt', values: ['4'] }, []],
    [{ key: 'example.com/cores', operator: 'Lt', values: ['4', '8'] }, ['values']],
    [{ key: 'example.com/cores', operator: 'Gt', values: ['four'] }, ['values[0]']],
    [{ key: 'a', operator: 'DoesNotExist', values: ['x'] }, ['values']],
    [{ key: 'a', operator: 'Near', values: ['x'] }, ['operator']],
    [{ key: 'a b', operator: 'In', values: ['x'] }, ['key']],
    [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['node_1.example.com', 'bad host'] }, ['values[1]']],
  ])('%j → %j', (requirement, expected) => {
    expect(paths(nodeSelectorRequirementProblems(requirement))).toEqual(expected);
  });

  test('the messages say what is allowed', () => {
    expect(nodeSelectorRequirementProblems({ key: 'a', operator: 'Lt', values: [] })[0].message).toBe(
      "must be specified single value when `operator` is 'Lt' or 'Gt'",
    );
    expect(nodeSelectorRequirementProblems({ key: 'a', operator: 'Gt', values: ['1.5'] })[0].message).toContain(
      'must be a 64-bit integer',
    );
    expect(nodeSelectorRequirementProblems({ key: 'a', operator: 'Gt', values: ['9223372036854775807'] })).toEqual([]);
    expect(
      nodeSelectorRequirementProblems({ key: 'a', operator: 'Gt', values: ['9223372036854775808'] })[0].message,
    ).toContain('must be a 64-bit integer');
    expect(nodeSelectorRequirementProblems({ key: 'a', operator: 'Near' })[0].message).toContain(
      'allowed: In, NotIn, Exists, DoesNotExist, Gt, Lt',
    );
  });
});

describe('node pins (kubernetes.io/hostname values)', () => {
  test('a non-empty label value of at most 63 characters', () => {
    expect(nodePinProblem('cp-1')).toBeUndefined();
    expect(nodePinProblem('ip-10-0-0-1.ec2.internal')).toBeUndefined();
    expect(nodePinProblem(r('n', 63))).toBeUndefined();
    expect(nodePinProblem(r('n', 64))).toContain('must be no more than 63 characters');
    expect(nodePinProblem('')).toContain('never empty');
    expect(nodePinProblem('node 1')).toContain('a valid label must be');
    // found by test/lib/model/fuzz: an upper-case pin passed the policy and can never match a node
    expect(nodePinProblem('Node-A')).toBe(
      'received "Node-A"; the kubelet lower-cases the kubernetes.io/hostname label, so no node carries this value: use "node-a"',
    );
  });
});
