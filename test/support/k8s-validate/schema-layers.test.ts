// The schema layers (kubernetes-models, client-node, the strict shared k8s 1.28 schema): unknown fields,
// types, required fields, enums, on both validation paths.
import { sharedSchemaAvailable, validateManifest } from '.';
import { PATHS, POD, expectError, mutate, validCronJob } from './fixtures';

describe.each(PATHS)('%s', (_label, opts) => {
  const v = (o: unknown) => validateManifest(o, opts);
  const shared = opts.useSharedSchema !== false && sharedSchemaAvailable();

  test('unknown field deep in the pod spec', () => {
    const errors = v(mutate(validCronJob(), `${POD}.containers[0].bogus`, 1));
    const e = expectError(errors, `${POD}.containers[0].bogus: unknown field`, 'client-node');
    if (shared) expect(e).toContain('k8s-1.28-schema');
    expectError(
      v(mutate(validCronJob(), `${POD}.volumes[0].ephemeral.volumeClaimTemplate.spec.resources.request`, {})),
      `${POD}.volumes[0].ephemeral.volumeClaimTemplate.spec.resources.request: unknown field`,
    );
    expectError(
      v(
        mutate(
          validCronJob(),
          `${POD}.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.topologykey`,
          'x',
        ),
      ),
      `${POD}.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.topologykey: unknown field`,
    );
    expectError(
      v(mutate(validCronJob(), `${POD}.containers[0].env[1].valueFrom.secretKeyRef.nmae`, 'x')),
      `${POD}.containers[0].env[1].valueFrom.secretKeyRef.nmae: unknown field`,
    );
    expectError(v(mutate(validCronJob(), 'metadata.label', {})), 'metadata.label: unknown field');
    expectError(v(mutate(validCronJob(), 'specs', {})), 'specs: unknown field');
  });

  test('wrong primitive type', () => {
    const errors = v(mutate(validCronJob(), 'spec.successfulJobsHistoryLimit', '3'));
    const e = expectError(
      errors,
      'spec.successfulJobsHistoryLimit: wrong type: expected integer, got string',
      'kubernetes-models',
      'client-node',
    );
    if (shared) expect(e).toContain('k8s-1.28-schema');
    expectError(
      v(mutate(validCronJob(), 'spec.suspend', 'false')),
      'spec.suspend: wrong type: expected boolean, got string',
    );
    expectError(
      v(mutate(validCronJob(), `${POD}.containers[0].args`, 'redis')),
      `${POD}.containers[0].args: wrong type: expected array, got string`,
    );
    expectError(
      v(mutate(validCronJob(), `${POD}.containers[0].readinessProbe.tcpSocket.port`, 1.5)),
      `${POD}.containers[0].readinessProbe.tcpSocket.port: wrong type: expected string or integer, got number`,
    );
    expectError(
      v(mutate(validCronJob(), `${POD}.containers[0].resources.limits.cpu`, true)),
      `${POD}.containers[0].resources.limits.cpu: wrong type`,
    );
    expectError(
      v(mutate(validCronJob(), 'metadata.labels.tier', 3)),
      'metadata.labels.tier: wrong type: expected string, got integer',
    );
  });

  test('quantities may be strings or numbers but must parse', () => {
    expect(v(mutate(validCronJob(), `${POD}.volumes[2].emptyDir.sizeLimit`, 67108864))).toEqual([]);
    expectError(
      v(mutate(validCronJob(), `${POD}.volumes[2].emptyDir.sizeLimit`, '64 MB')),
      `${POD}.volumes[2].emptyDir.sizeLimit: bad quantity "64 MB"`,
    );
  });

  test('missing required fields', () => {
    const e1 = expectError(
      v(mutate(validCronJob(), 'spec.schedule', undefined)),
      'spec.schedule: missing required field',
      'kubernetes-models',
    );
    if (shared) expect(e1).toContain('k8s-1.28-schema');
    const e2 = expectError(
      v(mutate(validCronJob(), `${POD}.containers[0].name`, undefined)),
      `${POD}.containers[0].name: missing required field`,
      'kubernetes-models',
    );
    if (shared) expect(e2).toContain('k8s-1.28-schema');
  });

  test('enum violations', () => {
    expectError(
      v(mutate(validCronJob(), 'spec.concurrencyPolicy', 'Sometimes')),
      'spec.concurrencyPolicy: value "Sometimes" not in enum',
      'Forbid',
    );
    expectError(
      v(mutate(validCronJob(), `${POD}.restartPolicy`, 'Sometimes')),
      `${POD}.restartPolicy: value "Sometimes" not in enum`,
    );
    expectError(
      v(mutate(validCronJob(), `${POD}.containers[0].imagePullPolicy`, 'Sometimes')),
      `${POD}.containers[0].imagePullPolicy: value "Sometimes" not in enum`,
    );
    expectError(
      v(mutate(validCronJob(), `${POD}.volumes[3].hostPath.type`, 'Dir')),
      `${POD}.volumes[3].hostPath.type: value "Dir" not in enum`,
    );
    expectError(
      v(mutate(validCronJob(), `${POD}.tolerations[0].operator`, 'Is')),
      `${POD}.tolerations[0].operator: value "Is" not in enum`,
    );
  });
});
