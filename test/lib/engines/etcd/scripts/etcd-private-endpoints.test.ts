// Private endpoints, for real: the rendered etcd backup pod uploads to s3rver serving HTTPS with a certificate
// of a test CA (made with openssl here), and pushes to a Pushgateway started with a --web.config.file that
// requires TLS and basic auth. The CA bundles come from a ConfigMap and a Secret, the credentials from a
// Secret. Without the S3 bundle the upload fails with one clear line; with a wrong password the push is
// refused with one clear warning; no credential is ever in a log or in curl's command line.
import * as fs from 'fs';
import * as path from 'path';
import type { S3Destination } from '../../../../../lib';
import {
  EtcdTlsHandle,
  PUSHGATEWAY_ODD_USER,
  PUSHGATEWAY_TEST_USER,
  PushgatewayHandle,
  S3Handle,
  generateEtcdPki,
  requireCommands,
  runCommand,
  startEtcdTls,
  startPushgateway,
  startS3,
  stopAll,
} from '../../../../support/services';
import {
  cronJobOf,
  errorLines,
  etcdPolicy,
  metricValue,
  removeTempDirs,
  restoreJobOf,
  runPod,
  stamp,
  tempDir,
} from '../fixtures';

jest.setTimeout(400_000);

/** Each container's limit: the aws CLI takes seconds per call on a loaded machine (no speed is asserted). */
const timeoutMs = 180_000;

const BUCKET = 'etcd-backups';
const PREFIX = 'prod/etcd/';

let etcd: EtcdTlsHandle;
let s3: S3Handle;
let gateway: PushgatewayHandle;
let caPem: string;
/** Where the curl wrapper writes every command line it is started with. */
let curlArgv: string;
let curlBin: string;

beforeAll(async () => {
  requireCommands('curl', 'openssl', 'prometheus-pushgateway');
  // one test CA and a server certificate for 127.0.0.1 (not etcd's CA: the bundles must be the ones mounted)
  const pki = await generateEtcdPki(path.join(tempDir('endpoints-pki'), 'pki'));
  const tls = {
    certFile: path.join(pki, 'server.crt'),
    keyFile: path.join(pki, 'server.key'),
    caFile: path.join(pki, 'ca.crt'),
  };
  caPem = fs.readFileSync(tls.caFile, 'utf8');
  [etcd, s3, gateway] = await Promise.all([
    startEtcdTls(),
    startS3({ buckets: [BUCKET], tls }),
    startPushgateway({ tls, basicAuth: true }),
  ]);
  await etcd.etcdctl(['put', '/registry/private/k', 'v']);
  // the real curl, started through a script that first records its arguments (what /proc/<pid>/cmdline shows)
  curlBin = tempDir('curl-bin');
  curlArgv = path.join(curlBin, 'argv');
  fs.writeFileSync(
    path.join(curlBin, 'curl'),
    ['#!/bin/sh', `printf '%s\\n' "$*" >>'${curlArgv}'`, `exec '${requireCommands('curl').curl}' "$@"`, ''].join('\n'),
    { mode: 0o755 },
  );
});

afterAll(async () => {
  await stopAll();
  removeTempDirs();
});

