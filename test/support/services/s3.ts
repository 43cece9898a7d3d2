/** An S3 server (s3rver) with a small signed (AWS Signature V4) client and the aws CLI set up for it. */
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as fsp from 'fs/promises';
import * as http from 'http';
import * as https from 'https';
import * as path from 'path';
import { awsCliPath, cleanEnv, runOk } from './commands';
import { BaseHandle, freePort, launch, waitReady } from './processes';

export interface S3Object {
  key: string;
  size: number;
  lastModified: Date;
  etag: string;
}

export interface S3Handle extends BaseHandle {
  endpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  /** s3rver's data dir (bucket/key._S3rver_object files). */
  dataDir: string;
  /** Env for an AWS client talking to this server (credentials, region, empty config files; AWS_CA_BUNDLE only with TLS: its CA). */
  awsEnv(): Record<string, string>;
  /** Runs the aws CLI (awsCliPath()) with awsEnv() and --endpoint-url; rejects on non-zero exit. */
  aws(args: string[], input?: string | Buffer): Promise<string>;
  listObjects(bucket: string, prefix?: string): Promise<S3Object[]>;
  getObject(bucket: string, key: string): Promise<Buffer>;
  putObject(bucket: string, key: string, body: string | Buffer): Promise<void>;
  deleteObject(bucket: string, key: string): Promise<void>;
  createBucket(bucket: string): Promise<void>;
  /** Backdates an object (s3rver reports the object file's mtime as LastModified). */
  setLastModified(bucket: string, key: string, when: Date): Promise<void>;
}

export function s3rverScript(): string {
  let pkgJson: string;
  try {
    pkgJson = require.resolve('s3rver/package.json');
  } catch {
    throw new Error('s3rver is not installed: run `npm install` (s3rver is a devDependency of this package)');
  }
  return path.join(path.dirname(pkgJson), 'bin', 's3rver.js');
}

const rfc3986 = (s: string): string =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());

const sha256hex = (b: string | Buffer): string => crypto.createHash('sha256').update(b).digest('hex');
const hmac = (k: string | Buffer, s: string): Buffer => crypto.createHmac('sha256', k).update(s).digest();

/**
 * AWS Signature V4 for a request (header-based). Exported for a test against AWS's documented example.
 * `path` is the already-encoded canonical URI; `query` values are raw.
 */
