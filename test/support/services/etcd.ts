/** etcd (plain http or https with mTLS and a kubeadm-like PKI) and etcdctl, of a chosen version. */
import { execFileSync } from 'child_process';
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as fsp from 'fs/promises';
import * as path from 'path';
import { CommandResult, cleanEnv, findCommand, requireCommands, runCommand, runOk } from './commands';
import { BaseHandle, freePort, launch, makeTempDir, removeTempDir, waitReady } from './processes';

/**
 * The etcd versions the tests run: Debian bookworm's 3.4 (packages etcd-server, etcd-client: etcd and
 * etcdctl, no etcdutl) and the newest 3.5 and 3.6 that the Go module proxy serves, built with their
 * etcdutl by `scripts/build-test-tools.sh etcd-3.5` / `etcd-3.6` (tools/etcd-3.5, tools/etcd-3.6).
 */
export const ETCD_VERSIONS = ['3.4', '3.5', '3.6'] as const;
export type EtcdVersion = (typeof ETCD_VERSIONS)[number];

/**
 * The version the whole etcd suite runs on; the others run the paths that differ between versions
 * (test/lib/engines/etcd/scripts/etcd-versions.test.ts). BACKUP_CRONJOBS_ETCD_VERSION (3.4, 3.5 or 3.6)
 * runs the whole suite on another one.
 */
export const MAIN_ETCD_VERSION: EtcdVersion = mainEtcdVersion(process.env.BACKUP_CRONJOBS_ETCD_VERSION);

function mainEtcdVersion(v: string | undefined): EtcdVersion {
  if (v === undefined || v === '') return '3.6';
  if ((ETCD_VERSIONS as readonly string[]).includes(v)) return v as EtcdVersion;
  throw new Error(`BACKUP_CRONJOBS_ETCD_VERSION is '${v}': it must be one of ${ETCD_VERSIONS.join(', ')}`);
}

/** The binaries of one etcd version, as its users have them. */
export interface EtcdTools {
  readonly version: EtcdVersion;
  /** What `etcd --version` says, e.g. 3.6.17. */
  readonly release: string;
  readonly etcd: string;
  readonly etcdctl: string;
  /** From 3.5 on; 3.4 has none (its etcdctl has the offline snapshot commands). */
  readonly etcdutl?: string;
  /** Where `snapshot status` and `snapshot restore` are: etcdutl from 3.5 on, else etcdctl. */
  readonly snapshotTool: string;
  /** Dirs to put first on a container's PATH so that the scripts run these binaries (none for 3.4: Debian's are on it). */
  readonly pathPrepend: readonly string[];
}

/** The PATH a container starts with (run-container.ts), and the dirs after the tools dir in the etcd image's. */
const CONTAINER_PATH = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];

const toolsCache = new Map<EtcdVersion, EtcdTools>();

/**
 * The binaries of etcd `version` (default MAIN_ETCD_VERSION). Throws, naming what to run, when they are
 * not there: Debian's packages for 3.4, `scripts/build-test-tools.sh etcd-3.X` for 3.5 and 3.6 (never a
 * skip). Checks that each binary is of that version, and for 3.4 that no etcdutl is on a container's
 * PATH (the scripts would take the etcdutl path, which 3.4's users do not have).
 */
