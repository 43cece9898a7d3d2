import {
  cronJobNameProblem,
  dns1035LabelProblem,
  dns1123LabelProblem,
  dns1123SubdomainProblem,
  jobNameProblem,
  namespaceNameProblem,
  objectNameProblem,
  pathSegmentNameProblem,
} from '../../../support/kubernetes-validation';
import { goMessage, utilValidationRows } from './go-oracle';

const a = (n: number) => 'a'.repeat(n);

describe('DNS-1123 labels, subdomains and DNS-1035 labels', () => {
  // Vectors of TestIsDNS1123Label, TestIsDNS1123Subdomain and TestIsDNS1035Label in
  // k8s.io/apimachinery v0.28.8 pkg/util/validation/validation_test.go.
  test('upstream DNS-1123 label vectors', () => {
    const good = ['a', 'ab', 'abc', 'a1', 'a-1', 'a--1--2--b', '0', '01', '012', '1a', '1-a', '1--a--b--2', a(63)];
    const bad = [
      '',
      'A',
      'ABC',
      'aBc',
      'A1',
      'A-1',
      '1-A',
      '-',
      'a-',
      '-a',
      '1-',
      '-1',
      '_',
      'a_',
      '_a',
      'a_b',
      '1_',
      '_1',
      '1_2',
      '.',
      'a.',
      '.a',
      'a.b',
      '1.',
      '.1',
      '1.2',
      ' ',
      'a ',
      ' a',
      'a b',
      '1 ',
      ' 1',
      '1 2',
      a(64),
    ];
    expect(good.filter((v) => dns1123LabelProblem(v) !== undefined)).toEqual([]);
    expect(bad.filter((v) => dns1123LabelProblem(v) === undefined)).toEqual([]);
  });

  test('upstream DNS-1123 subdomain vectors', () => {
    const good = [
      'a',
      'ab',
      'abc',
      'a1',
      'a-1',
      'a--1--2--b',
      '0',
      '01',
      '012',
      '1a',
      '1-a',
      '1--a--b--2',
      'a.a',
      'ab.a',
      'abc.a',
      'a1.a',
      'a-1.a',
      'a--1--2--b.a',
      'a.1',
      'ab.1',
      'abc.1',
      'a1.1',
      'a-1.1',
      'a--1--2--b.1',
      '0.a',
      '01.a',
      '012.a',
      '1a.a',
      '1-a.a',
      '0.1',
      '01.1',
      '012.1',
      '1a.1',
      '1-a.1',
      '1--a--b--2.1',
      'a.b.c.d.e',
      'aa.bb.cc.dd.ee',
      '1.2.3.4.5',
      '11.22.33.44.55',
      a(253),
    ];
    const bad = [
      '',
      'A',
      'ABC',
      'aBc',
      'A1',
      'A-1',
      '1-A',
      '-',
      'a-',
      '-a',
      '1-',
      '-1',
      '_',
      'a_',
      '_a',
      'a_b',
      '1_',
      '_1',
      '1_2',
      '.',
      'a.',
      '.a',
      'a..b',
      '1.',
      '.1',
      '1..2',
      ' ',
      'a ',
      ' a',
      'a b',
      '1 ',
      ' 1',
      '1 2',
      'A.a',
      'aB.a',
      'ab.A',
      'A1.a',
      'a1.A',
      'A.1',
      'aB.1',
      'A1.1',
      '1A.1',
      '0.A',
      '01.A',
      '012.A',
      '1A.a',
      '1a.A',
      'A.B.C.D.E',
      'AA.BB.CC.DD.EE',
      'a.B.c.d.e',
      'aa.bB.cc.dd.ee',
      'a@b',
      'a,b',
      'a_b',
      'a;b',
      'a:b',
      'a%b',
      'a?b',
      'a$b',
      a(254),
    ];
    expect(good.filter((v) => dns1123SubdomainProblem(v) !== undefined)).toEqual([]);
    expect(bad.filter((v) => dns1123SubdomainProblem(v) === undefined)).toEqual([]);
  });

  test('upstream DNS-1035 label vectors', () => {
    const good = ['a', 'ab', 'abc', 'a1', 'a-1', 'a--1--2--b', a(63)];
    const bad = [
      '0',
      '01',
      '012',
      '1a',
      '1-a',
      '1--a--b--2',
      '',
      'A',
      'ABC',
      'aBc',
      'A1',
      'A-1',
      '1-A',
      '-',
      'a-',
      '-a',
      '1-',
      '-1',
      '_',
      'a.b',
      a(64),
    ];
    expect(good.filter((v) => dns1035LabelProblem(v) !== undefined)).toEqual([]);
    expect(bad.filter((v) => dns1035LabelProblem(v) === undefined)).toEqual([]);
  });

  test('messages are exactly what apimachinery v0.28.8 returns, for every recorded input', () => {
    for (const row of utilValidationRows()) {
      expect([row.input, dns1123LabelProblem(row.input)]).toEqual([row.input, goMessage(row.input, row.errors.label)]);
      expect([row.input, dns1123SubdomainProblem(row.input)]).toEqual([
        row.input,
        goMessage(row.input, row.errors.subdomain),
      ]);
      expect([row.input, dns1035LabelProblem(row.input)]).toEqual([
        row.input,
        goMessage(row.input, row.errors.dns1035),
      ]);
    }
  });

  test('a label with dots gets the short "must not contain dots" hint', () => {
    expect(dns1123LabelProblem('a.b')).toBe('received "a.b"; must not contain dots');
  });

  test('namespaces are DNS-1123 labels', () => {
    expect(namespaceNameProblem('kube-system')).toBeUndefined();
    expect(namespaceNameProblem('team.a')).toContain('must not contain dots');
  });
});

