/**
 * moto's standalone server (PyPI moto[server], pinned in scripts/install-moto.sh): a third-party S3
 * with versioning and Object Lock, for the tests of the lock, of deletes by version id and of copies
 * into locked buckets. s3rver (s3.ts) stays where plain S3 is enough.
 *
 * What this moto answers (moto/s3/models.py, responses.py of the pinned version), which the tests rely on:
 * - CreateBucket with `x-amz-bucket-object-lock-enabled: true` turns on Object Lock and versioning;
 * - PutObjectRetention on a bucket without Object Lock: 400 InvalidRequest "Bucket is missing
 *   ObjectLockConfiguration";
 * - DeleteObject with a versionId of a locked version: 403 AccessDenied "Access Denied" (GOVERNANCE
 *   gives way to `x-amz-bypass-governance-retention`, COMPLIANCE never); without a versionId, in a
 *   versioned bucket: a delete marker, the version stays;
 * - HeadObject: the version's `x-amz-object-lock-mode` and `x-amz-object-lock-retain-until-date`.
 * And what it does not: it has no GetObjectRetention (a GET ?retention returns the object), and it
 * neither refuses a retain-until date in the past nor a shorter lock or COMPLIANCE to GOVERNANCE.
 */
import { execFileSync } from 'child_process';
import * as path from 'path';
import { awsCliPath, cleanEnv, runOk } from './commands';
import { BaseHandle, freePort, launch, waitReady } from './processes';
import { S3Object, S3Response, awsCliEnv, httpStatus, s3Client } from './s3';

const INSTALL = 'scripts/install-moto.sh';

/** The bin dir of the installed moto (scripts/install-moto.sh --dir), or an Error saying how to install it. */
export function motoBinDir(): string {
  const root = path.resolve(__dirname, '../../..');
  try {
    return execFileSync('/bin/sh', [path.join(root, INSTALL), '--dir'], {
      encoding: 'utf8',
      stdio: 'pipe',
      env: process.env, // the test's own (jest gives child_process the process's original env otherwise)
    }).trim();
  } catch (e) {
    const why = String((e as { stderr?: string }).stderr ?? (e as Error).message).trim();
    throw new Error(
      `moto's S3 server is not installed (${why}): run ${INSTALL} (it needs python3 with venv, and PyPI)`,
    );
  }
}

export interface ObjectRetention {
  readonly mode: 'GOVERNANCE' | 'COMPLIANCE';
  readonly retainUntil: Date;
}

export interface ObjectVersion {
  readonly key: string;
  readonly versionId: string;
  readonly isLatest: boolean;
  /** A delete marker (ListObjectVersions' <DeleteMarker>), not a version holding data. */
  readonly deleteMarker: boolean;
}

export interface MotoHandle extends BaseHandle {
  /** http://127.0.0.1:<port>, for S3_ENDPOINT and `aws --endpoint-url`. */
  readonly endpoint: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly region: string;
  /** Env for an AWS client talking to this server (credentials, region, empty config files). */
  awsEnv(): Record<string, string>;
  /** The aws CLI (awsCliPath()) against this server, without the machine's AWS_CA_BUNDLE; rejects on a non-zero exit. */
  aws(args: readonly string[], input?: string | Buffer): Promise<string>;
  /** A bucket; `objectLock`: created with Object Lock (and so versioning) enabled. */
  createBucket(bucket: string, opts?: { objectLock?: boolean }): Promise<void>;
  /** The current objects (ListObjectsV2). */
  listObjects(bucket: string, prefix?: string): Promise<S3Object[]>;
  /** Every version and delete marker (ListObjectVersions), in the server's order. */
  listObjectVersions(bucket: string, prefix?: string): Promise<ObjectVersion[]>;
  getObject(bucket: string, key: string): Promise<Buffer>;
  putObject(bucket: string, key: string, body: string | Buffer): Promise<void>;
  /** The lock of an object's current version (or of `versionId`) as HeadObject reports it; undefined when none. */
  retention(bucket: string, key: string, versionId?: string): Promise<ObjectRetention | undefined>;
  /** The requests the server logged so far, one `METHOD /path?query STATUS` each (werkzeug's request log). */
  requests(): string[];
}

// werkzeug colours the request line of an error answer
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');