export function etcdTools(version: EtcdVersion = MAIN_ETCD_VERSION): EtcdTools {
  const cached = toolsCache.get(version);
  if (cached) return cached;
  let tools: EtcdTools;
  if (version === '3.4') {
    // Debian's, by path: a newer etcd earlier on this process's PATH must not stand in for it
    const found = { etcd: findCommand('/usr/bin/etcd'), etcdctl: findCommand('/usr/bin/etcdctl') };
    if (!found.etcd || !found.etcdctl) {
      throw new Error(
        "etcd 3.4 is Debian's /usr/bin/etcd and /usr/bin/etcdctl: apt-get install -y --no-install-recommends etcd-server etcd-client",
      );
    }
    const etcdutl = CONTAINER_PATH.map((d) => path.join(d, 'etcdutl')).find((f) => fs.existsSync(f));
    if (etcdutl) {
      throw new Error(
        `etcd 3.4 runs etcdctl alone, but ${etcdutl} is on the PATH the tests give the scripts: the 3.4 runs would take the etcdutl path. Remove it.`,
      );
    }
    tools = {
      version,
      release: releaseOf(found.etcd, version),
      etcd: found.etcd,
      etcdctl: found.etcdctl,
      snapshotTool: found.etcdctl,
      pathPrepend: [],
    };
  } else {
    const dir = builtToolsDir(`etcd-${version}`);
    const bin = (n: string) => {
      const f = path.join(dir, n);
      if (!fs.existsSync(f))
        throw new Error(`${dir} has no ${n}: run scripts/build-test-tools.sh etcd-${version} again`);
      return f;
    };
    tools = {
      version,
      release: releaseOf(bin('etcd'), version),
      etcd: bin('etcd'),
      etcdctl: bin('etcdctl'),
      etcdutl: bin('etcdutl'),
      snapshotTool: bin('etcdutl'),
      pathPrepend: [dir],
    };
  }
  toolsCache.set(version, tools);
  return tools;
}

/** The bin dir of a tools/<name> module that scripts/build-test-tools.sh built; throws, naming the command, when it is not built. */
function builtToolsDir(name: string): string {
  const script = path.resolve(__dirname, '../../../scripts/build-test-tools.sh');
  try {
    // this process's env as the test sees it (BACKUP_CRONJOBS_TOOLS_CACHE names the cache)
    return execFileSync(script, ['--dir', name], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      env: process.env,
    }).trim();
  } catch (e) {
    const { stderr } = e as { stderr?: string | Buffer };
    const why = (stderr ?? '').toString().trim();
    throw new Error(
      `${name} is not built: run scripts/build-test-tools.sh ${name} (it builds etcd, etcdctl and etcdutl from the Go module proxy into a cache outside the repository; scripts/install-test-deps.sh builds every tools/ module). ${why}`,
    );
  }
}

/** The release `etcd --version` prints ("etcd Version: 3.6.17"); throws unless it is of `version`. */
function releaseOf(etcd: string, version: EtcdVersion): string {
  const out = execFileSync(etcd, ['--version'], { encoding: 'utf8', env: cleanEnv() });
  const release = /^etcd Version: (\S+)$/m.exec(out)?.[1];
  if (!release?.startsWith(`${version}.`)) {
    throw new Error(`${etcd} is not etcd ${version}: its --version says ${JSON.stringify(out.split('\n')[0])}`);
  }
  return release;
}

export interface EtcdOptions {
  /** The etcd version to run. Default MAIN_ETCD_VERSION. */
  version?: EtcdVersion;
  /** https client URL + mTLS (client-cert-auth). Default false. */
  tls?: boolean;
  /** Start on an existing data dir (e.g. from `etcdctl snapshot restore`). Not removed by stop(). */
  dataDir?: string;
  /** Restore this snapshot file (`snapshot restore` of etcdutl, or of etcdctl on 3.4) into a data dir in tmpDir and start on it. */
  snapshot?: string;
  /** Member name; must match the name used by `snapshot restore` (etcdctl's default: "default"). */
  name?: string;
  readyTimeoutMs?: number;
  /** etcd's `--quota-backend-bytes`: a small quota lets a test raise the NOSPACE alarm. Default etcd's (2 GiB). */
  quotaBackendBytes?: number;
}

export interface EtcdHandle extends BaseHandle {
  /** The binaries it runs (and the scripts run against it should: tools.pathPrepend). */
  tools: EtcdTools;
  endpoint: string;
  dataDir: string;
  tls: boolean;
  /** kubeadm-like pki dir (only with tls). */
  pkiDir?: string;
  /**
   * etcdctl --endpoints=E [--cacert/--cert/--key] --dial-timeout=2s --command-timeout=5s ARGS.
   * Rejects on a non-zero exit.
   */
  etcdctl(args: string[]): Promise<string>;
  /** Same, never rejects for an exit code; `{clientCert: false}` leaves out --cert/--key, `{caCert: false}` --cacert
   *  (to prove mTLS is enforced); `input` is its standard input (`txn` reads its requests there). */
  etcdctlRaw(args: string[], o?: { clientCert?: boolean; caCert?: boolean; input?: string }): Promise<CommandResult>;
}

