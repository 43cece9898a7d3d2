/**
 * v1 ConfigMap data as the Kubernetes 1.28 API server checks it. Test-only: the ConfigMaps are the
 * package's own (the scripts ConfigMap's size is checked by lib/workload/scripts.ts).
 *
 * Source: pkg/apis/core/validation/validation.go (v1.28.8, same in v1.33.3) ValidateConfigMap:
 * `data` and `binaryData` keys are config keys (IsConfigMapKey), a key may not be in both, and
 * the values total at most core.MaxSecretSize = 1 MiB (string bytes of `data`, decoded bytes of
 * `binaryData`).
 */
import { show } from '../../../lib/messages';
import { CONFIGMAP_MAX_SIZE_BYTES } from '../../../lib/kubernetes/validation/configmap';
import { configKeyProblem } from '../../../lib/kubernetes/validation/paths';
import { type Problem, asRecord, byteLength, keyPath, problemAt } from '../../../lib/kubernetes/validation/problems';

/** A ConfigMap's `data` and `binaryData`. Paths: `data[key]`, `binaryData[key]`, `''` for the size. */
export function configMapProblems(configMap: unknown): Problem[] {
  const c = asRecord(configMap) ?? {};
  const data = asRecord(c.data) ?? {};
  const binaryData = asRecord(c.binaryData) ?? {};
  const problems: Problem[] = [];
  let size = 0;
  for (const [key, value] of Object.entries(data)) {
    problems.push(...problemAt(keyPath('data', key), configKeyProblem(key)));
    if (key in binaryData)
      problems.push({
        path: keyPath('data', key),
        message: `received ${show(key)}; duplicate of key present in binaryData`,
      });
    size += typeof value === 'string' ? byteLength(value) : 0;
  }
  for (const [key, value] of Object.entries(binaryData)) {
    problems.push(...problemAt(keyPath('binaryData', key), configKeyProblem(key)));
    size += typeof value === 'string' ? Buffer.from(value, 'base64').length : 0;
  }
  if (size > CONFIGMAP_MAX_SIZE_BYTES)
    problems.push({
      path: '',
      message: `data and binaryData total ${size} bytes; must have at most ${CONFIGMAP_MAX_SIZE_BYTES} bytes (1 MiB)`,
    });
  return problems;
}
