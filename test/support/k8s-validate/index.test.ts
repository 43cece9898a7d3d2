// The validator's public API: supported kinds, valid objects of every kind, the problem list format,
// the shared-schema switch.
import { expectValidManifests, sharedSchemaAvailable, supportedKinds, validateManifest, SHARED_SCHEMA_PATH } from '.';
import {
  PATHS,
  POD,
  expectError,
  mutate,
  validConfigMap,
  validCronJob,
  validJob,
  validPrometheusRule,
  validPvc,
  validRole,
  validRoleBinding,
  validSecret,
  validServiceAccount,
} from './fixtures';

test('knows the supported kinds', () => {
  expect(supportedKinds()).toEqual(
    expect.arrayContaining([
      'batch/v1/CronJob',
      'batch/v1/Job',
      'v1/PersistentVolumeClaim',
      'v1/ConfigMap',
      'v1/Secret',
      'v1/ServiceAccount',
      'rbac.authorization.k8s.io/v1/Role',
      'rbac.authorization.k8s.io/v1/RoleBinding',
      'monitoring.coreos.com/v1/PrometheusRule',
    ]),
  );
});

test('this machine: the strict shared schema is present in CI (else a note on the console)', () => {
  if (process.env.CI === 'true') expect(sharedSchemaAvailable()).toBe(true);
  else if (!sharedSchemaAvailable()) {
    console.log(`k8s-validate: strict shared schema not found at ${SHARED_SCHEMA_PATH}; combined path = packaged path`);
  }
});

describe('without the shared schema file', () => {
  const savedCi = process.env.CI;
  afterEach(() => {
    if (savedCi === undefined) delete process.env.CI;
    else process.env.CI = savedCi;
  });
  /** A fresh copy of the schema layer (it caches the file check) that sees no file. */
  const freshLayerWithoutFile = (): typeof import('./k8s-schema') => {
    let layer: typeof import('./k8s-schema') | undefined;
    jest.isolateModules(() => {
      jest.doMock('fs', () => ({ ...jest.requireActual<typeof import('fs')>('fs'), existsSync: () => false }));
      layer = require('./k8s-schema') as typeof import('./k8s-schema'); // eslint-disable-line @typescript-eslint/no-require-imports -- jest.isolateModules needs a synchronous require
    });
    jest.dontMock('fs');
    return layer!;
  };

  test('with CI=true: an error naming the path', () => {
    process.env.CI = 'true';
    const layer = freshLayerWithoutFile();
    expect(() => layer.sharedSchemaAvailable()).toThrow(
      `CI=true requires the strict Kubernetes 1.28 schema at ${SHARED_SCHEMA_PATH}`,
    );
  });

  test('on a developer machine: the packaged validators only', () => {
    delete process.env.CI;
    expect(freshLayerWithoutFile().sharedSchemaAvailable()).toBe(false);
  });
});

describe.each(PATHS)('%s', (_label, opts) => {
  const v = (o: unknown) => validateManifest(o, opts);

  test('a realistic CronJob is valid', () => {
    expect(v(validCronJob())).toEqual([]);
  });

  test('valid Job, PVC, ConfigMap, Secret, ServiceAccount, Role, RoleBinding, PrometheusRule pass', () => {
    for (const o of [
      validJob(),
      validPvc(),
      validConfigMap(),
      validSecret(),
      validServiceAccount(),
      validRole(),
      validRoleBinding(),
      validPrometheusRule(),
    ]) {
      expect({ kind: o.kind, errors: v(o) }).toEqual({ kind: o.kind, errors: [] });
    }
    expect(() => expectValidManifests([validCronJob(), validPvc(), validPrometheusRule()], opts)).not.toThrow();
  });

  test('unknown kinds and non-objects', () => {
    expect(v({ apiVersion: 'batch/v1beta1', kind: 'CronJob', metadata: { name: 'x' } })).toEqual([
      '(root): no schema for batch/v1beta1/CronJob [api-rules]',
    ]);
    expect(v({ apiVersion: 'apps/v1', kind: 'Deployment' })[0]).toContain('no schema for apps/v1/Deployment');
    expect(v('CronJob')[0]).toContain('wrong type: expected object, got string');
    expectError(v({ kind: 'CronJob' }), 'apiVersion: missing required field');
  });
});

test('expectValidManifests lists all problems of all objects with kind/name prefixes', () => {
  const bad1 = mutate(validCronJob(), `${POD}.containers[0].bogus`, 1);
  const bad2 = mutate(validPvc(), 'spec.accessModes', undefined);
  let message = '';
  try {
    expectValidManifests([validConfigMap(), bad1, bad2]);
  } catch (e) {
    message = (e as Error).message;
  }
  expect(message).toContain(`[1] CronJob/redis-main-backup: ${POD}.containers[0].bogus: unknown field`);
  expect(message).toContain('[2] PersistentVolumeClaim/backup-scratch: spec.accessModes: missing required field');
  expect(message).not.toMatch(/^\[0\]/m);
});

test('the combined path adds the strict schema layer when it is available', () => {
  const errors = validateManifest(mutate(validCronJob(), `${POD}.bogus`, true));
  const hit = expectError(errors, `${POD}.bogus: unknown field`);
  expect(hit.includes('k8s-1.28-schema')).toBe(sharedSchemaAvailable());
  const packaged = validateManifest(mutate(validCronJob(), `${POD}.bogus`, true), { useSharedSchema: false });
  expect(packaged.join('\n')).not.toContain('k8s-1.28-schema');
});
