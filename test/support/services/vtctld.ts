/**
 * Vitess's own vtctld (and vtctldclient) of tools/vitess (vitess.io/vitess v0.24.4, built by
 * `scripts/build-test-tools.sh vitess`), on an etcd topology (startEtcd, its default version) and a file
 * backup storage whose backups are laid out the way vtbackup writes them.
 *
 * What is real: vtctld, vtctldclient, the etcd2 topology, the keyspaces, shards and the cell (made with
 * vtctldclient CreateKeyspace, CreateShard and AddCellInfo), and the file backup storage vtctld lists and
 * removes from (go/vt/mysqlctl/filebackupstorage/file.go). Two things stand in for components these
 * machines cannot run (no MySQL, so no vttablet and no vtbackup):
 *  - writeBackup writes a backup's directory as vtbackup's builtin engine leaves it: <root>/<keyspace>/
 *    <shard>/<YYYY-MM-DD.HHMMSS>.<tablet alias>/ with the data files "0", "1", ... and the MANIFEST, the
 *    last file written (go/vt/mysqlctl/backup.go, Backup: the name; builtinbackupengine.go, backupFiles:
 *    a file per index, strconv.Itoa(i); backupManifest: json.MarshalIndent of builtinBackupManifest
 *    with two-space indent, then EndBackup). A backup whose run died has its files and no MANIFEST.
 *  - setPrimary writes the shard record's primary_alias into the topology, as a vttablet does when it
 *    becomes the shard's primary (the record is the topodata.Shard proto at
 *    <global root>/keyspaces/<keyspace>/shards/<shard>/Shard; field 1, TabletAlias{cell = 1, uid = 2},
 *    proto/topodata.proto).
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as fsp from 'fs/promises';
import * as http from 'http';
import * as path from 'path';
import * as zlib from 'zlib';
import { CommandResult, cleanEnv, runCommand } from './commands';
import { EtcdHandle, startEtcd } from './etcd';
import { BaseHandle, freePort, launch, waitReady } from './processes';

/** The Vitess release tools/vitess builds (what `vtctld --version` says). */
export const VITESS_RELEASE = '24.0.4';

export interface VitessTools {
  /** The bin dir of tools/vitess (vtctld, vtctldclient). */
  readonly binDir: string;
  readonly vtctld: string;
  readonly vtctldclient: string;
}

let toolsCache: VitessTools | undefined;

/**
 * vtctld and vtctldclient of tools/vitess. Throws, naming `scripts/build-test-tools.sh vitess`, when they are
 * not built (never a skip), and unless they are of VITESS_RELEASE.
 */
