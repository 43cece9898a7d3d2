import { envFieldPathProblem, envVarNameProblem, envVarProblems } from '../../../support/kubernetes-validation';
import { goMessage, utilValidationRows } from './go-oracle';

const paths = (problems: readonly { path: string }[]) => problems.map((p) => p.path);

describe('env var names (IsEnvVarName, 1.28)', () => {
  test('not only C identifiers: dots and dashes anywhere, no leading digit', () => {
    for (const name of ['BACKUP_JOB', 'my.env-name', 'MY_ENV.NAME', 'MyEnvName1', '_', '-x', '.a', 'a..b'])
      expect(envVarNameProblem(name)).toBeUndefined();
    for (const name of ['1A', 'A=B', 'A B', 'A$', 'é', '.', '..', '..a']) expect(envVarNameProblem(name)).toBeDefined();
  });

  test('the chdir names get their own message', () => {
    expect(envVarNameProblem('..a')).toBe('received "..a"; must not start with \'..\'');
    expect(envVarNameProblem('.')).toBe('received "."; must not be \'.\'');
  });

  test('an empty name is required', () => {
    expect(envVarNameProblem('')).toBe('received ""; an environment variable needs a name');
  });

  test('messages are exactly what apimachinery v0.28.8 returns, for every recorded non-empty input', () => {
    for (const row of utilValidationRows().filter((r) => r.input !== '')) {
      expect([row.input, envVarNameProblem(row.input)]).toEqual([row.input, goMessage(row.input, row.errors.env)]);
    }
  });
});

describe('env valueFrom', () => {
  test('the sources the core renders pass', () => {
    expect(
      envVarProblems({ name: 'BACKUP_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } }),
    ).toEqual([]);
    expect(
      envVarProblems({ name: 'REDISCLI_AUTH', valueFrom: { secretKeyRef: { name: 'redis-auth', key: 'password' } } }),
    ).toEqual([]);
    expect(envVarProblems({ name: 'LIMIT', valueFrom: { resourceFieldRef: { resource: 'limits.memory' } } })).toEqual(
      [],
    );
  });

  test('exactly one source, and no value beside it', () => {
    expect(envVarProblems({ name: 'A', valueFrom: {} })).toEqual([
      {
        path: 'valueFrom',
        message: 'must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`',
      },
    ]);
    expect(
      paths(envVarProblems({ name: 'A', value: 'x', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } })),
    ).toEqual(['valueFrom']);
    expect(
      envVarProblems({
        name: 'A',
        valueFrom: { fieldRef: { fieldPath: 'metadata.name' }, secretKeyRef: { name: 's', key: 'k' } },
      })[0].message,
    ).toBe('may not have more than one field specified at a time, received fieldRef, secretKeyRef');
  });

  test('secret and configMap references: a DNS subdomain name and a config key', () => {
    expect(
      paths(envVarProblems({ name: 'A', valueFrom: { secretKeyRef: { name: 'Redis_Auth', key: 'pass word' } } })),
    ).toEqual(['valueFrom.secretKeyRef.name', 'valueFrom.secretKeyRef.key']);
    expect(paths(envVarProblems({ name: 'A', valueFrom: { configMapKeyRef: { name: 'cfg', key: '' } } }))).toEqual([
      'valueFrom.configMapKeyRef.key',
    ]);
  });

  test('downward API field paths the API server supports for env (1.28)', () => {
    for (const path of [
      'metadata.name',
      'metadata.namespace',
      'metadata.uid',
      'spec.nodeName',
      'spec.host',
      'spec.serviceAccountName',
      'status.hostIP',
      'status.podIP',
      'status.podIPs',
      "metadata.labels['app.kubernetes.io/name']",
      "metadata.annotations['Example.com/Key']",
    ]) {
      expect([path, envFieldPathProblem(path)]).toEqual([path, undefined]);
    }
    expect(envFieldPathProblem('status.hostIPs')).toContain('supported values'); // PodHostIPs gate, off in 1.28
    expect(envFieldPathProblem('status.phase')).toContain('supported values');
    expect(envFieldPathProblem("metadata.name['x']")).toContain('only metadata.labels');
    expect(envFieldPathProblem("metadata.labels['bad key']")).toContain('name part must consist of');
    expect(
      paths(envVarProblems({ name: 'A', valueFrom: { fieldRef: { apiVersion: 'v2', fieldPath: 'metadata.name' } } })),
    ).toEqual(['valueFrom.fieldRef.apiVersion']);
  });
});