export interface EtcdTlsHandle extends EtcdHandle {
  pkiDir: string;
}

/** Files in the kubeadm-like pki dir (/etc/kubernetes/pki/etcd layout). */
export const ETCD_PKI_FILES = [
  'ca.crt',
  'ca.key',
  'server.crt',
  'server.key',
  'healthcheck-client.crt',
  'healthcheck-client.key',
] as const;

/**
 * Generates a CA, a server cert (SAN IP:127.0.0.1, DNS:localhost; serverAuth+clientAuth) and a
 * healthcheck-client cert (clientAuth) with openssl, kubeadm file names. Returns pkiDir.
 */
export async function generateEtcdPki(pkiDir: string): Promise<string> {
  const openssl = requireCommands('openssl').openssl;
  await fsp.mkdir(pkiDir, { recursive: true });
  const f = (n: string) => path.join(pkiDir, n);
  const env = cleanEnv({ OPENSSL_CONF: '/dev/null', RANDFILE: path.join(pkiDir, '.rnd') });
  const o = (args: string[]) => runOk(openssl, args, { env, cwd: pkiDir });
  const serial = () => '0x' + crypto.randomBytes(8).toString('hex');
  await o([
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-sha256',
    '-days',
    '30',
    '-keyout',
    f('ca.key'),
    '-out',
    f('ca.crt'),
    '-subj',
    '/CN=etcd-ca',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign,digitalSignature',
  ]);
  const leaf = async (base: string, subj: string, ext: string[]) => {
    await o([
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      f(`${base}.key`),
      '-out',
      f(`${base}.csr`),
      '-subj',
      subj,
    ]);
    await fsp.writeFile(f(`${base}.ext`), ext.join('\n') + '\n');
    await o([
      'x509',
      '-req',
      '-sha256',
      '-days',
      '30',
      '-in',
      f(`${base}.csr`),
      '-CA',
      f('ca.crt'),
      '-CAkey',
      f('ca.key'),
      '-set_serial',
      serial(),
      '-extfile',
      f(`${base}.ext`),
      '-out',
      f(`${base}.crt`),
    ]);
    await fsp.rm(f(`${base}.csr`), { force: true });
    await fsp.rm(f(`${base}.ext`), { force: true });
  };
  await leaf('server', '/CN=localhost', [
    'basicConstraints=CA:FALSE',
    'keyUsage=critical,digitalSignature,keyEncipherment',
    'extendedKeyUsage=serverAuth,clientAuth',
    'subjectAltName=IP:127.0.0.1,DNS:localhost',
  ]);
  await leaf('healthcheck-client', '/O=system:masters/CN=kube-etcd-healthcheck-client', [
    'basicConstraints=CA:FALSE',
    'keyUsage=critical,digitalSignature,keyEncipherment',
    'extendedKeyUsage=clientAuth',
  ]);
  for (const k of ['ca.key', 'server.key', 'healthcheck-client.key']) await fsp.chmod(f(k), 0o600);
  await fsp.rm(f('.rnd'), { force: true });
  return pkiDir;
}