export function vitessTools(): VitessTools {
  if (toolsCache) return toolsCache;
  const script = path.resolve(__dirname, '../../../scripts/build-test-tools.sh');
  let binDir: string;
  try {
    binDir = execFileSync(script, ['--dir', 'vitess'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  } catch (e) {
    const stderr = String((e as { stderr?: string }).stderr ?? '').trim();
    throw new Error(
      `Vitess's vtctld and vtctldclient are not built: run scripts/build-test-tools.sh vitess (it builds them from vitess.io/vitess on the Go module proxy into a cache outside the repository; scripts/install-test-deps.sh builds every tools/ module). ${stderr}`,
    );
  }
  const bin = (n: string) => {
    const f = path.join(binDir, n);
    if (!fs.existsSync(f)) throw new Error(`${binDir} has no ${n}: run scripts/build-test-tools.sh vitess again`);
    return f;
  };
  const tools = { binDir, vtctld: bin('vtctld'), vtctldclient: bin('vtctldclient') };
  // "Version: 24.0.4 (Git revision ... branch ...) built on ..." (go/vt/servenv/buildinfo.go, versionInfo.String)
  const out = execFileSync(tools.vtctld, ['--version'], { encoding: 'utf8', env: cleanEnv() });
  if (!out.includes(`Version: ${VITESS_RELEASE} `)) {
    throw new Error(`${tools.vtctld} is not Vitess ${VITESS_RELEASE}: --version says ${JSON.stringify(out.trim())}`);
  }
  toolsCache = tools;
  return tools;
}

/** A backup to write into the storage, as vtbackup (full) or a tablet (incremental) leaves it. */
export interface BackupSpec {
  /** The backup's time (its name's <YYYY-MM-DD.HHMMSS>, UTC). */
  time: Date;
  /** The alias of the tablet that took it: vtbackup's is vtbackup-<uid, 10 digits>. */
  tabletAlias: string;
  /** An incremental backup from this backup (its FromBackup), binary logs only. */
  incrementalFrom?: string;
  /** false: the run died before it wrote the MANIFEST (the files are there, the MANIFEST is not). Default true. */
  complete?: boolean;
}

export interface VtctldOptions {
  /** The cell AddCellInfo registers. Default zone1. */
  cell?: string;
  /** Keyspaces and their shards, created with CreateKeyspace and CreateShard. Default { commerce: ['-'] }. */
  keyspaces?: Record<string, string[]>;
  readyTimeoutMs?: number;
}

export interface VtctldHandle extends BaseHandle {
  /** vtctld's gRPC address, for vtctldclient --server. */
  server: string;
  /** --file-backup-storage-root. */
  backupRoot: string;
  cell: string;
  etcd: EtcdHandle;
  tools: VitessTools;
  /** vtctldclient --server SERVER ARGS; its stdout, rejects on a non-zero exit. */
  vtctldclient(args: string[]): Promise<string>;
  /** Same, never rejects for an exit code. */
  vtctldclientRaw(args: string[]): Promise<CommandResult>;
  /** The topology's shard record gets primary_alias <cell>-<uid> (see the file comment). */
  setPrimary(keyspace: string, shard: string, uid: number): Promise<void>;
  /** Writes a backup directory (see the file comment); returns its name. */
  writeBackup(keyspace: string, shard: string, backup: BackupSpec): Promise<string>;
  /** The backup directories of a shard in the storage, sorted (what is on disk, not what vtctld says). */
  storedBackups(keyspace: string, shard: string): string[];
}

const GLOBAL_ROOT = '/vitess/global';

/** <YYYY-MM-DD>.<HHMMSS> of a UTC time (mysqlctl.BackupTimestampFormat, "2006-01-02.150405"). */
export function backupTimestamp(t: Date): string {
  const iso = t.toISOString(); // 2025-02-25T22:06:02.000Z
  return `${iso.slice(0, 10)}.${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}`;
}

/** Go's time.RFC3339 of a UTC time: seconds, Z. */
function rfc3339(t: Date): string {
  return `${t.toISOString().slice(0, 19)}Z`;
}

/** Starts etcd, then vtctld on it; registers the cell and creates the keyspaces and shards. stop() stops both. */
export async function startVtctld(opts: VtctldOptions = {}): Promise<VtctldHandle> {
  const tools = vitessTools();
  const cell = opts.cell ?? 'zone1';
  const keyspaces = opts.keyspaces ?? { commerce: ['-'] };
  const etcd = await startEtcd();
  const topoAddress = etcd.endpoint.replace(/^http:\/\//, '');
  const client = (server: string) => (args: string[]) =>
    runCommand(tools.vtctldclient, ['--server', server, ...args], { env: cleanEnv(), timeoutMs: 60000 });
  const owner = serverUser();
  let launched;
  try {
    launched = await launch({
      label: 'vtctld',
      binary: owner ? 'setpriv' : tools.vtctld,
      prepare: async (dir) => {
        const backupRoot = path.join(dir, 'backups');
        await fsp.mkdir(backupRoot);
        if (owner) {
          await fsp.chown(dir, owner.uid, owner.gid);
          await fsp.chown(backupRoot, owner.uid, owner.gid);
        }
        return { httpPort: await freePort(), grpcPort: await freePort(), backupRoot };
      },
      // v24 registers the dashed names (and normalizes underscores, with a deprecation warning)
      argv: ({ httpPort, grpcPort, backupRoot }) => [
        ...(owner ? [`--reuid=${owner.uid}`, `--regid=${owner.gid}`, '--clear-groups', '--', tools.vtctld] : []),
        '--topo-implementation=etcd2',
        `--topo-global-server-address=${topoAddress}`,
        `--topo-global-root=${GLOBAL_ROOT}`,
        '--service-map=grpc-vtctl,grpc-vtctld',
        '--backup-storage-implementation=file',
        `--file-backup-storage-root=${backupRoot}`,
        '--bind-address=127.0.0.1',
        `--port=${httpPort}`,
        '--grpc-bind-address=127.0.0.1',
        `--grpc-port=${grpcPort}`,
      ],
      env: (dir) => cleanEnv({ HOME: dir }),
      ready: async (proc, { grpcPort }) => {
        const run = client(`127.0.0.1:${grpcPort}`);
        await waitReady(
          proc,
          'vtctldclient GetCellInfoNames',
          opts.readyTimeoutMs ?? 30000,
          async () => {
            const r = await run(['GetCellInfoNames']);
            if (r.code === 0) return true;
            throw new Error(r.stderr.trim());
          },
          200,
        );
      },
    });
  } catch (e) {
    await etcd.stop();
    throw e;
  }
  const { params, base } = launched;
  const server = `127.0.0.1:${params.grpcPort}`;
  const raw = client(server);
  const ok = async (args: string[]) => {
    const r = await raw(args);
    if (r.code !== 0) {
      throw new Error(
        `vtctldclient ${args.join(' ')} exited with ${r.code ?? r.signal}\n${r.stdout.toString()}\n${r.stderr}`,
      );
    }
    return r.stdout.toString('utf8');
  };
  const handle: VtctldHandle = {
    ...base,
    stop: async () => {
      try {
        await base.stop();
      } finally {
        await etcd.stop();
      }
    },
    server,
    backupRoot: params.backupRoot,
    cell,
    etcd,
    tools,
    vtctldclient: ok,
    vtctldclientRaw: raw,
    setPrimary: (keyspace, shard, uid) => setShardPrimary(etcd.endpoint, keyspace, shard, cell, uid),
    writeBackup: async (keyspace, shard, backup) => {
      const name = await writeBackup(params.backupRoot, keyspace, shard, backup);
      if (owner) await chownTree(params.backupRoot, owner);
      return name;
    },
    storedBackups: (keyspace, shard) => {
      const dir = path.join(params.backupRoot, keyspace, shard);
      return fs.existsSync(dir) ? fs.readdirSync(dir).sort() : [];
    },
  };
  try {
    await ok(['AddCellInfo', '--root', `/vitess/${cell}`, '--server-address', topoAddress, cell]);
    for (const [keyspace, shards] of Object.entries(keyspaces)) {
      await ok(['CreateKeyspace', keyspace]);
      for (const shard of shards) await ok(['CreateShard', `${keyspace}/${shard}`]);
    }
  } catch (e) {
    await handle.stop();
    throw e;
  }
  return handle;
}

/**
 * The user vtctld runs as when the tests run as root: vtctld refuses root ("servenv.Init: running this as
 * root makes no sense", go/vt/servenv/servenv_unix.go, Init), so it runs as nobody through setpriv, and
 * the backups the test writes are given to nobody (RemoveBackup deletes them as vtctld's user).
 */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'nobody'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

async function chownTree(dir: string, owner: { uid: number; gid: number }): Promise<void> {
  await fsp.chown(dir, owner.uid, owner.gid);
  for (const entry of await fsp.readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) await chownTree(p, owner);
    else await fsp.chown(p, owner.uid, owner.gid);
  }
}

// The topology: etcd's JSON gateway (/v3/kv/range, /v3/kv/put: keys and values in base64), binary-safe.

function etcdPost(endpoint: string, api: string, body: object): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const data = JSON.stringify(body);
    const req = http.request(
      `${endpoint}/v3/kv/${api}`,
      { method: 'POST', headers: { 'content-type': 'application/json' }, timeout: 5000 },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (res.statusCode !== 200) reject(new Error(`etcd ${api}: HTTP ${res.statusCode}: ${text}`));
          else resolve(JSON.parse(text) as Record<string, unknown>);
        });
      },
    );
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error(`etcd ${api}: timed out`)));
    req.end(data);
  });
}

