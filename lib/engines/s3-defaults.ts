/** S3 defaults, defined once: the schema (hence the field reference), the checks and the resolve read these. */
export const S3_DEFAULTS = {
  accessKeyIdKey: 'AWS_ACCESS_KEY_ID',
  secretAccessKeyKey: 'AWS_SECRET_ACCESS_KEY',
} as const;

/** The keys of `credentialsSecret` with their defaults: the resolve and the check that they differ read them here. */
export function s3CredentialKeys(creds: { readonly accessKeyIdKey?: string; readonly secretAccessKeyKey?: string }): {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
} {
  return {
    accessKeyId: creds.accessKeyIdKey ?? S3_DEFAULTS.accessKeyIdKey,
    secretAccessKey: creds.secretAccessKeyKey ?? S3_DEFAULTS.secretAccessKeyKey,
  };
}
