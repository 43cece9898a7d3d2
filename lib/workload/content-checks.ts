/** The env of content.sh: `spec.contentChecks` with its defaults, for the container that stores each backup. */
import type { EnvVar } from '../kubernetes/objects';
import { CONTENT_CHECK_DEFAULTS } from '../policy/defaults';
import type { ContentCheckOptions } from '../policy/types';

/** `metadataSuffix`: the backup's metadata sidecar is `<name without .age><metadataSuffix>`, with its `keyCount`. */
export function contentCheckEnv(options: ContentCheckOptions | undefined, metadataSuffix: string): EnvVar[] {
  const o = { ...CONTENT_CHECK_DEFAULTS, ...options };
  return [
    { name: 'BACKUP_CONTENT_ALLOW_EMPTY', value: String(o.allowEmpty) },
    { name: 'BACKUP_CONTENT_SHRINK_BELOW_PERCENT', value: String(o.shrinkBelowPercent) },
    { name: 'BACKUP_CONTENT_ON_SHRINK', value: o.onShrink },
    { name: 'BACKUP_CONTENT_METADATA_SUFFIX', value: metadataSuffix },
  ];
}