export async function startEtcd(opts: EtcdOptions & { tls: true }): Promise<EtcdTlsHandle>;
export async function startEtcd(opts?: EtcdOptions): Promise<EtcdHandle>;
export async function startEtcd(opts: EtcdOptions = {}): Promise<EtcdHandle> {
  const tools = etcdTools(opts.version);
  const etcdctlPath = tools.etcdctl;
  const tls = !!opts.tls;
  const name = opts.name ?? 'default';
  const mkEtcdctl = (endpoint: string, pkiDir: string | undefined) => {
    const raw = (args: string[], o: { clientCert?: boolean; caCert?: boolean; input?: string } = {}) => {
      const a = [`--endpoints=${endpoint}`, '--dial-timeout=2s', '--command-timeout=5s'];
      if (pkiDir && o.caCert !== false) a.push(`--cacert=${path.join(pkiDir, 'ca.crt')}`);
      if (pkiDir && o.clientCert !== false) {
        a.push(
          `--cert=${path.join(pkiDir, 'healthcheck-client.crt')}`,
          `--key=${path.join(pkiDir, 'healthcheck-client.key')}`,
        );
      }
      return runCommand(etcdctlPath, [...a, ...args], {
        env: cleanEnv({ ETCDCTL_API: '3' }),
        timeoutMs: 30000,
        input: o.input,
      });
    };
    const ok = async (args: string[]) => {
      const r = await raw(args);
      if (r.code !== 0) {
        throw new Error(
          `etcdctl ${args.join(' ')} exited with ${r.code ?? r.signal}\n${r.stdout.toString()}\n${r.stderr}`,
        );
      }
      return r.stdout.toString('utf8');
    };
    return { raw, ok };
  };
  const { params, base } = await launch({
    label: tls ? 'etcd-tls' : 'etcd',
    binary: tools.etcd,
    prepare: async (dir) => {
      const clientPort = await freePort();
      const peerPort = await freePort();
      const pkiDir = tls ? await generateEtcdPki(path.join(dir, 'pki')) : undefined;
      const dataDir = opts.dataDir ?? path.join(dir, 'data');
      if (opts.snapshot) {
        if (opts.dataDir) throw new Error('startEtcd: give either dataDir or snapshot, not both');
        const peer = `http://127.0.0.1:${peerPort}`;
        await runOk(
          tools.snapshotTool,
          [
            'snapshot',
            'restore',
            opts.snapshot,
            `--data-dir=${dataDir}`,
            `--name=${name}`,
            `--initial-cluster=${name}=${peer}`,
            `--initial-advertise-peer-urls=${peer}`,
          ],
          { env: cleanEnv({ ETCDCTL_API: '3', HOME: dir }), cwd: dir, timeoutMs: 30000 },
        );
      }
      return { clientPort, peerPort, pkiDir, dataDir, endpoint: `${tls ? 'https' : 'http'}://127.0.0.1:${clientPort}` };
    },
    argv: ({ peerPort, pkiDir, dataDir, endpoint }) => {
      const peer = `http://127.0.0.1:${peerPort}`;
      const a = [
        `--name=${name}`,
        `--data-dir=${dataDir}`,
        `--listen-client-urls=${endpoint}`,
        `--advertise-client-urls=${endpoint}`,
        `--listen-peer-urls=${peer}`,
        `--initial-advertise-peer-urls=${peer}`,
        `--initial-cluster=${name}=${peer}`,
        '--initial-cluster-state=new',
        '--logger=zap',
        '--log-outputs=stderr',
      ];
      if (opts.quotaBackendBytes !== undefined) a.push(`--quota-backend-bytes=${opts.quotaBackendBytes}`);
      if (pkiDir) {
        a.push(
          `--cert-file=${path.join(pkiDir, 'server.crt')}`,
          `--key-file=${path.join(pkiDir, 'server.key')}`,
          '--client-cert-auth',
          `--trusted-ca-file=${path.join(pkiDir, 'ca.crt')}`,
        );
      }
      return a;
    },
    env: (dir) => cleanEnv({ HOME: dir }), // no ETCD_* from the test process
    ready: async (proc, { endpoint, pkiDir }) => {
      const { raw } = mkEtcdctl(endpoint, pkiDir);
      await waitReady(
        proc,
        'etcdctl endpoint health',
        opts.readyTimeoutMs ?? 15000,
        async () => {
          const r = await raw(['endpoint', 'health']);
          if (r.code === 0) return true;
          throw new Error(r.stderr.trim() || r.stdout.toString().trim());
        },
        150,
      );
    },
  });
  const { raw, ok } = mkEtcdctl(params.endpoint, params.pkiDir);
  return {
    ...base,
    tools,
    endpoint: params.endpoint,
    dataDir: params.dataDir,
    tls,
    pkiDir: params.pkiDir,
    etcdctl: ok,
    etcdctlRaw: raw,
  };
}