const certs = () => ({ 'etcd-certs': etcd.pkiDir });
// the user whose password has characters curl's config syntax escapes: the rendered (packed) script escapes them
const secrets = (password: string = PUSHGATEWAY_ODD_USER.password) => ({
  's3-creds': { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' },
  'pushgateway-auth': { username: PUSHGATEWAY_ODD_USER.username, password },
  'pushgateway-tls': { 'ca.crt': caPem },
});
const configMaps = () => ({ 'minio-ca': { 'ca.crt': caPem } });

function policy(s3Over: Partial<S3Destination> = { caBundle: { configMap: { name: 'minio-ca', key: 'ca.crt' } } }) {
  return etcdPolicy(
    {
      retentionScope: 'cluster',
      endpoint: etcd.endpoint,
      destination: {
        s3: {
          bucket: BUCKET,
          path: 'prod/etcd',
          region: 'us-east-1',
          endpoint: s3.endpoint,
          credentialsSecret: { name: 's3-creds' },
          ...s3Over,
        },
      },
    },
    {
      retention: { keepLast: 1 },
      metrics: {
        pushgatewayUrl: gateway.url,
        basicAuthSecret: { name: 'pushgateway-auth' },
        caBundle: { secret: { name: 'pushgateway-tls', key: 'ca.crt' } },
      },
    },
  );
}

const keys = async () => (await s3.listObjects(BUCKET, PREFIX)).map((o) => o.key).sort();

async function clearBucket(): Promise<void> {
  for (const k of await keys()) await s3.deleteObject(BUCKET, k);
}

/** Neither a log nor a curl command line of the run holds the password. */
function expectNoSecret(log: string, password: string): void {
  expect(log).not.toContain(password);
  const argv = fs.existsSync(curlArgv) ? fs.readFileSync(curlArgv, 'utf8') : '';
  expect(argv).toContain(gateway.url); // curl did run through the recorder
  expect(argv).not.toContain(password);
  expect(argv).not.toContain(PUSHGATEWAY_ODD_USER.username);
}

test('the endpoints serve TLS with the test CA, and the Pushgateway wants the password', async () => {
  expect(s3.endpoint).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  expect(gateway.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  expect(await s3.aws(['s3', 'ls', `s3://${BUCKET}`])).toBe(''); // the harness trusts the CA
  const caFile = path.join(tempDir('ca'), 'ca.crt');
  fs.writeFileSync(caFile, caPem);
  const curl = (args: string[]) => runCommand('curl', ['-sS', '--fail', ...args, `${gateway.url}/-/ready`]);
  expect((await curl([])).code).toBe(60); // untrusted certificate (cleanEnv has no CURL_CA_BUNDLE)
  expect((await curl(['--cacert', caFile])).stderr).toMatch(/error: 401/);
  expect(
    (await curl(['--cacert', caFile, '-u', `${PUSHGATEWAY_TEST_USER.username}:${PUSHGATEWAY_TEST_USER.password}`]))
      .code,
  ).toBe(0);
});

test('with both CA bundles and the right password: the snapshot is uploaded and the older one pruned over HTTPS, the metrics pushed, no secret in logs or argv', async () => {
  await clearBucket();
  const older = `${PREFIX}etcd-snapshot_etcd_${stamp(Math.floor(Date.now() / 1000) - 3600)}_cp-2.db`;
  for (const k of [older, `${older}.json`]) await s3.putObject(BUCKET, k, 'an earlier snapshot');
  fs.rmSync(curlArgv, { force: true });
  const cj = cronJobOf(policy());
  const run = await runPod(cj, {
    secrets: secrets(),
    configMaps: configMaps(),
    volumes: certs(),
    pathPrepend: [curlBin],
    timeoutMs,
  });
  expect(run.failed).toBeUndefined();
  expect(run.log).not.toMatch(/ (error|warn) /);
  expect(run.log).toMatch(/ info metrics pushed to https:\/\/127\.0\.0\.1:\d+\/metrics\/job\//);
  const stored = (await keys()).filter((k) => k.endsWith('.db'));
  expect(stored).toHaveLength(1);
  expect(stored[0]).not.toBe(older); // keepLast 1: the older snapshot was pruned through the bundle too
  expect(await metricValue(gateway, 'etcd_backup_last_run_success', cj.metadata.name)).toBe(1);
  expectNoSecret(run.log, PUSHGATEWAY_ODD_USER.password);

  // the restore Job's fetch downloads it back through the same bundle
  const name = (await keys()).find((k) => k.endsWith('.db'))!.slice(PREFIX.length);
  const job = restoreJobOf(policy(), ['--node', 'cp-1', '--snapshot', name]);
  const fetch = await runPod(job, {
    configMaps: configMaps(),
    secrets: secrets(),
    volumes: certs(),
    only: ['tools', 'fetch'],
    timeoutMs,
  });
  expect(fetch.failed).toBeUndefined();
  expect(fs.statSync(path.join(fetch.volumeDirs.scratch, name)).size).toBeGreaterThan(0);
});

test('without the S3 CA bundle: the upload fails with one line naming the certificate problem', async () => {
  await clearBucket();
  const cj = cronJobOf(policy({}));
  const run = await runPod(cj, { secrets: secrets(), configMaps: configMaps(), volumes: certs(), timeoutMs });
  expect(run.failed).toBe('finalize');
  const errors = errorLines(run.results.finalize);
  expect(errors).toHaveLength(1);
  expect(errors[0]).toMatch(/certificate verify failed|CERTIFICATE_VERIFY_FAILED/);
  if (process.env.ENDPOINTS_TEST_LOG) fs.appendFileSync(process.env.ENDPOINTS_TEST_LOG, `${errors[0]}\n`);
  expect(await keys()).toEqual([]);
});

test('a wrong Pushgateway password: the push is refused with one clear warning, the backup still succeeds, no secret anywhere', async () => {
  await clearBucket();
  fs.rmSync(curlArgv, { force: true });
  const wrong = 'not-the-pw-Xk2';
  const cj = cronJobOf(policy());
  const before = await metricValue(gateway, 'etcd_backup_success_total', cj.metadata.name);
  const run = await runPod(cj, {
    secrets: secrets(wrong),
    configMaps: configMaps(),
    volumes: certs(),
    pathPrepend: [curlBin],
    timeoutMs,
  });
  expect(run.failed).toBeUndefined();
  const warnings = run.log.split('\n').filter((l) => / warn /.test(l));
  expect(warnings).toEqual([
    expect.stringMatching(
      / warn metrics not pushed: cannot read the current counters from https:\/\/127\.0\.0\.1:\d+\/metrics: curl: \(22\) The requested URL returned error: 401 \(the Pushgateway refused the credentials: check the Secret of spec\.metrics\.basicAuthSecret or bearerTokenSecret\)$/,
    ),
  ]);
  expect(await metricValue(gateway, 'etcd_backup_success_total', cj.metadata.name)).toBe(before);
  expectNoSecret(run.log, wrong);
});