function varint(n: number): Buffer {
  const out: number[] = [];
  let v = n;
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return Buffer.from(out);
}

/** A length-delimited protobuf field. */
function lenField(field: number, bytes: Buffer): Buffer {
  return Buffer.concat([varint((field << 3) | 2), varint(bytes.length), bytes]);
}

async function setShardPrimary(endpoint: string, keyspace: string, shard: string, cell: string, uid: number) {
  const key = Buffer.from(`${GLOBAL_ROOT}/keyspaces/${keyspace}/shards/${shard}/Shard`).toString('base64');
  const got = await etcdPost(endpoint, 'range', { key });
  const kvs = got.kvs as { value?: string }[] | undefined;
  if (!kvs || kvs.length !== 1) throw new Error(`setPrimary: no shard record ${keyspace}/${shard} in the topology`);
  const record = Buffer.from(kvs[0].value ?? '', 'base64');
  // TabletAlias{cell = 1 (string), uid = 2 (varint)} as Shard field 1; a field appended to a record
  // that has none sets it (the record of CreateShard has no primary_alias).
  const alias = Buffer.concat([lenField(1, Buffer.from(cell)), varint((2 << 3) | 0), varint(uid)]);
  const value = Buffer.concat([record, lenField(1, alias)]).toString('base64');
  await etcdPost(endpoint, 'put', { key, value });
}