export function signV4(req: {
  method: string;
  host: string;
  path: string;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  payloadHash: string;
  amzDate: string; // YYYYMMDDTHHMMSSZ
  region: string;
  service: string;
  accessKeyId: string;
  secretAccessKey: string;
}): { authorization: string; headers: Record<string, string> } {
  const headers: Record<string, string> = {
    ...(req.headers ?? {}),
    host: req.host,
    'x-amz-content-sha256': req.payloadHash,
    'x-amz-date': req.amzDate,
  };
  const lower = Object.fromEntries(
    Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v.trim().replace(/\s+/g, ' ')]),
  );
  const names = Object.keys(lower).sort();
  const canonicalQuery = Object.entries(req.query ?? {})
    .map(([k, v]) => [rfc3986(k), rfc3986(v)])
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const canonicalRequest = [
    req.method,
    req.path,
    canonicalQuery,
    names.map((n) => `${n}:${lower[n]}\n`).join(''),
    names.join(';'),
    req.payloadHash,
  ].join('\n');
  const date = req.amzDate.slice(0, 8);
  const scope = `${date}/${req.region}/${req.service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', req.amzDate, scope, sha256hex(canonicalRequest)].join('\n');
  const kSigning = hmac(hmac(hmac(hmac('AWS4' + req.secretAccessKey, date), req.region), req.service), 'aws4_request');
  const signature = crypto.createHmac('sha256', kSigning).update(stringToSign).digest('hex');
  const authorization = `AWS4-HMAC-SHA256 Credential=${req.accessKeyId}/${scope}, SignedHeaders=${names.join(';')}, Signature=${signature}`;
  return { authorization, headers: { ...headers, authorization } };
}

function xmlDecode(s: string): string {
  return s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&#x([0-9a-f]+);/gi, (_, h: string) => String.fromCodePoint(parseInt(h, 16)))
    .replace(/&#(\d+);/g, (_, d: string) => String.fromCodePoint(parseInt(d, 10)))
    .replace(/&amp;/g, '&');
}
const xmlTag = (xml: string, tag: string): string | undefined => {
  const m = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(xml);
  return m ? xmlDecode(m[1]) : undefined;
};

/** What a signed client needs: the server's address, its credentials, and where to read its log on an error. */
export interface S3ClientOptions {
  port: number;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Trust this CA (https) instead of plain http. */
  ca?: Buffer;
  /** The server's name and log tail, for error messages. */
  label: string;
  logTail: () => string;
}

export interface S3Response {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** A small signed (SigV4, path-style) S3 client for the harness's own requests to a loopback server. */
export function s3Client(o: S3ClientOptions) {
  const { port, region, accessKeyId, secretAccessKey, ca } = o;
  const request = (
    method: string,
    bucket: string,
    key: string | undefined,
    query: Record<string, string> = {},
    body: Buffer = Buffer.alloc(0),
    extraHeaders: Record<string, string> = {},
  ): Promise<S3Response> => {
    const uriPath = '/' + rfc3986(bucket) + (key !== undefined ? '/' + key.split('/').map(rfc3986).join('/') : '');
    const qs = Object.entries(query)
      .map(([k, v]) => `${rfc3986(k)}=${rfc3986(v)}`)
      .join('&');
    const amzDate = new Date()
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d{3}/, '');
    const { headers } = signV4({
      method,
      host: `127.0.0.1:${port}`,
      path: uriPath,
      query,
      headers: extraHeaders,
      payloadHash: sha256hex(body),
      amzDate,
      region,
      service: 's3',
      accessKeyId,
      secretAccessKey,
    });
    return new Promise((resolve, reject) => {
      const r = (ca ? https : http).request(
        {
          ...(ca ? { ca } : {}),
          host: '127.0.0.1',
          port,
          method,
          path: uriPath + (qs ? '?' + qs : ''),
          headers: { ...headers, 'content-length': String(body.length) },
          timeout: 30000,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
          );
          res.on('error', reject);
        },
      );
      r.on('timeout', () => r.destroy(new Error(`S3 ${method} ${uriPath}: timeout`)));
      r.on('error', reject);
      r.end(body);
    });
  };
  const check = (what: string, r: S3Response, ok: number[] = [200]) => {
    if (!ok.includes(r.status)) {
      throw new Error(
        `S3 ${what}: HTTP ${r.status} ${r.body.toString('utf8').slice(0, 1000)}\n--- ${o.label} log tail ---\n${o.logTail()}`,
      );
    }
    return r;
  };

  const listObjects = async (bucket: string, prefix?: string): Promise<S3Object[]> => {
    const result: S3Object[] = [];
    let token: string | undefined;
    for (;;) {
      const q: Record<string, string> = { 'list-type': '2' };
      if (prefix) q.prefix = prefix;
      if (token) q['continuation-token'] = token;
      const xml = check(`ListObjectsV2 ${bucket}`, await request('GET', bucket, undefined, q)).body.toString('utf8');
      for (const m of xml.matchAll(/<Contents>([\s\S]*?)<\/Contents>/g)) {
        result.push({
          key: xmlTag(m[1], 'Key') ?? '',
          size: Number(xmlTag(m[1], 'Size') ?? NaN),
          lastModified: new Date(xmlTag(m[1], 'LastModified') ?? NaN),
          etag: (xmlTag(m[1], 'ETag') ?? '').replace(/"/g, ''),
        });
      }
      if (xmlTag(xml, 'IsTruncated') !== 'true') break;
      token = xmlTag(xml, 'NextContinuationToken');
      if (!token) break;
    }
    return result.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  };

  return {
    request,
    check,
    listObjects,
    getObject: async (bucket: string, key: string) =>
      check(`GetObject ${bucket}/${key}`, await request('GET', bucket, key)).body,
    putObject: async (bucket: string, key: string, body: string | Buffer) => {
      check(
        `PutObject ${bucket}/${key}`,
        await request('PUT', bucket, key, {}, Buffer.isBuffer(body) ? body : Buffer.from(body)),
      );
    },
    deleteObject: async (bucket: string, key: string) => {
      check(`DeleteObject ${bucket}/${key}`, await request('DELETE', bucket, key), [200, 204]);
    },
    createBucket: async (bucket: string) => {
      check(`CreateBucket ${bucket}`, await request('PUT', bucket, undefined));
    },
  };
}

/** The HTTP status of a GET to a loopback port (HTTPS when `ca` is given); rejects on a connection error or after 2 s. */
export function httpStatus(port: number, urlPath: string, ca?: Buffer): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const r = (ca ? https : http).get(
      { host: '127.0.0.1', port, path: urlPath, timeout: 2000, ...(ca ? { ca } : {}) },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    r.on('timeout', () => r.destroy(new Error('timeout')));
    r.on('error', reject);
  });
}

/**
 * The environment of an aws CLI that talks to a test S3 server with these credentials: empty config and
 * credentials files of its own in `dir` (never the machine's), no instance metadata, no pager.
 */
export async function awsCliEnv(
  dir: string,
  creds: { accessKeyId: string; secretAccessKey: string; region: string },
  caFile?: string,
): Promise<() => Record<string, string>> {
  await fsp.mkdir(dir, { recursive: true });
  return () => {
    const cfg = path.join(dir, 'config');
    const cred = path.join(dir, 'credentials');
    for (const f of [cfg, cred]) if (!fs.existsSync(f)) fs.writeFileSync(f, '');
    return {
      AWS_ACCESS_KEY_ID: creds.accessKeyId,
      AWS_SECRET_ACCESS_KEY: creds.secretAccessKey,
      AWS_DEFAULT_REGION: creds.region,
      AWS_REGION: creds.region,
      AWS_CONFIG_FILE: cfg,
      AWS_SHARED_CREDENTIALS_FILE: cred,
      AWS_EC2_METADATA_DISABLED: 'true',
      AWS_PAGER: '',
      ...(caFile ? { AWS_CA_BUNDLE: caFile } : {}),
    };
  };
}

export interface S3Options {
  buckets?: string[];
  readyTimeoutMs?: number;
  /**
   * Serve HTTPS (s3rver's --cert/--key) with a certificate `caFile` signs: the endpoint is then
   * https://127.0.0.1:<port>, and the harness's own requests and aws() trust `caFile`.
   */
  tls?: { certFile: string; keyFile: string; caFile: string };
}

export async function startS3(opts: S3Options = {}): Promise<S3Handle> {
  const script = s3rverScript();
  const accessKeyId = 'S3RVER';
  const secretAccessKey = 'S3RVER';
  const region = 'us-east-1';
  for (const b of opts.buckets ?? []) {
    if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(b))
      throw new Error(`startS3: invalid bucket name ${JSON.stringify(b)}`);
  }
  const ca = opts.tls ? fs.readFileSync(opts.tls.caFile) : undefined;
  const { params, base, proc } = await launch({
    label: 's3rver',
    binary: process.execPath,
    prepare: async (dir) => ({ port: await freePort(), dataDir: path.join(dir, 'data') }),
    argv: ({ port, dataDir }) => [
      // s3rver's ListObjectsV2 continuation tokens use DES, which Node 20's OpenSSL 3 only has in the legacy provider
      '--openssl-legacy-provider',
      script,
      '-d',
      dataDir,
      '-a',
      '127.0.0.1',
      '-p',
      String(port),
      ...(opts.buckets ?? []).flatMap((b) => ['--configure-bucket', b]),
      ...(opts.tls ? ['--cert', opts.tls.certFile, '--key', opts.tls.keyFile] : []),
    ],
    env: (dir) => cleanEnv({ HOME: dir }),
    ready: async (p, { port }) => {
      await waitReady(
        p,
        `HTTP GET http://127.0.0.1:${port}/`,
        opts.readyTimeoutMs ?? 15000,
        async () => (await httpStatus(port, '/', ca)) > 0,
      );
    },
  });
  const { port, dataDir } = params;
  const endpoint = `${ca ? 'https' : 'http'}://127.0.0.1:${port}`;

  const client = s3Client({
    port,
    region,
    accessKeyId,
    secretAccessKey,
    ca,
    label: 's3rver',
    logTail: () => proc.log.tail(10),
  });

  const tmpFiles = path.join(base.tmpDir, 'aws');
  const awsEnv = await awsCliEnv(tmpFiles, { accessKeyId, secretAccessKey, region }, opts.tls?.caFile);

  return {
    ...base,
    endpoint,
    accessKeyId,
    secretAccessKey,
    region,
    dataDir,
    awsEnv,
    aws: (args, input) =>
      runOk(awsCliPath(), ['--endpoint-url', endpoint, ...args], {
        env: cleanEnv({ ...awsEnv(), HOME: tmpFiles }), // cleanEnv never carries the machine's AWS_CA_BUNDLE
        input,
        timeoutMs: 60000,
      }),
    listObjects: client.listObjects,
    getObject: client.getObject,
    putObject: client.putObject,
    deleteObject: client.deleteObject,
    createBucket: client.createBucket,
    setLastModified: async (bucket, key, when) => {
      const parts = key.split('/');
      const last = parts.pop()!;
      const file = path.join(dataDir, bucket, ...parts, `${last}._S3rver_object`);
      await fsp.utimes(file, when, when);
    },
  };
}
