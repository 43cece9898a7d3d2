// Checks of spec.etcd beyond the schema.
import { renderPolicy, validatePolicy } from '../../../../lib';
import { etcdPolicy } from './fixtures';

describe('restore Jobs', () => {
  const LIMIT = 256 * 1024;
  const withAnnotation = (bytes: number, suspend?: boolean) => {
    const doc = etcdPolicy({ mode: 'perNode', nodes: ['cp-0'], restore: suspend === undefined ? {} : { suspend } });
    return { ...doc, metadata: { ...doc.metadata, annotations: { note: 'z'.repeat(bytes - 'note'.length) } } };
  };
  const SKIP_AWAIT_BYTES = 'pulumi.com/skipAwait'.length + 'true'.length;

  // found by test/lib/model/fuzz: the policy's annotations fit, the suspended restore Job's (with pulumi.com/skipAwait) did not: the last guard fired
  test('the policy annotations must leave room for the annotation of the suspended restore Jobs', () => {
    expect(() => validatePolicy(withAnnotation(LIMIT - SKIP_AWAIT_BYTES + 1)))
      .toThrow(/metadata\.annotations: keys and values total 262145 bytes; must have at most 262144 bytes.*, with the annotation pulumi\.com\/skipAwait of the suspended restore Jobs/);
    expect(() => renderPolicy(withAnnotation(LIMIT - SKIP_AWAIT_BYTES))).not.toThrow();
  });

  test('restore Jobs that are not suspended carry no extra annotation', () => {
    expect(() => renderPolicy(withAnnotation(LIMIT, false))).not.toThrow();
  });
});

describe('restore.bumpRevision', () => {
  // found by test/lib/model/fuzz: 1e21 passed the policy and reached etcdutl as ETCD_RESTORE_BUMP_REVISION=1e+21
  test('an integer beyond the exact JSON integers is refused', () => {
    expect(() => validatePolicy(etcdPolicy({ mode: 'perNode', nodes: ['cp-0'], restore: { bumpRevision: 1e21 } })))
      .toThrow(/spec\.etcd\.restore\.bumpRevision: /);
  });
});
