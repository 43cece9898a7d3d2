/** A real Prometheus (Debian's `prometheus`) scraping given targets every second, for queries in tests. */
import * as fs from 'fs';
import * as path from 'path';
import { BaseHandle, freePort, launch, waitReady } from './processes';
import { httpGetText } from './pushgateway';

export interface PrometheusHandle extends BaseHandle {
  url: string;
  /** GET /api/v1/query: the result vector of an instant query (throws on an error status). */
  query(expr: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]>;
  /** Waits until a scrape of every target has happened after this call (up == 1 with a newer timestamp). */
  scraped(timeoutMs?: number): Promise<void>;
}

/** Prometheus with one scrape job `pushgateway` (honor_labels, as the Pushgateway's docs ask) over `targets` (host:port). */
export async function startPrometheus(targets: readonly string[]): Promise<PrometheusHandle> {
  const { params, base } = await launch({
    label: 'prometheus',
    binary: 'prometheus',
    prepare: async (dir) => {
      const config = [
        'global:',
        '  scrape_interval: 1s',
        '  evaluation_interval: 1s',
        'scrape_configs:',
        '  - job_name: pushgateway',
        '    honor_labels: true',
        '    static_configs:',
        `      - targets: [${targets.map((t) => JSON.stringify(t)).join(', ')}]`,
        '',
      ].join('\n');
      fs.writeFileSync(path.join(dir, 'prometheus.yml'), config);
      return { port: await freePort() };
    },
    argv: ({ port }, dir) => [
      `--config.file=${path.join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${path.join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    ready: async (p, { port }) => {
      await waitReady(
        p,
        'GET /-/ready',
        30000,
        async () => (await httpGetText(`http://127.0.0.1:${port}/-/ready`, { timeoutMs: 2000 })).status === 200,
      );
    },
  });
  const url = `http://127.0.0.1:${params.port}`;
  const query = async (expr: string) => {
    const r = await httpGetText(`${url}/api/v1/query?query=${encodeURIComponent(expr)}`, { timeoutMs: 10000 });
    const body = JSON.parse(r.body) as {
      status: string;
      error?: string;
      data?: { resultType: string; result: { metric: Record<string, string>; value: [number, string] }[] };
    };
    if (r.status !== 200 || body.status !== 'success')
      throw new Error(`query ${expr}: HTTP ${r.status} ${body.error ?? r.body}`);
    if (body.data!.resultType !== 'vector') throw new Error(`query ${expr}: a ${body.data!.resultType}, not a vector`);
    return body.data!.result;
  };
  return {
    ...base,
    url,
    query,
    scraped: async (timeoutMs = 30000) => {
      const since = Date.now() / 1000;
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const up = await query('timestamp(up{job="pushgateway"})');
        if (up.length === targets.length && up.every((s) => Number(s.value[1]) > since)) return;
        if (Date.now() > deadline)
          throw new Error(`prometheus: no scrape of ${targets.join(', ')} within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 250));
      }
    },
  };
}
