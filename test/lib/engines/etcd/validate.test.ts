// Checks of spec.etcd beyond the schema.
import { validatePolicy } from '../../../../lib';
import { etcdPolicy } from './fixtures';

describe('restore.bumpRevision', () => {
  // found by test/lib/model/fuzz: 1e21 passed the policy and reached etcdutl as ETCD_RESTORE_BUMP_REVISION=1e+21
  test('an integer beyond the exact JSON integers is refused', () => {
    expect(() =>
      validatePolicy(etcdPolicy({ mode: 'perNode', nodes: ['cp-0'], restore: { bumpRevision: 1e21 } })),
    ).toThrow(/spec\.etcd\.restore\.bumpRevision: /);
  });
});
