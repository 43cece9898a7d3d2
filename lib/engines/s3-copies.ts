/**
 * Further copies of every verified backup (`copies` of the Redis and etcd engines): each in its own S3
 * bucket, endpoint or region, with its own credentials, Object Lock and retention rules. The type, its
 * schema, its checks and the env of the container that makes the copies (`lib/scripts/copy.sh`).
 */
import type { EnvVar } from '../kubernetes/objects';
import { IssueList, fieldText, show } from '../policy/errors';
import type { PolicyPath } from '../policy/errors';
import { Schema, arr, dnsLabel, named, obj, withMeta } from '../policy/schema-builders';
import {
  RETENTION_ENV,
  RETENTION_JSON_SCHEMA,
  checkRetentionRules,
  hasRetentionRules,
  retentionEnv,
} from '../retention';
import type { RetentionRules } from '../retention';
import { ResolvedS3, S3Destination, resolveS3, s3DestinationSchema, validateS3 } from './s3';
import type { S3Copy } from './types.generated';

export type { S3Copy } from './types.generated';

/** Schema of `copies` (closed), with the engine's description of an endpoint. */
export function s3CopiesSchema(endpointDescription: string): Schema {
  return arr(
    'Further copies of every verified backup, each in its own S3 bucket, endpoint or region (default: none).',
    named(
      'S3Copy',
      obj(
        'One copy.',
        {
          name: dnsLabel('Names the copy in logs and metrics (label copy).'),
          s3: s3DestinationSchema('Where the copy goes.', endpointDescription),
          retention: withMeta(
            named(
              'RetentionRules',
              obj(
                "Retention rules of the copy's backups (default: none, every copy kept).",
                RETENTION_JSON_SCHEMA.properties,
              ),
            ),
            { defaultText: 'none: the copy keeps every backup' },
          ),
        },
        ['name', 's3'],
      ),
    ),
    { maxItems: 4 },
  );
}

/** Checks beyond the schema; `path` is the list's path (e.g. `spec.etcd.copies`). */
export function validateS3Copies(
  copies: readonly S3Copy[],
  primary: S3Destination | undefined,
  path: PolicyPath,
  issues: IssueList,
): void {
  const seen = new Map<string, number>();
  copies.forEach((c, i) => {
    const at = [...path, i];
    const earlier = seen.get(c.name);
    if (earlier !== undefined)
      issues.add(
        [...at, 'name'],
        fieldText`received ${show(c.name)}, the name of ${[...path, earlier]} too; each copy needs its own`,
      );
    seen.set(c.name, i);
    validateS3(c.s3, [...at, 's3'], issues);
    if (c.s3.caBundle)
      issues.add(
        [...at, 's3', 'caBundle'],
        "received a CA bundle; a copy's endpoint must be trusted by the aws CLI image's CAs (a copy with a private CA is not supported yet)",
      );
    checkRetentionRules(c.retention, (rule, message) =>
      issues.add(rule === undefined ? [...at, 'retention'] : [...at, 'retention', rule], message),
    );
    const same = [primary, ...copies.slice(0, i).map((o) => o.s3)].find(
      (o) =>
        o !== undefined &&
        o.bucket === c.s3.bucket &&
        (o.path ?? '') === (c.s3.path ?? '') &&
        o.endpoint === c.s3.endpoint,
    );
    if (same)
      issues.add(
        [...at, 's3'],
        `received bucket ${show(c.s3.bucket)} and path ${show(c.s3.path ?? '')} at ${show(c.s3.endpoint ?? 'AWS')}, where another destination of the policy already stores its backups; a copy needs a bucket, path or endpoint of its own`,
      );
  });
}

export interface ResolvedS3Copy {
  readonly name: string;
  readonly s3: ResolvedS3;
  readonly retention?: RetentionRules;
}

export function resolveS3Copies(copies: readonly S3Copy[] | undefined): ResolvedS3Copy[] {
  return (copies ?? []).map((c) => ({ name: c.name, s3: resolveS3(c.s3), retention: c.retention }));
}

/**
 * The env of copy.sh: `BACKUP_COPIES` (the copies' numbers, `1 2`) and per copy N `BACKUP_COPY_<N>_*`:
 * NAME, BUCKET, PREFIX, REGION, ENDPOINT, FORCE_PATH_STYLE, the credentials from their Secret, the
 * upload options, the lock and the retention rules (RETENTION_* names of retention.sh). The time zone
 * of bucket rules is the backups'.
 */
export function s3CopiesEnv(copies: readonly ResolvedS3Copy[], timeZone: string): EnvVar[] {
  if (copies.length === 0) return [];
  return [
    { name: 'BACKUP_COPIES', value: copies.map((_, i) => String(i + 1)).join(' ') },
    ...copies.flatMap((c, i) => {
      const v = (field: string, value: string | number | undefined): EnvVar[] =>
        value === undefined || value === '' ? [] : [{ name: `BACKUP_COPY_${i + 1}_${field}`, value: String(value) }];
      const secret = (field: string, key: string | undefined): EnvVar[] =>
        c.s3.credentials && key
          ? [
              {
                name: `BACKUP_COPY_${i + 1}_${field}`,
                valueFrom: { secretKeyRef: { name: c.s3.credentials.name, key } },
              },
            ]
          : [];
      return [
        ...v('NAME', c.name),
        ...v('BUCKET', c.s3.bucket),
        ...v('PREFIX', c.s3.keyPrefix),
        ...v('REGION', c.s3.region),
        ...v('ENDPOINT', c.s3.endpoint),
        ...v('FORCE_PATH_STYLE', c.s3.forcePathStyle ? 'true' : undefined),
        ...secret('AWS_ACCESS_KEY_ID', c.s3.credentials?.accessKeyIdKey),
        ...secret('AWS_SECRET_ACCESS_KEY', c.s3.credentials?.secretAccessKeyKey),
        ...secret('AWS_SESSION_TOKEN', c.s3.credentials?.sessionTokenKey),
        ...v('STORAGE_CLASS', c.s3.storageClass),
        ...v('SSE', c.s3.serverSideEncryption),
        ...v('SSE_KMS_KEY_ID', c.s3.kmsKeyId),
        ...v('OBJECT_LOCK_MODE', c.s3.objectLock?.mode),
        ...v('OBJECT_LOCK_SECONDS', c.s3.objectLock?.seconds),
        // the rules as retention.sh reads them (RETENTION_*, with the time zone; dry run: the copy's script sets it)
        ...(hasRetentionRules(c.retention)
          ? retentionEnv(c.retention, timeZone, false)
              .filter((e) => e.name !== RETENTION_ENV.dryRun)
              .flatMap((e) => v(e.name, e.value))
          : []),
      ];
    }),
  ];
}
