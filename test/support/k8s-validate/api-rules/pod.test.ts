// Pod templates and pod specs (api-rules/pod.ts).
import { validateManifest } from '..';
import { POD, RuleCase, expectApiRule, expectError, mutate, validCronJob } from '../fixtures';

test.each<RuleCase>([
  [
    'Job pods without restartPolicy',
    () => mutate(validCronJob(), `${POD}.restartPolicy`, undefined),
    `${POD}.restartPolicy`,
    'missing required field',
  ],
  [
    'Job pods restarting Always',
    () => mutate(validCronJob(), `${POD}.restartPolicy`, 'Always'),
    `${POD}.restartPolicy`,
    'value "Always" not in enum ["OnFailure","Never"]',
  ],
  [
    'no containers',
    () => mutate(validCronJob(), `${POD}.containers`, []),
    `${POD}.containers`,
    'must contain at least one container',
  ],
  [
    'pod template without spec',
    () => mutate(validCronJob(), 'spec.jobTemplate.spec.template.spec', undefined),
    'spec.jobTemplate.spec.template.spec',
    'missing required field',
  ],
  [
    'serviceAccountName',
    () => mutate(validCronJob(), `${POD}.serviceAccountName`, 'Backup'),
    `${POD}.serviceAccountName`,
    'bad name "Backup"',
  ],
  [
    'priorityClassName',
    () => mutate(validCronJob(), `${POD}.priorityClassName`, 'backup critical'),
    `${POD}.priorityClassName`,
    'bad name "backup critical"',
  ],
  [
    'hostname',
    () => mutate(validCronJob(), `${POD}.hostname`, 'backup.host'),
    `${POD}.hostname`,
    'bad name',
    'DNS-1123 label',
  ],
  [
    'activeDeadlineSeconds 0',
    () => mutate(validCronJob(), `${POD}.activeDeadlineSeconds`, 0),
    `${POD}.activeDeadlineSeconds`,
    'must be greater than 0',
  ],
  [
    'activeDeadlineSeconds beyond int32',
    () => mutate(validCronJob(), `${POD}.activeDeadlineSeconds`, 2 ** 31),
    `${POD}.activeDeadlineSeconds`,
    'must be between 1 and 2147483647',
  ],
  [
    'negative terminationGracePeriodSeconds',
    () => mutate(validCronJob(), `${POD}.terminationGracePeriodSeconds`, -1),
    `${POD}.terminationGracePeriodSeconds`,
    'must be greater than or equal to 0',
  ],
])('%s', (_rule, bad, path, ...fragments) => {
  expectApiRule(bad(), path, ...fragments);
});

test('every problem of a pod is listed, not only the first', () => {
  const o = mutate(validCronJob(), `${POD}.serviceAccountName`, 'Backup');
  mutate(o, `${POD}.volumes[2].name`, 'Tmp');
  mutate(o, `${POD}.tolerations[0].value`, 'a b');
  const errors = validateManifest(o);
  expectError(errors, `${POD}.serviceAccountName: `);
  expectError(errors, `${POD}.volumes[2].name: `);
  expectError(errors, `${POD}.tolerations[0].value: `);
});
