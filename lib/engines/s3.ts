/**
 * An S3 (or S3-compatible) destination as the Redis and etcd engines take it:
 * the type, its defaults, its schema, the checks beyond the schema and the
 * env of the aws CLI steps. One definition, so both engines accept and render
 * the same thing.
 */
import type { EnvVar, Volume, VolumeMount } from '../kubernetes/objects';
import { IssueList, show } from '../policy/errors';
import type { PolicyPath } from '../policy/errors';
import {
  PATTERNS,
  Schema,
  bool,
  caBundleRef,
  duration,
  named,
  nonEmptyStr,
  obj,
  objectName,
  str,
  strEnum,
  withMeta,
} from '../policy/schema-builders';
import type { CaBundleRef } from '../policy/types';
import { durationProblem, parseDuration } from '../units';
import type { RetentionDestination, RetentionDestinationName } from '../retention';
import { caBundleParts } from '../workload/ca-bundle';
import { S3_DEFAULTS, s3CredentialKeys } from './s3-defaults';

export { S3_DEFAULTS };
export type { S3Credentials, S3Destination, S3ObjectLock } from './types.generated';
import type { S3Destination } from './types.generated';

/** Env names of the upload options, read by the upload scripts (redis-upload.sh, etcd-finalize.sh). */
export const S3_UPLOAD_ENV = {
  /** `aws s3 cp --storage-class` */
  storageClass: 'S3_STORAGE_CLASS',
  /** `aws s3 cp --sse` */
  serverSideEncryption: 'S3_SSE',
  /** `aws s3 cp --sse-kms-key-id` */
  kmsKeyId: 'S3_SSE_KMS_KEY_ID',
} as const;

/** S3 key prefix: no whitespace, no leading or trailing `/`. */
export const S3_PATH_PATTERN = '^[^/\\s]([^\\s]*[^/\\s])?$';
/** S3 bucket naming rules. */
export const BUCKET_PATTERN = '^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$';
const TOKEN_PATTERN = '^[^\\s]+$';

const secretKey = (description: string, extra: Schema = {}): Schema =>
  nonEmptyStr(description, { pattern: PATTERNS.secretKey, maxLength: 253, ...extra });

/** Schema of an `S3Destination` (closed), with the engine's own description of it and of `endpoint`. */
export function s3DestinationSchema(description: string, endpointDescription: string): Schema {
  return named(
    'S3Destination',
    obj(
      description,
      {
        bucket: withMeta(str('Bucket.', { pattern: BUCKET_PATTERN }), { passThrough: 'name' }),
        path: withMeta(
          str('Key prefix without leading or trailing "/".', { pattern: S3_PATH_PATTERN, maxLength: 900 }),
          { defaultText: 'the bucket root' },
        ),
        region: nonEmptyStr('Region.', { pattern: TOKEN_PATTERN }),
        endpoint: withMeta(withMeta(str(endpointDescription, { pattern: PATTERNS.url }), { passThrough: 'url' }), {
          defaultText: 'AWS',
        }),
        forcePathStyle: withMeta(bool('Path-style addressing (default: true when endpoint is set).'), {
          defaultText: 'true when `endpoint` is set, else false',
        }),
        credentialsSecret: withMeta(
          named(
            'S3Credentials',
            obj(
              'Secret with the access key pair (default: ambient credentials).',
              {
                name: objectName('Secret', 'Secret name.'),
                accessKeyIdKey: secretKey('Key of the access key id.', { default: S3_DEFAULTS.accessKeyIdKey }),
                secretAccessKeyKey: secretKey('Key of the secret access key.', {
                  default: S3_DEFAULTS.secretAccessKeyKey,
                }),
                sessionTokenKey: withMeta(secretKey('Key of a session token.'), { defaultText: 'none' }),
              },
              ['name'],
            ),
          ),
          { defaultText: "the pod's ambient credentials (IRSA, instance profile, ...)" },
        ),
        storageClass: withMeta(
          nonEmptyStr('Storage class of the objects, e.g. STANDARD_IA.', { pattern: '^[A-Z0-9_]+$' }),
          { defaultText: "the bucket's default" },
        ),
        serverSideEncryption: withMeta(strEnum('Server-side encryption.', ['AES256', 'aws:kms']), {
          defaultText: "the bucket's default",
        }),
        kmsKeyId: withMeta(nonEmptyStr('KMS key id (serverSideEncryption aws:kms).', { pattern: TOKEN_PATTERN }), {
          defaultText: 'the AWS managed key',
        }),
        caBundle: withMeta(
          caBundleRef(
            "CA bundle (PEM) that signs an https endpoint's certificate; the aws CLI gets it as AWS_CA_BUNDLE (default: the image's trusted CAs).",
          ),
          { defaultText: "the image's trusted CAs" },
        ),
        objectLock: withMeta(
          named(
            'S3ObjectLock',
            obj(
              'S3 Object Lock on every object a run writes (the bucket must have Object Lock enabled; default: not locked).',
              {
                mode: strEnum('GOVERNANCE (bypassable with s3:BypassGovernanceRetention) or COMPLIANCE (by nobody).', [
                  'GOVERNANCE',
                  'COMPLIANCE',
                ]),
                period: duration(
                  "How long each object stays locked after its upload (S3's retention period), e.g. 30d.",
                ),
              },
              ['mode', 'period'],
            ),
          ),
          { defaultText: 'not locked' },
        ),
      },
      ['bucket', 'region'],
    ),
  );
}

