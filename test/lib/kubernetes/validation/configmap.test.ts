import { CONFIGMAP_MAX_SIZE_BYTES, configMapProblems } from '../../../support/kubernetes-validation';

describe('ConfigMap data', () => {
  test('keys are config keys, in data and binaryData, and not in both', () => {
    expect(
      configMapProblems({
        data: { 'restore.sh': '#!/bin/sh', 'bad/key': 'x', same: 'x' },
        binaryData: { same: 'AA==', '..x': '' },
      }).map((p) => p.path),
    ).toEqual(['data[bad/key]', 'data[same]', 'binaryData[..x]']);
  });

  test('1 MiB in total: string bytes of data, decoded bytes of binaryData', () => {
    expect(CONFIGMAP_MAX_SIZE_BYTES).toBe(1048576);
    expect(
      configMapProblems({
        data: { a: 'x'.repeat(CONFIGMAP_MAX_SIZE_BYTES - 3) },
        binaryData: { b: Buffer.alloc(3).toString('base64') },
      }),
    ).toEqual([]);
    expect(
      configMapProblems({
        data: { a: 'x'.repeat(CONFIGMAP_MAX_SIZE_BYTES - 3) },
        binaryData: { b: Buffer.alloc(4).toString('base64') },
      }),
    ).toEqual([
      { path: '', message: 'data and binaryData total 1048577 bytes; must have at most 1048576 bytes (1 MiB)' },
    ]);
    expect(configMapProblems({ data: { a: 'é'.repeat(CONFIGMAP_MAX_SIZE_BYTES / 2 + 1) } })[0].message).toContain(
      '1048578 bytes',
    );
  });
});
