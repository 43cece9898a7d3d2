/** The Prometheus Pushgateway. */
import * as http from 'http';
import * as path from 'path';
import { BaseHandle, freePort, launch, waitReady } from './processes';


export interface PushgatewayHandle extends BaseHandle {
  url: string;
  /** GET /metrics (text exposition format). */
  metrics(): Promise<string>;
}

function httpGetText(url: string, timeoutMs = 5000): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const r = http.get(url, { timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    r.on('timeout', () => r.destroy(new Error(`GET ${url}: timeout`)));
    r.on('error', reject);
  });
}

export async function startPushgateway(opts: { readyTimeoutMs?: number } = {}): Promise<PushgatewayHandle> {
  const { params, base } = await launch({
    label: 'pushgateway',
    binary: 'prometheus-pushgateway',
    prepare: async () => ({ port: await freePort() }),
    argv: ({ port }, dir) => [
      `--web.listen-address=127.0.0.1:${port}`,
      `--persistence.file=${path.join(dir, 'metrics.store')}`,
    ],
    ready: async (p, { port }) => {
      await waitReady(p, 'GET /-/ready', opts.readyTimeoutMs ?? 10000, async () => {
        return (await httpGetText(`http://127.0.0.1:${port}/-/ready`, 2000)).status === 200;
      });
    },
  });
  const url = `http://127.0.0.1:${params.port}`;
  return {
    ...base,
    url,
    metrics: async () => {
      const r = await httpGetText(`${url}/metrics`);
      if (r.status !== 200) throw new Error(`GET ${url}/metrics: HTTP ${r.status}`);
      return r.body;
    },
  };
}
