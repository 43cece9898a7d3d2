// Checks of spec.vitess beyond the schema, and the schema's bounds.
import { validatePolicy } from '../../../../lib';
import { vitessPolicy } from './fixtures';

describe('integer flags', () => {
  // found by test/lib/model/fuzz: 1e21 passed the policy and rendered --min_retention_count=1e+21
  test('integers beyond the exact JSON integers are refused', () => {
    expect(() => validatePolicy(vitessPolicy({ vtbackupRetention: { minRetentionCount: 1e21 } }))).toThrow(
      /spec\.vitess\.vtbackupRetention\.minRetentionCount: /,
    );
    expect(() =>
      validatePolicy(vitessPolicy({ storage: { s3: { region: 'us-east-1', bucket: 'b', minPartSize: 2 ** 53 } } })),
    ).toThrow(/spec\.vitess\.storage\.s3\.minPartSize: /);
    expect(() =>
      validatePolicy(vitessPolicy({ vtbackupRetention: { minRetentionCount: Number.MAX_SAFE_INTEGER } })),
    ).not.toThrow();
  });
});

describe('policy-wide features the engine refuses, saying what Vitess does instead', () => {
  const problems = (spec: Record<string, unknown>): string => {
    try {
      validatePolicy(vitessPolicy({}, spec));
    } catch (e) {
      return (e as Error).message;
    }
    throw new Error('the policy was accepted');
  };

  test('spec.drill: every normal vtbackup run is the drill', () => {
    expect(problems({ drill: { schedule: '0 5 * * 0' } })).toMatch(
      /spec\.drill: the vitess engine does not support restore drills: every normal vtbackup run restores the newest backup first and pushes the restore-drill metrics/,
    );
  });

  test("spec.encryption: the storage's own encryption and vtbackup's compressor or xtrabackup flags, through extraFlags", () => {
    const message = problems({
      encryption: { age: { recipients: ['age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p'] } },
    });
    expect(message).toMatch(
      /spec\.encryption: the vitess engine does not support client-side encryption: vtbackup writes its backups itself/,
    );
    for (const flag of [
      's3_backup_server_side_encryption',
      'external-compressor',
      'external-decompressor',
      'xtrabackup_backup_flags',
      'xbstream_restore_flags',
    ])
      expect(message).toContain(flag);
  });
});