/** etcd with an https client URL and mTLS; certs in a kubeadm-like pki dir. */
export function startEtcdTls(opts: Omit<EtcdOptions, 'tls'> = {}): Promise<EtcdTlsHandle> {
  return startEtcd({ ...opts, tls: true });
}

/** Plain-http etcd on an existing data dir (e.g. restored from a snapshot). The dir is not removed by stop(). */
export function startEtcdFromDataDir(dataDir: string, opts: Omit<EtcdOptions, 'dataDir'> = {}): Promise<EtcdHandle> {
  return startEtcd({ ...opts, dataDir });
}

/**
 * `etcdctl snapshot restore FILE` into a fresh data dir inside the handle's tmpDir (member name "default",
 * peer URL matching the new server), then a plain-http etcd on it. Everything is removed by stop().
 */
export function startEtcdFromSnapshot(
  snapshotFile: string,
  opts: Omit<EtcdOptions, 'snapshot' | 'dataDir'> = {},
): Promise<EtcdHandle> {
  return startEtcd({ ...opts, snapshot: snapshotFile });
}

export interface EtcdClusterOptions {
  /** The etcd version of every member. Default MAIN_ETCD_VERSION. */
  version?: EtcdVersion;
  /** Number of members. Default 3. */
  members?: number;
  /** https client and peer URLs with mTLS (client-cert-auth, peer-client-cert-auth), one PKI. Default false. */
  tls?: boolean;
  /** etcd's `--quota-backend-bytes` of every member (a small quota lets a test raise NOSPACE). */
  quotaBackendBytes?: number;
  readyTimeoutMs?: number;
}

/** One member of a cluster of startEtcdCluster. */
export interface EtcdMember {
  /** m1, m2, ... */
  readonly name: string;
  /** Its client URL (`--advertise-client-urls`). */
  readonly endpoint: string;
  readonly peerUrl: string;
  /** Kept across stopMember/startMember; removed by the cluster's stop(). */
  readonly dataDir: string;
  /** Whether its process runs (stopMember / startMember). */
  running(): boolean;
  /** Its server log (the current process's). */
  logs(): string;
}

export interface EtcdClusterHandle {
  /** The binaries its members run. */
  readonly tools: EtcdTools;
  readonly members: readonly EtcdMember[];
  readonly tls: boolean;
  /** The kubeadm-like pki dir (only with tls): the server certificate serves the peers too. */
  readonly pkiDir?: string;
  /** etcdctl against one member (default the first) with the client certificate; rejects on a non-zero exit. */
  etcdctl(args: string[], member?: number): Promise<string>;
  /** Same, never rejects for an exit code. */
  etcdctlRaw(args: string[], member?: number): Promise<CommandResult>;
  /** Stops member `i` (SIGTERM, its data kept). */
  stopMember(i: number): Promise<void>;
  /** Starts member `i` again on its data dir, and waits until it is healthy. */
  startMember(i: number): Promise<void>;
  /** Stops every member and removes their data. Idempotent. */
  stop(): Promise<void>;
}

/**
 * A cluster of etcd members on 127.0.0.1 (free client and peer ports, `--initial-cluster` naming them all),
 * with a handle to stop and start one member. With tls, one PKI (generateEtcdPki): the server certificate
 * (SAN 127.0.0.1, serverAuth and clientAuth) is every member's serving and peer certificate, and both client
 * and peer connections need a certificate of the CA.
 */