/** An S3 destination with every default applied. */
export interface ResolvedS3 {
  readonly bucket: string;
  /** Key prefix before object names: `<path>/`, or empty for the bucket root. */
  readonly keyPrefix: string;
  readonly region: string;
  readonly endpoint?: string;
  readonly forcePathStyle: boolean;
  readonly credentials?: {
    readonly name: string;
    readonly accessKeyIdKey: string;
    readonly secretAccessKeyKey: string;
    readonly sessionTokenKey?: string;
  };
  readonly storageClass?: string;
  readonly serverSideEncryption?: 'AES256' | 'aws:kms';
  readonly kmsKeyId?: string;
  readonly caBundle?: CaBundleRef;
  readonly objectLock?: { readonly mode: 'GOVERNANCE' | 'COMPLIANCE'; readonly seconds: number };
}

export function resolveS3(s3: S3Destination): ResolvedS3 {
  const creds = s3.credentialsSecret;
  return {
    bucket: s3.bucket,
    keyPrefix: s3KeyPrefix(s3.path),
    region: s3.region,
    endpoint: s3.endpoint,
    forcePathStyle: s3.forcePathStyle ?? s3.endpoint !== undefined,
    credentials: creds && {
      name: creds.name,
      accessKeyIdKey: s3CredentialKeys(creds).accessKeyId,
      secretAccessKeyKey: s3CredentialKeys(creds).secretAccessKey,
      sessionTokenKey: creds.sessionTokenKey,
    },
    storageClass: s3.storageClass,
    serverSideEncryption: s3.serverSideEncryption,
    kmsKeyId: s3.kmsKeyId,
    caBundle: s3.caBundle,
    objectLock: s3.objectLock && { mode: s3.objectLock.mode, seconds: parseDuration(s3.objectLock.period) },
  };
}

/** Checks beyond the schema; `path` is the destination's own path (e.g. `['spec', 'redis', 's3']`). */
export function validateS3(s3: S3Destination, path: PolicyPath, issues: IssueList): void {
  if (s3.path?.includes('//')) issues.add([...path, 'path'], `received ${show(s3.path)}; must not contain "//"`);
  if (s3.kmsKeyId !== undefined && s3.serverSideEncryption !== 'aws:kms') {
    issues.add([...path, 'kmsKeyId'], 'only valid with serverSideEncryption: aws:kms');
  }
  if (s3.caBundle && s3.endpoint?.startsWith('http://')) {
    issues.add(
      [...path, 'caBundle'],
      `received a CA bundle for the plain-HTTP endpoint ${show(s3.endpoint)}; a CA bundle only applies to https://: use https:// or remove caBundle`,
    );
  }
  const lock = s3.objectLock?.period;
  // the grammar is the schema's; S3 needs a retain-until date after the upload
  if (lock !== undefined && durationProblem(lock) === undefined && parseDuration(lock) < 1)
    issues.add([...path, 'objectLock', 'period'], `received ${show(lock)}; must be at least 1s`);
  const creds = s3.credentialsSecret;
  if (creds) {
    const { accessKeyId, secretAccessKey } = s3CredentialKeys(creds);
    const keys = [accessKeyId, secretAccessKey, creds.sessionTokenKey].filter((k): k is string => k !== undefined);
    if (new Set(keys).size !== keys.length)
      issues.add([...path, 'credentialsSecret'], `received keys ${show(keys)}; each credential needs its own key`);
  }
}

