// etcd with mTLS and a kubeadm-like PKI; snapshots restore into new servers.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import {
  ETCD_PKI_FILES,
  EtcdTlsHandle,
  runCommand,
  startEtcdFromDataDir,
  startEtcdFromSnapshot,
  startEtcdTls,
  stopAll,
} from '.';

let etcd: EtcdTlsHandle;
let scratch: string;

beforeAll(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'services-etcd-test-'));
  etcd = await startEtcdTls();
});

afterAll(async () => {
  await stopAll();
  fs.rmSync(scratch, { recursive: true, force: true });
});

describe('etcd with mTLS', () => {
  test('pki dir is laid out like kubeadm /etc/kubernetes/pki/etcd and verifies', async () => {
    for (const f of ETCD_PKI_FILES) expect(fs.existsSync(path.join(etcd.pkiDir, f))).toBe(true);
    expect(fs.statSync(path.join(etcd.pkiDir, 'healthcheck-client.key')).mode & 0o777).toBe(0o600);
    const text = (
      await runCommand('openssl', ['x509', '-in', path.join(etcd.pkiDir, 'server.crt'), '-noout', '-text'])
    ).stdout.toString();
    expect(text).toMatch(/IP Address:127\.0\.0\.1/);
    expect(text).toMatch(/DNS:localhost/);
    expect(text).toMatch(/TLS Web Server Authentication, TLS Web Client Authentication/);
    const v = await runCommand('openssl', [
      'verify',
      '-CAfile',
      path.join(etcd.pkiDir, 'ca.crt'),
      path.join(etcd.pkiDir, 'server.crt'),
      path.join(etcd.pkiDir, 'healthcheck-client.crt'),
    ]);
    expect(v.stdout.toString()).toMatch(/server\.crt: OK[\s\S]*healthcheck-client\.crt: OK/);
  });

  test('etcdctl put/get over mTLS; without the client cert it fails', async () => {
    expect(etcd.endpoint).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect((await etcd.etcdctl(['put', '/registry/test', 'v1'])).trim()).toBe('OK');
    expect((await etcd.etcdctl(['get', '/registry/test', '--print-value-only'])).trim()).toBe('v1');
    const noCert = await etcd.etcdctlRaw(['--command-timeout=1s', 'get', '/registry/test'], { clientCert: false });
    expect(noCert.code).not.toBe(0);
    expect(noCert.stdout.toString()).not.toContain('v1');
    const plainHttp = await runCommand('etcdctl', [
      `--endpoints=${etcd.endpoint.replace('https', 'http')}`,
      '--dial-timeout=1s',
      '--command-timeout=1s',
      'get',
      '/registry/test',
    ]);
    expect(plainHttp.code).not.toBe(0);
  });

  test('a snapshot restores into a new etcd that serves the keys', async () => {
    await etcd.etcdctl(['put', 'snap-key', 'snap-value']);
    const snap = path.join(scratch, 'etcd.snap');
    await etcd.etcdctl(['snapshot', 'save', snap]);

    const restored = await startEtcdFromSnapshot(snap);
    try {
      expect(restored.endpoint).toMatch(/^http:\/\//);
      expect((await restored.etcdctl(['get', 'snap-key', '--print-value-only'])).trim()).toBe('snap-value');
    } finally {
      await restored.stop();
    }
    expect(fs.existsSync(restored.tmpDir)).toBe(false);

    // a data dir restored by the caller with etcdctl's defaults
    const dataDir = path.join(scratch, 'restored');
    const r = await runCommand('etcdctl', ['snapshot', 'restore', snap, `--data-dir=${dataDir}`]);
    expect(r.code).toBe(0);
    const fromDir = await startEtcdFromDataDir(dataDir);
    try {
      expect((await fromDir.etcdctl(['get', '/registry/test', '--print-value-only'])).trim()).toBe('v1');
    } finally {
      await fromDir.stop();
    }
    expect(fs.existsSync(path.join(dataDir, 'member'))).toBe(true); // caller's dir is left alone
  });
});