export async function startEtcdCluster(opts: EtcdClusterOptions = {}): Promise<EtcdClusterHandle> {
  const tools = etcdTools(opts.version);
  const etcdctlPath = tools.etcdctl;
  const tls = !!opts.tls;
  const count = opts.members ?? 3;
  const dir = await makeTempDir('etcd-cluster');
  const pkiDir = tls ? await generateEtcdPki(path.join(dir, 'pki')) : undefined;
  const scheme = tls ? 'https' : 'http';
  const ports = [];
  for (let i = 0; i < count; i++) ports.push({ client: await freePort(), peer: await freePort() });
  const specs = ports.map((p, i) => ({
    name: `m${i + 1}`,
    endpoint: `${scheme}://127.0.0.1:${p.client}`,
    peerUrl: `${scheme}://127.0.0.1:${p.peer}`,
    dataDir: path.join(dir, `m${i + 1}`),
  }));
  const initialCluster = specs.map((m) => `${m.name}=${m.peerUrl}`).join(',');
  const pki = (f: string) => path.join(pkiDir ?? '', f);

  const raw = (args: string[], member = 0) => {
    const a = [`--endpoints=${specs[member].endpoint}`, '--dial-timeout=2s', '--command-timeout=10s'];
    if (pkiDir)
      a.push(
        `--cacert=${pki('ca.crt')}`,
        `--cert=${pki('healthcheck-client.crt')}`,
        `--key=${pki('healthcheck-client.key')}`,
      );
    return runCommand(etcdctlPath, [...a, ...args], { env: cleanEnv({ ETCDCTL_API: '3' }), timeoutMs: 30000 });
  };
  const ok = async (args: string[], member = 0) => {
    const r = await raw(args, member);
    if (r.code !== 0)
      throw new Error(
        `etcdctl ${args.join(' ')} exited with ${r.code ?? r.signal}\n${r.stdout.toString()}\n${r.stderr}`,
      );
    return r.stdout.toString('utf8');
  };

  const processes: (BaseHandle | undefined)[] = specs.map(() => undefined);
  const start = async (i: number) => {
    const m = specs[i];
    const { base } = await launch({
      label: `etcd-${m.name}`,
      binary: tools.etcd,
      prepare: () => Promise.resolve(m),
      argv: () => [
        `--name=${m.name}`,
        `--data-dir=${m.dataDir}`,
        `--listen-client-urls=${m.endpoint}`,
        `--advertise-client-urls=${m.endpoint}`,
        `--listen-peer-urls=${m.peerUrl}`,
        `--initial-advertise-peer-urls=${m.peerUrl}`,
        `--initial-cluster=${initialCluster}`,
        '--initial-cluster-state=new',
        '--initial-cluster-token=bcj-test',
        '--logger=zap',
        '--log-outputs=stderr',
        ...(opts.quotaBackendBytes !== undefined ? [`--quota-backend-bytes=${opts.quotaBackendBytes}`] : []),
        ...(pkiDir
          ? [
              `--cert-file=${pki('server.crt')}`,
              `--key-file=${pki('server.key')}`,
              '--client-cert-auth',
              `--trusted-ca-file=${pki('ca.crt')}`,
              `--peer-cert-file=${pki('server.crt')}`,
              `--peer-key-file=${pki('server.key')}`,
              '--peer-client-cert-auth',
              `--peer-trusted-ca-file=${pki('ca.crt')}`,
            ]
          : []),
      ],
      env: (tmp) => cleanEnv({ HOME: tmp }),
      ready: async (proc) => {
        await waitReady(
          proc,
          'etcdctl endpoint health',
          opts.readyTimeoutMs ?? 30000,
          async () => {
            const r = await raw(['endpoint', 'health'], i);
            if (r.code === 0) return true;
            throw new Error(r.stderr.trim() || r.stdout.toString().trim());
          },
          200,
        );
      },
    });
    processes[i] = base;
  };
  const stopMember = async (i: number) => {
    await processes[i]?.stop();
    processes[i] = undefined;
  };
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      await Promise.all(specs.map((_, i) => stopMember(i)));
      await removeTempDir(dir);
    })();
    return stopping;
  };
  try {
    // together: a member is healthy only once a quorum runs
    await Promise.all(specs.map((_, i) => start(i)));
  } catch (e) {
    await stop();
    throw e;
  }
  return {
    members: specs.map((m, i) => ({
      ...m,
      running: () => processes[i] !== undefined,
      logs: () => processes[i]?.logs() ?? '',
    })),
    tools,
    tls,
    pkiDir,
    etcdctl: ok,
    etcdctlRaw: raw,
    stopMember,
    startMember: start,
    stop,
  };
}
