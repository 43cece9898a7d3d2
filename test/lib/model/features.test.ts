// spec.encryption and spec.drill: engine-neutral shapes, checked once, refused by engines that do not implement them.
import { validatePolicy } from '../../../lib';
import { ENGINE_KEYS, engineDefinition } from '../../../lib/registry';
import { vitessPolicy } from '../engines/vitess/fixtures';
import { policyIssues } from '../../support/policy-issues';

const RECIPIENT = 'age1qayg4f9dg4fgff7kcejynt0cyavv5tkpazsr2x9nshqr9mlrqqxshk5yx3';
const supporting = (feature: 'encryption' | 'drill') =>
  ENGINE_KEYS.filter((k) => engineDefinition(k)[feature] === true);

describe('spec.encryption', () => {
  test('an engine that does not implement it refuses it, naming the engines that do', () => {
    const issues = policyIssues(() =>
      validatePolicy(vitessPolicy({}, { encryption: { age: { recipients: [RECIPIENT], image: 'alpine-age:3.20' } } })),
    );
    const which = supporting('encryption');
    expect(issues).toEqual([
      expect.stringMatching(
        new RegExp(
          `^spec\\.encryption: the vitess engine does not support client-side encryption.*; ${which.length ? `supported by: ${which.join(', ')}` : 'no engine supports it yet'}$`,
        ),
      ),
    ]);
  });

  test('exactly one recipients source, each recipient as age-keygen or ssh-keygen prints it, an image', () => {
    const at = (age: object) =>
      policyIssues(() => validatePolicy(vitessPolicy({}, { encryption: { age } }))).filter((i) =>
        i.startsWith('spec.encryption.'),
      );
    expect(at({ image: 'i' })).toEqual([
      'spec.encryption.age: received no recipients; set exactly one of: recipients, recipientsSecret, recipientsConfigMap',
    ]);
    expect(at({ image: 'i', recipients: [RECIPIENT], recipientsSecret: { name: 's', key: 'k' } })).toEqual([
      'spec.encryption.age: received recipients and recipientsSecret; set exactly one of: recipients, recipientsSecret, recipientsConfigMap',
    ]);
    expect(at({ recipients: [RECIPIENT] })).toEqual(['spec.encryption.age.image: required field is missing']);
    const bad = at({
      image: 'i',
      recipients: [
        RECIPIENT.toUpperCase(),
        `${RECIPIENT}x`,
        'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl me@host',
      ],
    });
    expect(bad).toEqual(
      [0, 1].map((i): unknown =>
        expect.stringMatching(
          new RegExp(
            `^spec\\.encryption\\.age\\.recipients\\[${i}\\]: received ".*"; must be an age recipient: an X25519 public key`,
          ),
        ),
      ),
    );
  });

  test('restore drills need the identity to decrypt with', () => {
    const issues = policyIssues(() =>
      validatePolicy(
        vitessPolicy(
          {},
          {
            encryption: { age: { recipients: [RECIPIENT], image: 'i' } },
            drill: { schedule: '@weekly', maxBackupAge: '30s' },
          },
        ),
      ),
    );
    expect(issues).toContain(
      'spec.encryption.age.identitySecret: required with spec.drill: the drills decrypt the newest backup with this identity',
    );
    expect(issues).toContain('spec.drill.maxBackupAge: received "30s"; allowed: at least 1m');
  });
});

describe('spec.drill', () => {
  test('a schedule is required, the job settings are checked as at spec.defaults', () => {
    const issues = policyIssues(() =>
      validatePolicy(vitessPolicy({}, { drill: { timeout: '0s', schedule: 'TZ=UTC @daily' } })),
    );
    expect(issues).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^spec\.drill: the vitess engine does not support restore drills/),
        expect.stringMatching(/^spec\.drill\.timeout: /),
        expect.stringMatching(/^spec\.drill\.schedule: /),
      ]),
    );
    expect(policyIssues(() => validatePolicy(vitessPolicy({}, { drill: {} })))).toContain(
      'spec.drill.schedule: required field is missing',
    );
  });
});