describe('path segment names (RBAC)', () => {
  // Non-prefix cases of TestValidatePathSegmentName, apimachinery v0.28.8 pkg/api/validation/path/name_test.go.
  test.each([
    ['', undefined],
    ['foo.bar.baz', undefined],
    ['sha256:ABCDEF012345@ABCDEF012345', undefined],
    ['Iñtërnâtiônàlizætiøn', undefined],
    ['.test', undefined],
    ['..test', undefined],
    ['.', "may not be '.'"],
    ['..', "may not be '..'"],
    ['foo/bar', "may not contain '/'"],
    ['foo%bar', "may not contain '%'"],
  ])('%j', (name, detail) => {
    const problem = pathSegmentNameProblem(name);
    if (detail === undefined) expect(problem).toBeUndefined();
    else expect(problem).toBe(`received ${JSON.stringify(name)}; ${detail}`);
  });
});

describe('CronJob and Job names', () => {
  test('a CronJob name may have 52 characters, not 53', () => {
    expect(cronJobNameProblem(a(52))).toBeUndefined();
    const problem = cronJobNameProblem(a(53));
    expect(problem).toContain('must be no more than 52 characters');
    expect(problem).toContain('appends 11 characters');
  });

  test('a CronJob name over 253 characters is reported against 52, once', () => {
    const problem = cronJobNameProblem(a(300)) ?? '';
    expect(problem).toContain('must be no more than 52 characters');
    expect(problem).not.toContain('253');
  });

  test('a CronJob name is a DNS-1123 subdomain', () => {
    expect(cronJobNameProblem('backup.etcd')).toBeUndefined();
    expect(cronJobNameProblem('Backup')).toContain('RFC 1123 subdomain');
  });

  test('a Job name may have 63 characters, not 64 (it becomes a pod label value)', () => {
    expect(jobNameProblem(a(63))).toBeUndefined();
    expect(jobNameProblem(a(64))).toContain(
      'must be no more than 63 characters (the name becomes the value of the pod label batch.kubernetes.io/job-name)',
    );
    expect(jobNameProblem('restore_etcd')).toContain('RFC 1123 subdomain');
  });
});

describe('metadata.name per kind', () => {
  test.each([
    ['batch/v1', 'CronJob', a(53), 'must be no more than 52'],
    ['batch/v1', 'Job', a(64), 'must be no more than 63'],
    ['v1', 'ConfigMap', 'a:b', 'RFC 1123 subdomain'],
    ['v1', 'ServiceAccount', 'Backup', 'RFC 1123 subdomain'],
    ['v1', 'Namespace', 'a.b', 'must not contain dots'],
    ['v1', 'Service', '1abc', 'DNS-1035 label'],
    ['monitoring.coreos.com/v1', 'PrometheusRule', 'Alerts', 'RFC 1123 subdomain'],
    ['example.com/v1', 'Widget', 'a_b', 'RFC 1123 subdomain'],
  ])('%s %s %j is refused', (apiVersion, kind, name, detail) => {
    expect(objectNameProblem(apiVersion, kind, name)).toContain(detail);
  });

  test('RBAC objects take any path segment, which other kinds refuse', () => {
    for (const kind of ['Role', 'RoleBinding', 'ClusterRole', 'ClusterRoleBinding']) {
      expect(objectNameProblem('rbac.authorization.k8s.io/v1', kind, 'system:backup@Team')).toBeUndefined();
    }
    expect(objectNameProblem('v1', 'ConfigMap', 'system:backup@Team')).toBeDefined();
    expect(objectNameProblem('rbac.authorization.k8s.io/v1', 'Role', 'a/b')).toContain("may not contain '/'");
  });

  test('a kind named like a batch kind in another group follows the generic rule', () => {
    expect(objectNameProblem('example.com/v1', 'CronJob', a(60))).toBeUndefined();
  });

  test('the name is required', () => {
    expect(objectNameProblem('v1', 'ConfigMap', '')).toBe('name or generateName is required');
  });
});
