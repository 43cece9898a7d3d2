/** The Prometheus Pushgateway, optionally behind TLS and basic auth (`--web.config.file`). */
import * as fs from 'fs';
import * as http from 'http';
import * as https from 'https';
import * as path from 'path';
import { BaseHandle, freePort, launch, waitReady } from './processes';

export interface PushgatewayHandle extends BaseHandle {
  url: string;
  /** GET /metrics (text exposition format), with the gateway's credentials and CA. */
  metrics(): Promise<string>;
}

/**
 * A user the gateway's web config accepts: `bcrypt` is the bcrypt hash of `password` (the
 * exporter-toolkit's `basic_auth_users` takes hashes only), made once with
 * `python3 -c "import crypt; print(crypt.crypt('gateway-pw-7Rq', crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=16)))"`
 * (cost 4, the lowest Go's bcrypt takes, so that each request is quick).
 */
export const PUSHGATEWAY_TEST_USER = {
  username: 'pusher',
  password: 'gateway-pw-7Rq',
  bcrypt: '$2b$04$28t7tQttV6J8uG5CafOj8.22VCiuaGCNnGMq89k7F/Gpv4rPi9Vxi',
} as const;

/**
 * A second user whose password has every character curl's config syntax escapes or a shell would
 * expand (`"`, `\`, space, `:`, `$(...)`, backquotes); hash made the same way.
 */
export const PUSHGATEWAY_ODD_USER = {
  username: 'odd user',
  password: 'q"u\\o te:$(id) `x`',
  bcrypt: '$2b$04$qYFBKz5e/u/Le7.YL.C8WeDtsAaoktuM4hS11A0ggBO.oiIBty0Hq',
} as const;

export interface PushgatewayOptions {
  readyTimeoutMs?: number;
  /**
   * Serve HTTPS with this certificate and key (`tls_server_config` of the web config); `caFile`
   * signs the certificate (the harness's own requests trust it).
   */
  tls?: { certFile: string; keyFile: string; caFile: string };
  /** Require basic auth of PUSHGATEWAY_TEST_USER or PUSHGATEWAY_ODD_USER (`basic_auth_users` of the web config). */
  basicAuth?: boolean;
}

export function httpGetText(
  url: string,
  opts: { timeoutMs?: number; ca?: Buffer; auth?: string } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const get = url.startsWith('https:') ? https.get : http.get;
    const r = get(
      url,
      {
        timeout: opts.timeoutMs ?? 5000,
        ...(opts.ca ? { ca: opts.ca } : {}),
        ...(opts.auth ? { auth: opts.auth } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    r.on('timeout', () => r.destroy(new Error(`GET ${url}: timeout`)));
    r.on('error', reject);
  });
}

/** The web config file (YAML; JSON is YAML) of `opts`, or undefined without TLS and auth. */
export function webConfig(opts: PushgatewayOptions): string | undefined {
  if (!opts.tls && !opts.basicAuth) return undefined;
  return JSON.stringify(
    {
      ...(opts.tls ? { tls_server_config: { cert_file: opts.tls.certFile, key_file: opts.tls.keyFile } } : {}),
      ...(opts.basicAuth
        ? {
            basic_auth_users: Object.fromEntries(
              [PUSHGATEWAY_TEST_USER, PUSHGATEWAY_ODD_USER].map((u) => [u.username, u.bcrypt]),
            ),
          }
        : {}),
    },
    null,
    2,
  );
}

export async function startPushgateway(opts: PushgatewayOptions = {}): Promise<PushgatewayHandle> {
  const scheme = opts.tls ? 'https' : 'http';
  const ca = opts.tls ? fs.readFileSync(opts.tls.caFile) : undefined;
  const auth = opts.basicAuth ? `${PUSHGATEWAY_TEST_USER.username}:${PUSHGATEWAY_TEST_USER.password}` : undefined;
  const config = webConfig(opts);
  const { params, base } = await launch({
    label: 'pushgateway',
    binary: 'prometheus-pushgateway',
    prepare: async (dir) => {
      if (config !== undefined) fs.writeFileSync(path.join(dir, 'web-config.yml'), config);
      return { port: await freePort() };
    },
    argv: ({ port }, dir) => [
      `--web.listen-address=127.0.0.1:${port}`,
      `--persistence.file=${path.join(dir, 'metrics.store')}`,
      ...(config !== undefined ? [`--web.config.file=${path.join(dir, 'web-config.yml')}`] : []),
    ],
    ready: async (p, { port }) => {
      await waitReady(p, `GET /-/ready (${scheme})`, opts.readyTimeoutMs ?? 10000, async () => {
        return (
          (await httpGetText(`${scheme}://127.0.0.1:${port}/-/ready`, { timeoutMs: 2000, ca, auth })).status === 200
        );
      });
    },
  });
  const url = `${scheme}://127.0.0.1:${params.port}`;
  return {
    ...base,
    url,
    metrics: async () => {
      const r = await httpGetText(`${url}/metrics`, { ca, auth });
      if (r.status !== 200) throw new Error(`GET ${url}/metrics: HTTP ${r.status}`);
      return r.body;
    },
  };
}
