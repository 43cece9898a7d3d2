// etcd with mTLS and a kubeadm-like PKI; snapshots restore into new servers; the binaries of each version.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import {
  ETCD_PKI_FILES,
  ETCD_VERSIONS,
  EtcdTlsHandle,
  MAIN_ETCD_VERSION,
  etcdTools,
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

describe('the etcd versions', () => {
  test('a version that is not built is an error naming the command that builds it (never a skip)', () => {
    const saved = process.env.BACKUP_CRONJOBS_TOOLS_CACHE;
    process.env.BACKUP_CRONJOBS_TOOLS_CACHE = path.join(scratch, 'no-tools-cache');
    try {
      expect(() => etcdTools('3.5')).toThrow(
        'etcd-3.5 is not built: run scripts/build-test-tools.sh etcd-3.5 (it builds etcd, etcdctl and etcdutl',
      );
    } finally {
      if (saved === undefined) delete process.env.BACKUP_CRONJOBS_TOOLS_CACHE;
      else process.env.BACKUP_CRONJOBS_TOOLS_CACHE = saved;
    }
  });

  test('each version: its binaries say so; etcdutl (the snapshot tool) from 3.5 on, none on 3.4', async () => {
    expect(etcd.tools.version).toBe(MAIN_ETCD_VERSION);
    for (const v of ETCD_VERSIONS) {
      const t = etcdTools(v);
      expect(t.release).toMatch(new RegExp(`^${v.replace('.', '\\.')}\\.\\d+$`));
      const ctl = (await runCommand(t.etcdctl, ['version'])).stdout.toString();
      expect(ctl).toContain(`etcdctl version: ${t.release}\n`);
      if (v === '3.4') {
        expect(t.etcdutl).toBeUndefined();
        expect(path.basename(t.snapshotTool)).toBe('etcdctl');
        expect(t.pathPrepend).toEqual([]);
      } else {
        expect((await runCommand(t.etcdutl!, ['version'])).stdout.toString()).toContain(
          `etcdutl version: ${t.release}\n`,
        );
        expect(t.snapshotTool).toBe(t.etcdutl);
        expect(t.pathPrepend).toEqual([path.dirname(t.etcd)]);
      }
    }
  });
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
    const plainHttp = await runCommand(etcd.tools.etcdctl, [
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

    // a data dir restored by the caller with the defaults of the version's snapshot tool
    const dataDir = path.join(scratch, 'restored');
    const r = await runCommand(etcd.tools.snapshotTool, ['snapshot', 'restore', snap, `--data-dir=${dataDir}`]);
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
