// Containers: names, env, envFrom, volume mounts, ports, init containers (api-rules/containers.ts).
import { validateManifest } from '..';
import { AcceptedCase, POD, RuleCase, expectApiRule, mutate, validCronJob } from '../fixtures';

const C = `${POD}.containers[0]`;
const INIT = `${POD}.initContainers[0]`;

test.each<RuleCase>([
  [
    'container name clashing with an init container',
    () => mutate(validCronJob(), `${INIT}.name`, 'backup'),
    `${INIT}.name`,
    'duplicate container name "backup"',
  ],
  [
    'container name not a DNS-1123 label',
    () => mutate(validCronJob(), `${C}.name`, 'backup.main'),
    `${C}.name`,
    'bad name "backup.main"',
    'DNS-1123 label',
  ],
  ['missing image', () => mutate(validCronJob(), `${C}.image`, undefined), `${C}.image`, 'missing required field'],
  [
    'env var name',
    () => mutate(validCronJob(), `${C}.env[0].name`, '1REDIS HOST'),
    `${C}.env[0].name`,
    'bad env var name',
  ],
  ['env var name ".."', () => mutate(validCronJob(), `${C}.env[0].name`, '..'), `${C}.env[0].name`, 'must not be ".."'],
  [
    'value and valueFrom',
    () => mutate(validCronJob(), `${C}.env[1].value`, 'x'),
    `${C}.env[1]`,
    'may not have both value and valueFrom',
  ],
  [
    'duplicate env var',
    () => mutate(validCronJob(), `${C}.env[4].name`, 'REDIS_HOST'),
    `${C}.env[4].name`,
    'duplicate env var name',
  ],
  [
    'fieldRef path',
    () => mutate(validCronJob(), `${C}.env[2].valueFrom.fieldRef.fieldPath`, 'metadata.podName'),
    `${C}.env[2].valueFrom.fieldRef.fieldPath`,
    'value "metadata.podName" not in enum',
  ],
  [
    'resourceFieldRef resource',
    () => mutate(validCronJob(), `${C}.env[3].valueFrom.resourceFieldRef.resource`, 'memory'),
    `${C}.env[3].valueFrom.resourceFieldRef.resource`,
    'value "memory" not in enum',
  ],
  [
    'secretKeyRef key',
    () => mutate(validCronJob(), `${C}.env[1].valueFrom.secretKeyRef.key`, 'pass word'),
    `${C}.env[1].valueFrom.secretKeyRef.key`,
    'bad Secret key "pass word"',
  ],
  [
    'secretKeyRef name',
    () => mutate(validCronJob(), `${C}.env[1].valueFrom.secretKeyRef.name`, 'Redis_Auth'),
    `${C}.env[1].valueFrom.secretKeyRef.name`,
    'bad Secret name "Redis_Auth"',
  ],
  [
    'configMapKeyRef key ".."',
    () => mutate(validCronJob(), `${C}.env[1].valueFrom`, { configMapKeyRef: { name: 'cfg', key: '..' } }),
    `${C}.env[1].valueFrom.configMapKeyRef.key`,
    'bad ConfigMap key',
  ],
  [
    'envFrom prefix',
    () => mutate(validCronJob(), `${C}.envFrom[0].prefix`, '9_'),
    `${C}.envFrom[0].prefix`,
    'bad env var name prefix',
  ],
  [
    'envFrom name',
    () => mutate(validCronJob(), `${C}.envFrom[0].configMapRef.name`, 'Redis'),
    `${C}.envFrom[0].configMapRef.name`,
    'bad name "Redis"',
  ],
  [
    'mount of a volume that does not exist',
    () => mutate(validCronJob(), `${C}.volumeMounts[0].name`, 'scratchh'),
    `${C}.volumeMounts[0].name`,
    'volume "scratchh" not found',
  ],
  [
    'duplicate mountPath',
    () => mutate(validCronJob(), `${C}.volumeMounts[2].mountPath`, '/scratch'),
    `${C}.volumeMounts[2].mountPath`,
    'duplicate mountPath "/scratch"',
  ],
  [
    'absolute subPath',
    () => mutate(validCronJob(), `${C}.volumeMounts[1].subPath`, '/aws'),
    `${C}.volumeMounts[1].subPath`,
    'must be a relative path',
  ],
  [
    'subPath with ".."',
    () => mutate(validCronJob(), `${C}.volumeMounts[1].subPath`, 'aws/../..'),
    `${C}.volumeMounts[1].subPath`,
    'must not contain ".."',
  ],
  [
    'subPathExpr with ".."',
    () => mutate(validCronJob(), `${C}.volumeMounts[1].subPathExpr`, '../$(POD_NAME)'),
    `${C}.volumeMounts[1].subPathExpr`,
    'must not contain ".."',
  ],
  [
    'subPath and subPathExpr',
    () => mutate(mutate(validCronJob(), `${C}.volumeMounts[0].subPath`, 'a'), `${C}.volumeMounts[0].subPathExpr`, 'b'),
    `${C}.volumeMounts[0]`,
    'mutually exclusive',
  ],
  [
    'port name in upper case',
    () => mutate(validCronJob(), `${C}.ports[0].name`, 'Metrics'),
    `${C}.ports[0].name`,
    'bad port name "Metrics"',
  ],
  [
    'port name longer than 15',
    () => mutate(validCronJob(), `${C}.ports[0].name`, 'prometheus-metrics'),
    `${C}.ports[0].name`,
    'no more than 15',
  ],
  [
    'duplicate port name',
    () => mutate(validCronJob(), `${C}.ports[1]`, { name: 'metrics', containerPort: 9101 }),
    `${C}.ports[1].name`,
    'duplicate port name "metrics"',
  ],
  [
    'containerPort 0',
    () => mutate(validCronJob(), `${C}.ports[0].containerPort`, 0),
    `${C}.ports[0].containerPort`,
    'between 1 and 65535',
  ],
  [
    'init container with a probe',
    () => mutate(validCronJob(), `${INIT}.readinessProbe`, { tcpSocket: { port: 6379 } }),
    `${INIT}.readinessProbe`,
    'may not be set for init containers without restartPolicy=Always',
  ],
])('%s', (_rule, bad, path, ...fragments) => {
  expectApiRule(bad(), path, ...fragments);
});

test.each<AcceptedCase>([
  [
    'a fieldRef on a label',
    () =>
      mutate(validCronJob(), `${C}.env[2].valueFrom.fieldRef.fieldPath`, "metadata.labels['app.kubernetes.io/name']"),
  ],
  ['a relative subPath', () => mutate(validCronJob(), `${C}.volumeMounts[1].subPath`, 'aws/config')],
  [
    'a sidecar init container (restartPolicy Always) with a probe',
    () =>
      mutate(mutate(validCronJob(), `${INIT}.restartPolicy`, 'Always'), `${INIT}.readinessProbe`, {
        tcpSocket: { port: 6379 },
      }),
  ],
  [
    'the same mountPath in two containers',
    () => mutate(validCronJob(), `${INIT}.volumeMounts`, [{ name: 'scratch', mountPath: '/scratch' }]),
  ],
])('accepts %s', (_what, good) => {
  expect(validateManifest(good())).toEqual([]);
});