// The file backup storage, as vtbackup's builtin engine writes it.

const SERVER_UUID = '16b1039f-22b6-11ed-b765-0a43f95f28a3';

async function writeBackup(root: string, keyspace: string, shard: string, b: BackupSpec): Promise<string> {
  const name = `${backupTimestamp(b.time)}.${b.tabletAlias}`;
  const dir = path.join(root, keyspace, shard, name);
  await fsp.mkdir(dir, { recursive: true });
  // The files: a full backup has the data dir's, InnoDB's and the binary log's; an incremental one the
  // binary logs since its FromPosition (builtinbackupengine.go, executeFullBackup / executeIncrementalBackup).
  const files = b.incrementalFrom
    ? [{ Base: 'BinLog', Name: 'vt-0000000102-bin.000002', data: 'binlog events' }]
    : [
        { Base: 'InnoDBData', Name: 'ibdata1', data: 'innodb system tablespace' },
        { Base: 'InnoDBLog', Name: '#innodb_redo/#ib_redo9', data: 'innodb redo log' },
        { Base: 'Data', Name: `vt_${keyspace}/corder.ibd`, data: 'table data' },
      ];
  const entries = [];
  for (const [i, f] of files.entries()) {
    // pargzip writes gzip; the entry's Hash is the hex CRC-32 (IEEE) of the stored bytes (backupPipe.HashString)
    const stored = zlib.gzipSync(Buffer.from(f.data));
    await fsp.writeFile(path.join(dir, String(i)), stored);
    entries.push({
      Base: f.Base,
      Name: f.Name,
      Hash: zlib.crc32(stored).toString(16).padStart(8, '0'),
      ParentPath: '',
    });
  }
  if (b.complete === false) return name;
  const position = `MySQL56/${SERVER_UUID}:1-${b.incrementalFrom ? 700 : 615}`;
  // builtinBackupManifest: the BackupManifest fields in order (backupengine.go), then CompressionEngine,
  // FileEntries, SkipCompress, ExternalDecompressor (builtinbackupengine.go, backupManifest)
  const manifest = {
    BackupName: name,
    BackupMethod: 'builtin',
    Position: position,
    PurgedPosition: '',
    FromPosition: b.incrementalFrom ? `MySQL56/${SERVER_UUID}:1-615` : '',
    FromBackup: b.incrementalFrom ?? '',
    Incremental: b.incrementalFrom !== undefined,
    BackupTime: rfc3339(b.time),
    FinishedTime: rfc3339(new Date(b.time.getTime() + 60000)),
    ServerUUID: SERVER_UUID,
    TabletAlias: b.tabletAlias,
    Hostname: `${b.tabletAlias}.example`,
    Keyspace: keyspace,
    Shard: shard,
    MySQLVersion: '8.0.40',
    UpgradeSafe: false,
    IncrementalDetails: b.incrementalFrom
      ? {
          FirstTimestamp: rfc3339(new Date(b.time.getTime() - 3600000)),
          FirstTimestampBinlog: 'vt-0000000102-bin.000002',
          LastTimestamp: rfc3339(b.time),
          LastTimestampBinlog: 'vt-0000000102-bin.000002',
        }
      : null,
    CompressionEngine: 'pargzip',
    FileEntries: entries,
    SkipCompress: false,
    ExternalDecompressor: '',
  };
  await fsp.writeFile(path.join(dir, 'MANIFEST'), JSON.stringify(manifest, null, 2));
  return name;
}