export async function startMoto(
  opts: { buckets?: { name: string; objectLock?: boolean }[] } = {},
): Promise<MotoHandle> {
  const bin = path.join(motoBinDir(), 'moto_server');
  const accessKeyId = 'moto-test-key';
  const secretAccessKey = 'moto-test-secret';
  const region = 'us-east-1';
  const { params, base, proc } = await launch({
    label: 'moto',
    binary: bin,
    prepare: async () => ({ port: await freePort() }),
    argv: ({ port }) => ['-H', '127.0.0.1', '-p', String(port)],
    env: (dir) => cleanEnv({ HOME: dir, PYTHONUNBUFFERED: '1' }),
    ready: async (p, { port }) => {
      await waitReady(
        p,
        `HTTP GET http://127.0.0.1:${port}/moto-api/`,
        30000,
        async () => (await httpStatus(port, '/moto-api/')) === 200,
      );
    },
  });
  const { port } = params;
  const endpoint = `http://127.0.0.1:${port}`;
  const client = s3Client({
    port,
    region,
    accessKeyId,
    secretAccessKey,
    label: 'moto',
    logTail: () => proc.log.tail(10),
  });

  const tmpFiles = path.join(base.tmpDir, 'aws');
  const awsEnv = await awsCliEnv(tmpFiles, { accessKeyId, secretAccessKey, region });

  const createBucket = async (bucket: string, o: { objectLock?: boolean } = {}): Promise<void> => {
    const r = await client.request(
      'PUT',
      bucket,
      undefined,
      {},
      Buffer.alloc(0),
      o.objectLock ? { 'x-amz-bucket-object-lock-enabled': 'true' } : {},
    );
    client.check(`CreateBucket ${bucket}`, r);
  };
  for (const b of opts.buckets ?? []) await createBucket(b.name, b);

  const xmlText = (xml: string, tag: string): string | undefined =>
    new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(xml)?.[1];
  const unescape = (s: string): string =>
    s
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&apos;/g, "'")
      .replace(/&amp;/g, '&');

  const listObjectVersions = async (bucket: string, prefix?: string): Promise<ObjectVersion[]> => {
    const out: ObjectVersion[] = [];
    let marker: Record<string, string> = {};
    for (;;) {
      const q: Record<string, string> = { versions: '', ...(prefix ? { prefix } : {}), ...marker };
      const r: S3Response = client.check(
        `ListObjectVersions ${bucket}`,
        await client.request('GET', bucket, undefined, q),
      );
      const xml = r.body.toString('utf8');
      for (const m of xml.matchAll(/<(Version|DeleteMarker)>([\s\S]*?)<\/\1>/g)) {
        out.push({
          key: unescape(xmlText(m[2], 'Key') ?? ''),
          versionId: xmlText(m[2], 'VersionId') ?? '',
          isLatest: xmlText(m[2], 'IsLatest') === 'true',
          deleteMarker: m[1] === 'DeleteMarker',
        });
      }
      if (xmlText(xml, 'IsTruncated') !== 'true') break;
      marker = {
        'key-marker': unescape(xmlText(xml, 'NextKeyMarker') ?? ''),
        'version-id-marker': xmlText(xml, 'NextVersionIdMarker') ?? '',
      };
    }
    return out;
  };

  const retention = async (bucket: string, key: string, versionId?: string): Promise<ObjectRetention | undefined> => {
    const r = client.check(
      `HeadObject ${bucket}/${key}`,
      await client.request('HEAD', bucket, key, versionId ? { versionId } : {}),
    );
    const mode = r.headers['x-amz-object-lock-mode'];
    const until = r.headers['x-amz-object-lock-retain-until-date'];
    if (mode === undefined && until === undefined) return undefined;
    if ((mode !== 'GOVERNANCE' && mode !== 'COMPLIANCE') || typeof until !== 'string')
      throw new Error(`HeadObject ${bucket}/${key}: lock mode ${String(mode)}, retain-until ${String(until)}`);
    return { mode, retainUntil: new Date(until) };
  };

  return {
    ...base,
    endpoint,
    accessKeyId,
    secretAccessKey,
    region,
    awsEnv,
    aws: (args, input) =>
      runOk(awsCliPath(), ['--endpoint-url', endpoint, ...args], {
        env: cleanEnv({ ...awsEnv(), HOME: tmpFiles }), // cleanEnv never carries the machine's AWS_CA_BUNDLE
        input,
        timeoutMs: 60000,
      }),
    createBucket,
    listObjects: client.listObjects,
    listObjectVersions,
    getObject: client.getObject,
    putObject: client.putObject,
    retention,
    requests: () =>
      [
        ...proc.log
          .text()
          .replace(ANSI, '')
          .matchAll(/"([A-Z]+) (\S+) HTTP\/[\d.]+" (\d{3})/g),
      ].map((m) => `${m[1]} ${m[2]} ${m[3]}`),
  };
}
