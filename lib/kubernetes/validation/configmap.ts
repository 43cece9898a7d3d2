/** The ConfigMap size limit (core.MaxSecretSize, 1 MiB), which the scripts ConfigMap is held to (lib/workload/scripts.ts). */
export const CONFIGMAP_MAX_SIZE_BYTES = 1024 * 1024;
