/**
 * The pod of a Redis restore drill (`spec.drill`), one per shard: it takes
 * the newest backup of the shard, decrypts and checks it, loads it into a
 * temporary `redis-server` inside the pod and compares the loaded key count
 * with the one the backup recorded, then pushes the result. Steps, sharing
 * the scratch volume (sized as for a backup, `spec.redis.scratch`: the
 * compressed backup and the RDB are both there while it is unpacked):
 *  1. init `fetch` (aws CLI image): the drill's start, the newest backup of
 *     the shard (retention's listing), its age against `maxBackupAge`, the
 *     backup and its metadata downloaded;
 *  2. init `decrypt` (only with `spec.encryption`; the age image and the
 *     identity Secret): decrypts the `.age` backup;
 *  3. init `restore` (redis image): gunzip, redis-check-rdb, the temporary
 *     server (a unix socket, no TCP port), the comparison;
 *  4. `report` (aws CLI image: curl): pushes the drill metrics, fails the
 *     Job when the drill failed.
 * Steps 1-3 hand a failure on to `report` (and exit 0), so a failed drill is
 * always pushed. The drill never talks to the shard's servers or Sentinels.
 * The temporary server holds the whole data set in memory: the drill pod's
 * memory (spec.drill resources) must fit it.
 */
import type { EngineContainer, EngineEnvVar, VolumeMount } from '../../kubernetes/objects';
import { shellCommand } from '../../scripts';
import { ageContainer, ageIdentityParts } from '../../workload/encryption';
import { STEP_RESOURCES } from '../../workload/resources';
import type { ContainerResources } from '../../workload/resources';
import { restrictedContainerSecurity, restrictedPodSecurity } from '../../workload/security';
import type { EnginePod, PodContext, PolicyContext } from '../engine';
import { awsEnv, s3CaMounts, s3CaVolumes } from '../s3';
import { REDIS_DEFAULTS } from './defaults';
import { SCRATCH, TMP, destinationEnv, metricsEnv, scratchVolume, tmpEnv, tmpVolume } from './pod-parts';
import type { ResolvedRedis } from './resolve';

export function drillPod(spec: ResolvedRedis, policy: PolicyContext, shard: string, ctx: PodContext): EnginePod {
  const age = policy.encryption?.age;
  const identity = age && ageIdentityParts(age);
  const mounts = [
    { name: 'scratch', mountPath: SCRATCH },
    { name: 'tmp', mountPath: TMP },
  ];
  const drillEnv: EngineEnvVar[] = [...ctx.env, ...tmpEnv, { name: 'BACKUP_DRILL_DIR', value: `${SCRATCH}/drill` }];
  const step = (
    name: string,
    image: string,
    entry: string,
    resources: ContainerResources,
    env: readonly EngineEnvVar[],
    features = {},
    own: readonly VolumeMount[] = [],
  ): EngineContainer => ({
    name,
    image,
    command: shellCommand(entry, features),
    env: [...drillEnv, ...env],
    volumeMounts: [...mounts, ...own],
    resources,
    securityContext: restrictedContainerSecurity(),
  });
  const fetch = step(
    'fetch',
    spec.images.awsCli,
    'redis-drill-fetch.sh',
    STEP_RESOURCES.awsCli,
    [
      { name: 'REDIS_SHARD', value: shard },
      { name: 'REDIS_DRILL_METADATA_SUFFIX', value: REDIS_DEFAULTS.metadataSuffix },
      ...awsEnv(spec.s3),
      ...destinationEnv(spec, shard),
    ],
    {},
    s3CaMounts(spec.s3),
  );
  const decrypt =
    age && identity ? ageContainer('decrypt', age, 'drill-decrypt.sh', identity, { env: drillEnv, mounts }) : undefined;
  const restore = step('restore', spec.images.redis, 'redis-drill-restore.sh', STEP_RESOURCES.redisRestore, [
    { name: 'REDIS_DRILL_LOAD_TIMEOUT', value: String(REDIS_DEFAULTS.drillLoadTimeoutSeconds) },
  ]);
  const report = step('report', spec.images.awsCli, 'drill-report.sh', STEP_RESOURCES.shell, metricsEnv(ctx, shard), {
    metrics: ctx.metrics,
  });
  const init = decrypt ? [fetch, decrypt, restore] : [fetch, restore];
  return {
    initContainers: init,
    containers: [report],
    mainContainers: [...init, report].map((c) => c.name),
    volumes: [scratchVolume(spec), tmpVolume, ...(identity?.volumes ?? []), ...s3CaVolumes(spec.s3)],
    securityContext: restrictedPodSecurity(REDIS_DEFAULTS.uid),
  };
}
