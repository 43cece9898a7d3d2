/**
 * PersistentVolumeClaim specs (as in generic ephemeral volumes) as the Kubernetes 1.28 API server
 * checks them. Test-only: the Vitess engine builds them; the access mode and storage class rules the
 * policy checks use are in lib/kubernetes/validation/storage.ts.
 *
 * Sources (kubernetes v1.28.8, pkg/apis/core/validation/validation.go; same rules in v1.33.3):
 * - ValidatePersistentVolumeClaimSpec: at least one access mode, each of ReadWriteOnce,
 *   ReadOnlyMany, ReadWriteMany or ReadWriteOncePod (feature gate on by default since 1.27, GA in
 *   1.29), "may not use ReadWriteOncePod with other access modes"; label selector;
 *   resources.requests.storage required and > 0; storageClassName a DNS-1123 subdomain
 *   (ValidateClassName) when not empty; volumeMode Block or Filesystem.
 * - validateEphemeralVolumeSource, ValidatePersistentVolumeClaimTemplate, ValidateTemplateObjectMeta:
 *   volumeClaimTemplate required; its metadata may only hold labels and annotations.
 */
import { show } from '../../../lib/messages';
import { type Problem, asRecord, keyPath, problemAt } from '../../../lib/kubernetes/validation/problems';
import { asList, fieldPath, under } from './problems';
import { decodeQuantity } from '../../../lib/kubernetes/validation/quantity';
import { accessModesProblem, storageClassNameProblem } from '../../../lib/kubernetes/validation/storage';
import { annotationsProblems, labelSelectorProblems, labelsProblems } from './labels';

const VOLUME_MODES = ['Block', 'Filesystem'];

/** A PersistentVolumeClaimSpec. Paths: `accessModes`, `resources[storage]`, ... */
export function persistentVolumeClaimSpecProblems(spec: unknown): Problem[] {
  const s = asRecord(spec) ?? {};
  const problems = [
    ...problemAt('accessModes', accessModesProblem(asList(s.accessModes))),
    ...under('selector', labelSelectorProblems(s.selector)),
  ];
  const storagePath = keyPath('resources', 'storage');
  const storage = asRecord(asRecord(s.resources)?.requests)?.storage;
  if (storage === undefined)
    problems.push({ path: storagePath, message: 'a storage request is required (resources.requests.storage)' });
  else {
    const decoded = decodeQuantity(storage);
    if ('problem' in decoded) problems.push({ path: storagePath, message: decoded.problem });
    else if (decoded.quantity.coefficient <= 0n)
      problems.push({
        path: storagePath,
        message: `received ${show(decoded.quantity.printed)}; must be greater than zero`,
      });
  }
  if (s.storageClassName !== undefined && s.storageClassName !== null) {
    problems.push(
      ...problemAt(
        'storageClassName',
        typeof s.storageClassName === 'string'
          ? storageClassNameProblem(s.storageClassName)
          : `received ${show(s.storageClassName)}; must be a string`,
      ),
    );
  }
  if (s.volumeMode !== undefined && !VOLUME_MODES.includes(s.volumeMode as string)) {
    problems.push({
      path: 'volumeMode',
      message: `received ${show(s.volumeMode)}; supported values: "Block", "Filesystem"`,
    });
  }
  return problems;
}

/** A generic ephemeral volume source (`ephemeral`). Paths: `volumeClaimTemplate...`. */
export function ephemeralVolumeProblems(ephemeral: unknown): Problem[] {
  const template = asRecord(asRecord(ephemeral)?.volumeClaimTemplate);
  if (!template) return [{ path: 'volumeClaimTemplate', message: 'a volumeClaimTemplate is required' }];
  const metadata = asRecord(template.metadata) ?? {};
  const at = (field: string) => fieldPath('volumeClaimTemplate.metadata', field);
  return [
    ...Object.keys(metadata)
      .filter((k) => k !== 'labels' && k !== 'annotations')
      .map((k) => ({
        path: at(k),
        message: "cannot be set: a claim template's metadata holds only labels and annotations",
      })),
    ...under(at('labels'), labelsProblems(metadata.labels)),
    ...under(at('annotations'), annotationsProblems(metadata.annotations)),
    ...under('volumeClaimTemplate.spec', persistentVolumeClaimSpecProblems(template.spec)),
  ];
}
