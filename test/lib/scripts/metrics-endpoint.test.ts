// metrics.sh against a Pushgateway behind TLS and basic auth (its --web.config.file), and behind a proxy that
// wants a bearer token: the credentials and the CA reach curl through its config on fd 3, escaped for curl's
// config syntax, never through its command line; refusals are one warning naming what to check.
import * as fs from 'fs';
import * as http from 'http';
import * as os from 'os';
import * as path from 'path';
import {
  PUSHGATEWAY_ODD_USER,
  PUSHGATEWAY_TEST_USER,
  PushgatewayHandle,
  freePort,
  generateEtcdPki,
  requireCommands,
  runCommand,
  startPushgateway,
  stopAll,
} from '../../support/services';

const SCRIPTS = path.join(__dirname, '..', '..', '..', 'lib', 'scripts');
const TOKEN = 'tok-3f9 "quoted" \\ end';

let dir: string;
let caFile: string;
let secured: PushgatewayHandle;
let plain: PushgatewayHandle;
let proxyUrl: string;
let proxy: http.Server;
/** The command lines curl was started with (what /proc/<pid>/cmdline shows). */
let curlArgv: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bcj-metrics-endpoint-'));
  const pki = await generateEtcdPki(path.join(dir, 'pki'));
  caFile = path.join(pki, 'ca.crt');
  [secured, plain] = await Promise.all([
    startPushgateway({
      tls: { certFile: path.join(pki, 'server.crt'), keyFile: path.join(pki, 'server.key'), caFile },
      basicAuth: true,
    }),
    startPushgateway(),
  ]);
  // An authenticating proxy in front of the plain gateway: 401 unless the bearer token is right.
  proxy = http.createServer((req, res) => {
    if (req.headers.authorization !== `Bearer ${TOKEN}`) {
      res.writeHead(401).end('Unauthorized\n');
      return;
    }
    const target = new URL(plain.url);
    const forward = http.request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { 'content-type': req.headers['content-type'] ?? 'text/plain' },
      },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      },
    );
    req.pipe(forward);
  });
  const port = await freePort();
  await new Promise<void>((resolve) => proxy.listen(port, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${port}`;
  const bin = path.join(dir, 'bin');
  fs.mkdirSync(bin);
  curlArgv = path.join(dir, 'curl-argv');
  fs.writeFileSync(
    path.join(bin, 'curl'),
    ['#!/bin/sh', `printf '%s\\n' "$*" >>'${curlArgv}'`, `exec '${requireCommands('curl').curl}' "$@"`, ''].join('\n'),
    { mode: 0o755 },
  );
  process.env.BCJ_TEST_CURL_BIN = bin;
}, 60_000);

afterAll(async () => {
  await new Promise((resolve) => proxy.close(resolve));
  await stopAll();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** push_metrics after common.sh and metrics.sh, with the run's identity and `env`; the curl recorder first on PATH. */
async function push(
  url: string,
  target: string,
  env: Record<string, string>,
  shell: string[] = ['/bin/sh'],
): Promise<{ code: number | null; stderr: string }> {
  const script = [
    fs.readFileSync(path.join(SCRIPTS, 'common.sh'), 'utf8'),
    fs.readFileSync(path.join(SCRIPTS, 'metrics.sh'), 'utf8'),
    'push_metrics success 3 42',
  ].join('\n');
  // asynchronously: the bearer-token proxy answers from this process
  const r = await runCommand(shell[0], [...shell.slice(1), '-c', script, 'test'], {
    env: {
      PATH: `${process.env.BCJ_TEST_CURL_BIN}:/usr/bin:/bin`,
      BACKUP_PUSHGATEWAY_URL: url,
      BACKUP_METRICS_PREFIX: 'endpoint_backup',
      BACKUP_TARGET: target,
      ...env,
    },
    timeoutMs: 60_000,
  });
  return { code: r.code, stderr: r.stderr };
}

const pushed = async (gateway: PushgatewayHandle, target: string) =>
  (await gateway.metrics())
    .split('\n')
    .find((l) => l.startsWith('endpoint_backup_size_bytes{') && l.includes(`target="${target}"`));

/** No credential in the run's log or in any curl command line. */
function expectNoSecrets(stderr: string, ...secrets: string[]): void {
  const argv = fs.readFileSync(curlArgv, 'utf8');
  for (const s of secrets) {
    expect(stderr).not.toContain(s);
    expect(argv).not.toContain(s);
  }
}

beforeEach(() => fs.rmSync(curlArgv, { force: true }));

test("basic auth and the CA bundle: the push lands, also with a password curl's config must escape, with dash and busybox sh", async () => {
  const busybox = [requireCommands('busybox').busybox, 'sh'];
  const runs = [
    [PUSHGATEWAY_TEST_USER, 'plain-pw', ['/bin/sh']],
    [PUSHGATEWAY_ODD_USER, 'odd-pw', ['/bin/sh']],
    [PUSHGATEWAY_ODD_USER, 'odd-pw-busybox', busybox],
  ] as const;
  for (const [user, target, shell] of runs) {
    const r = await push(
      secured.url,
      target,
      {
        BACKUP_PUSHGATEWAY_USERNAME: user.username,
        BACKUP_PUSHGATEWAY_PASSWORD: user.password,
        BACKUP_PUSHGATEWAY_CA_FILE: caFile,
      },
      [...shell],
    );
    expect(r).toEqual({
      code: 0,
      stderr: expect.stringMatching(
        / info metrics pushed to https:\/\/127\.0\.0\.1:\d+\/metrics\/job\/backup-cronjobs\/target\/[a-z-]+ \(success: 1 success\(es\), 0 failure\(s\)\)\n$/,
      ) as unknown,
    });
    expect(await pushed(secured, target)).toMatch(/ 42$/);
    expectNoSecrets(r.stderr, user.password);
  }
});

test('a wrong password, no password, no CA bundle: one warning each, naming what to check; the run goes on', async () => {
  const cases: [Record<string, string>, RegExp][] = [
    [
      {
        BACKUP_PUSHGATEWAY_USERNAME: PUSHGATEWAY_TEST_USER.username,
        BACKUP_PUSHGATEWAY_PASSWORD: 'wrong-pw-9',
        BACKUP_PUSHGATEWAY_CA_FILE: caFile,
      },
      /error: 401 \(the Pushgateway refused the credentials: check the Secret of spec\.metrics\.basicAuthSecret or bearerTokenSecret\)$/,
    ],
    [{ BACKUP_PUSHGATEWAY_CA_FILE: caFile }, /error: 401 \(the Pushgateway refused the credentials/],
    [
      {
        BACKUP_PUSHGATEWAY_USERNAME: PUSHGATEWAY_TEST_USER.username,
        BACKUP_PUSHGATEWAY_PASSWORD: PUSHGATEWAY_TEST_USER.password,
      },
      /curl: \(60\) .*\(the Pushgateway's certificate is not trusted: set spec\.metrics\.caBundle to the CA that signs it\)$/,
    ],
  ];
  for (const [env, why] of cases) {
    const r = await push(secured.url, 'refused', env);
    expect(r.code).toBe(0);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toEqual([
      expect.stringMatching(
        / warn metrics not pushed: cannot read the current counters from https:\/\/127\.0\.0\.1:\d+\/metrics: /,
      ),
    ]);
    expect(lines[0]).toMatch(why);
    expectNoSecrets(r.stderr, 'wrong-pw-9', PUSHGATEWAY_TEST_USER.password);
  }
});

test('a bearer token reaches the proxy as Authorization: Bearer, never in argv; a wrong one is refused', async () => {
  const r = await push(proxyUrl, 'bearer', { BACKUP_PUSHGATEWAY_TOKEN: TOKEN });
  expect(r).toEqual({
    code: 0,
    stderr: expect.stringMatching(/ info metrics pushed to http:\/\/127\.0\.0\.1:\d+\//) as unknown,
  });
  expect(await pushed(plain, 'bearer')).toMatch(/ 42$/);
  expectNoSecrets(r.stderr, TOKEN, 'tok-3f9');
  const wrong = await push(proxyUrl, 'bearer', { BACKUP_PUSHGATEWAY_TOKEN: 'tok-wrong' });
  expect(wrong.stderr).toMatch(/ warn metrics not pushed: .*error: 401 \(the Pushgateway refused the credentials/);
  expectNoSecrets(wrong.stderr, 'tok-wrong');
});
