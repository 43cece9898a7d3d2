/**
 * S3 Object Lock in front of s3rver, which has neither versioning nor Object Lock: a proxy on
 * 127.0.0.1 that answers the Object Lock requests itself, as S3 answers them, and passes every
 * other request to s3rver unchanged (its signature stays valid: the same method, path, query and
 * signed headers reach s3rver).
 *
 * What S3 does, and this stand-in with it (Amazon S3 API Reference: PutObjectRetention,
 * GetObjectRetention, DeleteObject, ListObjectVersions, PutObject; "Error responses"):
 * - A bucket with Object Lock keeps versions; here each key has one version, whose id is made when
 *   the key is first seen (the package never writes a key twice).
 * - PutObjectRetention (`PUT /<bucket>/<key>?retention`, body `<Retention><Mode>…</Mode>
 *   <RetainUntilDate>…</RetainUntilDate></Retention>`) on a bucket without Object Lock: 400
 *   `InvalidRequest` "Bucket is missing Object Lock Configuration" (S3's message, as adobe/S3Mock
 *   verified it against S3 and MinIO's `ErrBucketObjectLockNotEnabled` return it); a date not in
 *   the future: 400 `InvalidArgument` "The retain until date must be in the future!" (S3's reply
 *   quoted in versity/versitygw#1734); shortening a lock or leaving COMPLIANCE: 403 `AccessDenied`
 *   "Access Denied"; a missing key: 404 `NoSuchKey`.
 * - PutObject with `x-amz-object-lock-mode` and `x-amz-object-lock-retain-until-date` into a bucket
 *   without Object Lock: the same 400 `InvalidRequest`.
 * - GetObjectRetention: `<Retention>` of the version; none set: 404 `NoSuchObjectLockConfiguration`
 *   "The specified object does not have a ObjectLock configuration".
 * - DeleteObject with `versionId` of a version locked until later: 403 `AccessDenied` "Access Denied
 *   because object protected by object lock." (the message S3 sends, quoted in versity/versitygw#1330
 *   and noobaa-core's implementation); unlocked: the version is deleted (204).
 * - DeleteObject without `versionId` in a bucket with Object Lock only adds a delete marker in S3,
 *   which frees nothing: not modelled here, refused with 501 `NotImplemented` so that code doing it
 *   fails a test instead of passing one.
 * - ListObjectVersions (`GET /<bucket>?versions&prefix=…`): `<ListVersionsResult>` with one
 *   `<Version>` (Key, VersionId, IsLatest, LastModified, ETag, Size, StorageClass) per object.
 * - HeadObject and GetObject of a locked object carry `x-amz-object-lock-mode` and
 *   `x-amz-object-lock-retain-until-date`, and every object of a lock bucket `x-amz-version-id`.
 * The clock is the machine's plus `advance()`: a test moves past a lock without waiting for it.
 */
import * as crypto from 'crypto';
import * as http from 'http';
import * as path from 'path';
import type { AddressInfo } from 'net';
import { awsCliPath, cleanEnv, runOk } from './commands';
import type { S3Handle } from './s3';

export interface ObjectRetention {
  readonly mode: 'GOVERNANCE' | 'COMPLIANCE';
  readonly retainUntil: Date;
}

export interface ObjectLockProxy {
  /** The proxy's endpoint (http://127.0.0.1:<port>), for S3_ENDPOINT and `aws --endpoint-url`. */
  readonly endpoint: string;
  /** The retention of an object, as PutObjectRetention or PutObject set it. */
  retention(bucket: string, key: string): ObjectRetention | undefined;
  /** The aws CLI against the proxy (as `S3Handle.aws` against s3rver); rejects on a non-zero exit. */
  aws(args: readonly string[]): Promise<string>;
  /** Moves the stand-in's clock on (a lock ends without waiting for it). */
  advance(seconds: number): void;
  /** Every Object Lock request answered here, one line each (`PutObjectRetention b/k`, `DeleteObject b/k?versionId`). */
  readonly requests: readonly string[];
  close(): Promise<void>;
}

const XMLNS = 'http://s3.amazonaws.com/doc/2006-03-01/';

