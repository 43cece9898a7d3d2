// spec.scripts.mode configMap (the default): one ConfigMap per policy holding every script file once, named by
// its content, mounted read-only into each container that runs a script; commands keep their entry's main.
// scripts-as-written.test.ts checks its content byte for byte against the files.
import { Manifest, PolicyError, policySchema, renderPolicy } from '../../../lib';
import { validateObject } from '../../support/kubernetes-validation';
import { checkScriptsSize } from '../../../lib/workload/scripts';
import { SCRIPT_HEADER } from '../../../lib/scripts';
import { parseModule } from '../../../lib/scripts/compose';
import { etcdPolicy } from '../engines/etcd/fixtures';
import { redisPolicy } from '../engines/redis/fixtures';
import { vitessPolicy } from '../engines/vitess/fixtures';
import { containersOf, podSpecOf } from '../../support/kube';
import { schemaAt } from '../../support/json-schema';

const sourced = { scripts: { mode: 'configMap' } };
const scriptOf = (c: { command?: string[] }) => c.command?.find((s) => s.startsWith(SCRIPT_HEADER));
const functionNames = (text: string) => [...text.matchAll(/^([A-Za-z_][A-Za-z0-9_]*)\(\) \{/gm)].map((m) => m[1]);

describe.each([
  ['redis', redisPolicy({}, { ...sourced, retention: { keepLast: 3 }, metrics: { pushgatewayUrl: 'http://gw:9091' } })],
  [
    'etcd (per node, prune CronJobs)',
    etcdPolicy(
      { mode: 'perNode', nodes: ['cp-1', 'cp-2'], destination: { hostPath: { path: '/var/lib/etcd-backup' } } },
      { ...sourced, retention: { keepLast: 3, schedule: '30 1 * * *' } },
    ),
  ],
  [
    'etcd (S3, metrics)',
    etcdPolicy(
      { destination: { s3: { bucket: 'etcd-backups', region: 'us-east-1' } } },
      { ...sourced, retention: { keepLast: 3 }, metrics: { pushgatewayUrl: 'http://gw:9091' } },
    ),
  ],
  ['vitess', vitessPolicy({}, { ...sourced, retention: { keepLast: 3 } })],
])('%s in configMap mode', (_engine, policy) => {
  const objects = renderPolicy(policy);
  const configMap = objects[0] as Manifest & { data: Record<string, string>; immutable: boolean };
  const workloads = objects.filter((o) => o.kind === 'CronJob' || o.kind === 'Job');

  test("the ConfigMap comes first, immutable, named <policy>-scripts-<hash of its data>, labelled like the policy's other objects", () => {
    expect(configMap.kind).toBe('ConfigMap');
    expect(configMap.immutable).toBe(true);
    expect(configMap.metadata.name).toMatch(new RegExp(`^${policy.metadata.name}-scripts-[0-9a-f]{10}$`));
    expect(configMap.metadata.labels).toMatchObject({
      'app.kubernetes.io/instance': policy.metadata.name,
      'app.kubernetes.io/component': 'scripts',
    });
    expect(validateObject(configMap)).toEqual([]);
  });

  test('every container that runs a script mounts it read-only at /scripts and sources from it; others do not', () => {
    for (const o of workloads) {
      expect(podSpecOf(o).volumes).toContainEqual({ name: 'scripts', configMap: { name: configMap.metadata.name } });
      for (const c of containersOf(o)) {
        const script = scriptOf(c);
        const mount = (c.volumeMounts ?? []).find((m) => m.name === 'scripts');
        if (!script) {
          expect(mount).toBeUndefined();
          continue;
        }
        expect(mount).toEqual({ name: 'scripts', mountPath: '/scripts', readOnly: true });
        const sources = script
          .split('\n')[1]
          .split('; ')
          .map((s) => s.replace(/^\. \/scripts\//, ''));
        expect(sources[0]).toBe('common.sh');
        for (const file of sources) expect(Object.keys(configMap.data)).toContain(file);
        // The entry's own code stays in the command: main, and nothing else is defined there.
        expect(functionNames(script)).toEqual(['main']);
        expect(script).toMatch(/\nmain "\$@"\n$/);
      }
    }
  });

  test("every script appears once per policy: no function repeated across the ConfigMap's files, no main there", () => {
    const functions = Object.entries(configMap.data).flatMap(([file, text]) => parseModule(file, file, text).functions);
    const texts = functions.map((f) => f.lines.join('\n'));
    expect(new Set(texts).size).toBe(texts.length);
    expect(functions.map((f) => f.name)).not.toContain('main');
  });
});

test('configMap is the default; inline is the opt-in: no ConfigMap, no scripts volume', () => {
  const byDefault = renderPolicy(redisPolicy());
  expect(byDefault[0].kind).toBe('ConfigMap');
  expect(byDefault).toEqual(renderPolicy(redisPolicy({}, sourced)));
  const objects = renderPolicy(redisPolicy({}, { scripts: { mode: 'inline' } }));
  expect(objects.map((o) => o.kind)).not.toContain('ConfigMap');
  expect(JSON.stringify(objects)).not.toContain('"scripts"');
});

test('scripts over what a ConfigMap holds (1 MiB) are an error naming the way out, not a refused object', () => {
  expect(() => checkScriptsSize('p', { 'a.sh': 'x'.repeat(1024 * 1024) })).not.toThrow();
  expect(() => checkScriptsSize('p', { 'a.sh': 'x'.repeat(1024 * 1024), 'b.sh': 'y' })).toThrow(
    'the scripts of policy p total 1048577 bytes, more than the 1048576 bytes (1 MiB) a ConfigMap holds: set spec.scripts.mode: inline',
  );
  expect(() => checkScriptsSize('p', { 'a.sh': 'é'.repeat(6) }, 11)).toThrow(/total 12 bytes/);
});

test('a script change is a new ConfigMap name: the hash covers the content', () => {
  const a = renderPolicy(redisPolicy({}, sourced))[0];
  const b = renderPolicy(redisPolicy({}, { ...sourced, metrics: { pushgatewayUrl: 'http://gw:9091' } }))[0];
  expect(a.metadata.name).not.toBe(b.metadata.name);
  expect(renderPolicy(redisPolicy({}, sourced))[0].metadata.name).toBe(a.metadata.name);
});

test("in configMap mode the scripts volume and /scripts are the engine's: a policy volume of that name or path is refused", () => {
  const volume = { name: 'scripts', mountPath: '/opt/scripts', emptyDir: {} };
  const at = { name: 'tools', mountPath: '/scripts', emptyDir: {} };
  expect(() => renderPolicy(redisPolicy({}, { ...sourced, defaults: { pod: { volumes: [volume, at] } } }))).toThrow(
    PolicyError,
  );
  try {
    renderPolicy(redisPolicy({}, { ...sourced, defaults: { pod: { volumes: [volume, at] } } }));
  } catch (e) {
    expect((e as PolicyError).message).toMatch(
      /spec\.defaults\.pod\.volumes\[0\]\.name: received "scripts"; the engine's pod already has a volume of that name/,
    );
    expect((e as PolicyError).message).toMatch(
      /spec\.defaults\.pod\.volumes\[1\]\.mountPath: received "\/scripts"; the engine already mounts a volume there/,
    );
  }
  // inline mode has no such volume: both are fine there
  expect(() =>
    renderPolicy(redisPolicy({}, { scripts: { mode: 'inline' }, defaults: { pod: { volumes: [volume, at] } } })),
  ).not.toThrow();
});

test('the policy schema documents spec.scripts.mode', () => {
  expect(schemaAt(policySchema, 'spec', 'scripts', 'mode')).toMatchObject({
    enum: ['configMap', 'inline'],
    default: 'configMap',
  });
  expect(() => renderPolicy(redisPolicy({}, { scripts: { mode: 'files' } }))).toThrow(/spec\.scripts\.mode/);
});