/** The S3 key prefix before the object name: `<path>/`, or empty for the bucket root. */
export function s3KeyPrefix(path: string | undefined): string {
  return path ? `${path}/` : '';
}

/** Where the objects named `<namePrefix><time><nameSuffix>` live, in the retention contract's terms. */
export function s3RetentionDestination(
  s3: ResolvedS3,
  names: {
    readonly namePrefix: string;
    readonly nameSuffix: RetentionDestinationName;
    readonly sidecarSuffixes?: readonly string[];
  },
): RetentionDestination {
  return {
    kind: 's3',
    bucket: s3.bucket,
    prefix: s3.keyPrefix,
    namePrefix: names.namePrefix,
    nameSuffix: names.nameSuffix,
    endpoint: s3.endpoint,
    forcePathStyle: s3.forcePathStyle,
    sidecarSuffixes: names.sidecarSuffixes,
    objectLock: s3.objectLock,
  };
}

const secretEnv = (name: string, secret: string, key: string): EnvVar => ({
  name,
  valueFrom: { secretKeyRef: { name: secret, key } },
});

/** Region, credentials, CA bundle and tuning for the aws CLI (the bundle's volume and mount: `s3CaVolumes`, `s3CaMounts`). */
export function awsEnv(s3: ResolvedS3): EnvVar[] {
  const creds = s3.credentials;
  return [
    { name: 'AWS_REGION', value: s3.region },
    { name: 'AWS_DEFAULT_REGION', value: s3.region },
    ...(creds
      ? [
          secretEnv('AWS_ACCESS_KEY_ID', creds.name, creds.accessKeyIdKey),
          secretEnv('AWS_SECRET_ACCESS_KEY', creds.name, creds.secretAccessKeyKey),
          ...(creds.sessionTokenKey ? [secretEnv('AWS_SESSION_TOKEN', creds.name, creds.sessionTokenKey)] : []),
        ]
      : []),
    ...(s3.caBundle ? [{ name: 'AWS_CA_BUNDLE', value: caBundleParts(s3.caBundle, 's3').file }] : []),
    { name: 'AWS_PAGER', value: '' },
  ];
}

/** The CA bundle's volume, for the pod of any container with `awsEnv`. */
export function s3CaVolumes(s3: ResolvedS3): Volume[] {
  return s3.caBundle ? [caBundleParts(s3.caBundle, 's3').volume] : [];
}

/** The CA bundle's mount, for every container with `awsEnv`. */
export function s3CaMounts(s3: ResolvedS3): VolumeMount[] {
  return s3.caBundle ? [caBundleParts(s3.caBundle, 's3').mount] : [];
}

/** The upload options that are set (storage class, server-side encryption, KMS key), under `S3_UPLOAD_ENV` names. */
export function s3UploadEnv(s3: ResolvedS3): EnvVar[] {
  return [
    ...(s3.storageClass ? [{ name: S3_UPLOAD_ENV.storageClass, value: s3.storageClass }] : []),
    ...(s3.serverSideEncryption ? [{ name: S3_UPLOAD_ENV.serverSideEncryption, value: s3.serverSideEncryption }] : []),
    ...(s3.kmsKeyId ? [{ name: S3_UPLOAD_ENV.kmsKeyId, value: s3.kmsKeyId }] : []),
  ];
}
