// Checks of spec.vitess beyond the schema, and the schema's bounds.
import { validatePolicy } from '../../../../lib';
import { vitessPolicy } from './fixtures';

describe('integer flags', () => {
  // found by test/lib/model/fuzz: 1e21 passed the policy and rendered --min_retention_count=1e+21
  test('integers beyond the exact JSON integers are refused', () => {
    expect(() => validatePolicy(vitessPolicy({ vtbackupRetention: { minRetentionCount: 1e21 } })))
      .toThrow(/spec\.vitess\.vtbackupRetention\.minRetentionCount: /);
    expect(() => validatePolicy(vitessPolicy({ storage: { s3: { region: 'us-east-1', bucket: 'b', minPartSize: 2 ** 53 } } })))
      .toThrow(/spec\.vitess\.storage\.s3\.minPartSize: /);
    expect(() => validatePolicy(vitessPolicy({ vtbackupRetention: { minRetentionCount: Number.MAX_SAFE_INTEGER } }))).not.toThrow();
  });
});