const xmlEscape = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function errorXml(code: string, message: string, resource: string): string {
  const id = crypto.randomBytes(8).toString('hex').toUpperCase();
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<Error><Code>${code}</Code><Message>${xmlEscape(message)}</Message><Resource>${xmlEscape(resource)}</Resource>` +
    `<RequestId>${id}</RequestId><HostId>${id}</HostId></Error>`
  );
}

const tag = (xml: string, name: string): string | undefined => new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1];

/** Starts the proxy in front of `s3` (plain http); `lockEnabledBuckets` have Object Lock. */
export async function startObjectLockProxy(
  s3: S3Handle,
  opts: { readonly lockEnabledBuckets: readonly string[] },
): Promise<ObjectLockProxy> {
  const upstream = new URL(s3.endpoint);
  if (upstream.protocol !== 'http:') throw new Error('startObjectLockProxy: only a plain-http s3rver');
  const locked = new Set(opts.lockEnabledBuckets);
  const retentions = new Map<string, ObjectRetention>();
  const versions = new Map<string, string>();
  const requests: string[] = [];
  let offsetMs = 0;
  const now = (): Date => new Date(Date.now() + offsetMs);
  const versionOf = (bucket: string, key: string): string => {
    const id = `${bucket}/${key}`;
    let v = versions.get(id);
    if (v === undefined) {
      v = crypto.createHash('sha256').update(`${id}\0${versions.size}`).digest('base64url').slice(0, 32);
      versions.set(id, v);
    }
    return v;
  };

  const send = (res: http.ServerResponse, status: number, body = '', headers: http.OutgoingHttpHeaders = {}) => {
    res.writeHead(status, {
      ...(body ? { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(body) } : {}),
      ...headers,
    });
    res.end(body);
  };
  const fail = (res: http.ServerResponse, status: number, code: string, message: string, resource: string) =>
    send(res, status, errorXml(code, message, resource));

  const readBody = (req: http.IncomingMessage): Promise<Buffer> =>
    new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => resolve(Buffer.concat(chunks)));
      req.on('error', reject);
    });

  /** Passes the request to s3rver; `extra` headers are added to its answer. */
  const forward = (
    req: http.IncomingMessage,
    res: http.ServerResponse,
    body: Buffer | undefined,
    extra: (status: number) => http.OutgoingHttpHeaders = () => ({}),
  ): Promise<number> =>
    new Promise((resolve, reject) => {
      const headers = { ...req.headers };
      delete headers.expect; // never signed (botocore leaves it out of SigV4)
      const up = http.request(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers },
        (r) => {
          const status = r.statusCode ?? 502;
          res.writeHead(status, { ...r.headers, ...extra(status) });
          r.pipe(res);
          r.on('end', () => resolve(status));
          r.on('error', reject);
        },
      );
      up.on('error', reject);
      if (body) up.end(body);
      else req.pipe(up);
    });

  const objectExists = async (bucket: string, key: string): Promise<boolean> =>
    (await s3.listObjects(bucket, key)).some((o) => o.key === key);

  const lockHeaders = (bucket: string, key: string): http.OutgoingHttpHeaders => {
    if (!locked.has(bucket)) return {};
    const r = retentions.get(`${bucket}/${key}`);
    return {
      'x-amz-version-id': versionOf(bucket, key),
      ...(r
        ? {
            'x-amz-object-lock-mode': r.mode,
            'x-amz-object-lock-retain-until-date': r.retainUntil.toISOString().replace(/\.\d{3}Z$/, 'Z'),
          }
        : {}),
    };
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const [bucket = '', ...rest] = url.pathname.slice(1).split('/');
    const key = rest.map(decodeURIComponent).join('/');
    const resource = url.pathname;
    const q = url.searchParams;
    const method = req.method ?? 'GET';

    if (key !== '' && q.has('retention')) {
      if (method === 'PUT') {
        requests.push(`PutObjectRetention ${bucket}/${key}`);
        const xml = (await readBody(req)).toString('utf8');
        if (!locked.has(bucket))
          return fail(res, 400, 'InvalidRequest', 'Bucket is missing Object Lock Configuration', resource);
        if (!(await objectExists(bucket, key)))
          return fail(res, 404, 'NoSuchKey', 'The specified key does not exist.', resource);
        const mode = tag(xml, 'Mode');
        const until = new Date(tag(xml, 'RetainUntilDate') ?? NaN);
        if ((mode !== 'GOVERNANCE' && mode !== 'COMPLIANCE') || Number.isNaN(until.getTime()))
          return fail(
            res,
            400,
            'MalformedXML',
            'The XML you provided was not well-formed or did not validate against our published schema',
            resource,
          );
        if (until.getTime() <= now().getTime())
          return fail(res, 400, 'InvalidArgument', 'The retain until date must be in the future!', resource);
        const earlier = retentions.get(`${bucket}/${key}`);
        if (
          earlier &&
          earlier.retainUntil.getTime() > now().getTime() &&
          (until.getTime() < earlier.retainUntil.getTime() || (earlier.mode === 'COMPLIANCE' && mode !== 'COMPLIANCE'))
        )
          return fail(res, 403, 'AccessDenied', 'Access Denied', resource);
        retentions.set(`${bucket}/${key}`, { mode, retainUntil: until });
        return send(res, 200);
      }
      if (method === 'GET') {
        requests.push(`GetObjectRetention ${bucket}/${key}`);
        if (!locked.has(bucket))
          return fail(res, 400, 'InvalidRequest', 'Bucket is missing Object Lock Configuration', resource);
        const r = retentions.get(`${bucket}/${key}`);
        if (!r)
          return fail(
            res,
            404,
            'NoSuchObjectLockConfiguration',
            'The specified object does not have a ObjectLock configuration',
            resource,
          );
        return send(
          res,
          200,
          `<?xml version="1.0" encoding="UTF-8"?>\n<Retention xmlns="${XMLNS}"><Mode>${r.mode}</Mode>` +
            `<RetainUntilDate>${r.retainUntil.toISOString()}</RetainUntilDate></Retention>`,
        );
      }
    }

    if (key === '' && method === 'GET' && q.has('versions')) {
      requests.push(`ListObjectVersions ${bucket}?prefix=${q.get('prefix') ?? ''}`);
      const objects = await s3.listObjects(bucket, q.get('prefix') ?? undefined);
      const entries = objects.map(
        (o) =>
          `<Version><Key>${xmlEscape(o.key)}</Key><VersionId>${locked.has(bucket) ? versionOf(bucket, o.key) : 'null'}</VersionId>` +
          `<IsLatest>true</IsLatest><LastModified>${o.lastModified.toISOString()}</LastModified>` +
          `<ETag>&quot;${o.etag}&quot;</ETag><Size>${o.size}</Size><StorageClass>STANDARD</StorageClass></Version>`,
      );
      return send(
        res,
        200,
        `<?xml version="1.0" encoding="UTF-8"?>\n<ListVersionsResult xmlns="${XMLNS}"><Name>${xmlEscape(bucket)}</Name>` +
          `<Prefix>${xmlEscape(q.get('prefix') ?? '')}</Prefix><KeyMarker></KeyMarker><VersionIdMarker></VersionIdMarker>` +
          `<MaxKeys>1000</MaxKeys><IsTruncated>false</IsTruncated>${entries.join('')}</ListVersionsResult>`,
      );
    }

    if (key !== '' && method === 'DELETE' && locked.has(bucket)) {
      const versionId = q.get('versionId');
      requests.push(`DeleteObject ${bucket}/${key}${versionId === null ? '' : '?versionId'}`);
      if (versionId === null)
        return fail(
          res,
          501,
          'NotImplemented',
          'stand-in: delete markers are not modelled; delete a version by its id',
          resource,
        );
      if (versionId !== versionOf(bucket, key) || !(await objectExists(bucket, key)))
        return fail(res, 404, 'NoSuchVersion', 'The specified version does not exist.', resource);
      const r = retentions.get(`${bucket}/${key}`);
      if (r && r.retainUntil.getTime() > now().getTime())
        return fail(res, 403, 'AccessDenied', 'Access Denied because object protected by object lock.', resource);
      await s3.deleteObject(bucket, key);
      retentions.delete(`${bucket}/${key}`);
      versions.delete(`${bucket}/${key}`);
      return send(res, 204, '', { 'x-amz-version-id': versionId });
    }

    if (key !== '' && method === 'PUT' && req.headers['x-amz-object-lock-mode'] !== undefined) {
      requests.push(`PutObject+lock ${bucket}/${key}`);
      if (!locked.has(bucket)) {
        await readBody(req);
        return fail(res, 400, 'InvalidRequest', 'Bucket is missing Object Lock Configuration', resource);
      }
      const mode = String(req.headers['x-amz-object-lock-mode']);
      const until = new Date(String(req.headers['x-amz-object-lock-retain-until-date']));
      const status = await forward(req, res, undefined, () => ({ 'x-amz-version-id': versionOf(bucket, key) }));
      if (status === 200 && (mode === 'GOVERNANCE' || mode === 'COMPLIANCE'))
        retentions.set(`${bucket}/${key}`, { mode, retainUntil: until });
      return;
    }

    const objectRequest = key !== '' && ['GET', 'HEAD', 'PUT'].includes(method) && [...q.keys()].length === 0;
    await forward(req, res, undefined, (status) => (objectRequest && status < 300 ? lockHeaders(bucket, key) : {}));
  };

  const server = http.createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) fail(res, 500, 'InternalError', String(e), req.url ?? '');
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    retention: (bucket, key) => retentions.get(`${bucket}/${key}`),
    aws: (args) =>
      runOk(awsCliPath(), ['--endpoint-url', `http://127.0.0.1:${port}`, ...args], {
        env: cleanEnv({ ...s3.awsEnv(), HOME: path.dirname(s3.awsEnv().AWS_CONFIG_FILE) }),
        timeoutMs: 60000,
      }),
    advance: (seconds) => {
      offsetMs += seconds * 1000;
    },
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
