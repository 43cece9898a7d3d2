// spec.etcd.controlPlaneFiles, for real: the rendered backup pod archives host directories (kubeadm's
// /etc/kubernetes/pki and /etc/kubernetes/manifests, mapped to temp dirs) with busybox's tar in the
// snapshot step, lists the archive back, and stores it beside the snapshot -- in the clear only with
// allowUnencrypted, else encrypted by the real age. The archive is read back here with GNU tar.
import { createHash } from 'crypto';
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { EtcdTlsHandle, S3Handle, requireCommands, startEtcdTls, startS3, stopAll } from '../../../../support/services';
import {
  ageDecrypt,
  ageKeypair,
  cronJobOf,
  errorLines,
  etcdPolicy,
  filesOf,
  parseSnapshotMetadata,
  removeTempDirs,
  runPod,
  tempDir,
  walk,
} from '../fixtures';

jest.setTimeout(120000);

const SNAPSHOT = /^etcd-snapshot_etcd_\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ_cp-1\.db$/;
const SUFFIX = '.control-plane-files.tar.gz';
const BUCKET = 'etcd-files';
const LONG = 'a-directory-name-long-enough/that-the-whole-path-in-the-archive/is-longer-than-one-hundred-characters';

let etcd: EtcdTlsHandle;
let s3: S3Handle;
const key = { identity: '', recipient: '' };

beforeAll(async () => {
  requireCommands('etcd', 'etcdctl', 'busybox', 'age', 'age-keygen', 'tar');
  [etcd, s3] = await Promise.all([startEtcdTls(), startS3({ buckets: [BUCKET] })]);
  await etcd.etcdctl(['put', '/registry/x', 'y']);
  Object.assign(key, ageKeypair());
});

afterAll(async () => {
  await stopAll();
  removeTempDirs();
});

/** kubeadm's two directories, as on a control-plane node: keys 0600, nested dirs, a symlink, a long path, an empty dir. */
function controlPlaneDirs(): { pki: string; manifests: string; archived: Record<string, string> } {
  const pki = tempDir('pki');
  const manifests = tempDir('manifests');
  const files: [string, string, string, number][] = [
    [pki, 'ca.crt', 'CA CERT', 0o644],
    [pki, 'ca.key', 'CA KEY', 0o600],
    [pki, 'etcd/ca.key', 'ETCD CA KEY', 0o600],
    [pki, 'etcd/healthcheck-client.crt', 'CLIENT', 0o644],
    [pki, `${LONG}/sa.key`, 'SA KEY', 0o600],
    [manifests, 'etcd.yaml', 'kind: Pod', 0o600],
    [manifests, 'kube-apiserver.yaml', 'kind: Pod', 0o600],
  ];
  const archived: Record<string, string> = {};
  for (const [dir, name, content, mode] of files) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), content, { mode });
    archived[`etc/kubernetes/${dir === pki ? 'pki' : 'manifests'}/${name}`] = content;
  }
  fs.symlinkSync('ca.crt', path.join(pki, 'front-proxy-ca.crt'));
  archived['etc/kubernetes/pki/front-proxy-ca.crt'] = '-> ca.crt';
  fs.mkdirSync(path.join(manifests, 'empty'));
  return { pki, manifests, archived };
}

const volumes = (dest: string | undefined, dirs: { pki: string; manifests: string }) => ({
  ...(dest ? { backup: dest } : {}),
  'etcd-certs': etcd.pkiDir,
  'control-plane-files-0': dirs.pki,
  'control-plane-files-1': dirs.manifests,
});

/** The entries of a tar.gz as GNU tar lists them, each with its content (a symlink: "-> target"). */
function tarContents(archive: string): Record<string, string> {
  const out = tempDir('extracted');
  execFileSync('tar', ['-xzf', archive, '-C', out]);
  return Object.fromEntries(
    walk(out).map((f) => {
      const full = path.join(out, f);
      return [f, fs.lstatSync(full).isSymbolicLink() ? `-> ${fs.readlinkSync(full)}` : fs.readFileSync(full, 'utf8')];
    }),
  );
}
const tarList = (archive: string) =>
  execFileSync('tar', ['-tzf', archive], { encoding: 'utf8' }).split('\n').filter(Boolean).sort();
const sha256 = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

test('allowUnencrypted: <snapshot>.control-plane-files.tar.gz (0600) holds exactly the files and symlinks under host paths; the metadata has its sha256', async () => {
  const dirs = controlPlaneDirs();
  const dest = tempDir('dest');
  const cj = cronJobOf(etcdPolicy({ endpoint: etcd.endpoint, controlPlaneFiles: { allowUnencrypted: true } }));
  const run = await runPod(cj, { volumes: volumes(dest, dirs) });
  expect(run.failed).toBeUndefined();
  expect(run.log).not.toMatch(/ error /);
  const [snapshot] = filesOf(dest).filter((f) => SNAPSHOT.test(f));
  expect(walk(dest)).toEqual([snapshot, `${snapshot}${SUFFIX}`, `${snapshot}.json`]);
  const archive = path.join(dest, `${snapshot}${SUFFIX}`);
  expect(fs.statSync(archive).mode & 0o777).toBe(0o600);
  expect(tarList(archive)).toEqual(Object.keys(dirs.archived).sort());
  expect(tarContents(archive)).toEqual(dirs.archived);
  const meta = parseSnapshotMetadata(fs.readFileSync(path.join(dest, `${snapshot}.json`)));
  expect(meta.controlPlaneFiles).toEqual({
    name: `${snapshot}${SUFFIX}`,
    paths: ['/etc/kubernetes/pki', '/etc/kubernetes/manifests'],
    entries: Object.keys(dirs.archived).length,
    size: fs.statSync(archive).size,
    sha256: sha256(archive),
  });
  expect(meta.encryption).toBeUndefined();
  expect(run.results.snapshot.stderr).toContain(
    `control-plane files archived and listed back: ${Object.keys(dirs.archived).length} entries`,
  );
});

test('with spec.encryption the archive is stored as <snapshot>.control-plane-files.tar.gz.age; no clear archive or snapshot in the destination', async () => {
  const dirs = controlPlaneDirs();
  const dest = tempDir('dest');
  const policy = etcdPolicy(
    { endpoint: etcd.endpoint, controlPlaneFiles: {} },
    { encryption: { age: { image: 'example.com/age:1', recipients: [key.recipient] } } },
  );
  const run = await runPod(cronJobOf(policy), { volumes: volumes(dest, dirs) });
  expect(run.failed).toBeUndefined();
  const [stored] = filesOf(dest).filter((f) => f.endsWith('.db.age'));
  const snapshot = stored.slice(0, -4);
  expect(walk(dest)).toEqual([stored, `${snapshot}${SUFFIX}.age`, `${snapshot}.json`]);
  const encrypted = path.join(dest, `${snapshot}${SUFFIX}.age`);
  expect(fs.readFileSync(encrypted).subarray(0, 21).toString()).toBe('age-encryption.org/v1');
  expect(fs.statSync(encrypted).mode & 0o777).toBe(0o600);
  const clear = path.join(tempDir('clear'), 'files.tar.gz');
  ageDecrypt(key.identity, encrypted, clear);
  expect(tarContents(clear)).toEqual(dirs.archived);
  const meta = parseSnapshotMetadata(fs.readFileSync(path.join(dest, `${snapshot}.json`)));
  expect(meta.controlPlaneFiles).toEqual({
    name: `${snapshot}${SUFFIX}.age`,
    paths: ['/etc/kubernetes/pki', '/etc/kubernetes/manifests'],
    entries: Object.keys(dirs.archived).length,
    size: fs.statSync(clear).size,
    sha256: sha256(clear),
    encryptedSize: fs.statSync(encrypted).size,
    encryptedSha256: sha256(encrypted),
  });
  // the clear archive lived in scratch only, and is gone from there too
  expect(walk(run.volumeDirs.scratch).filter((f) => f.includes('partial'))).toEqual([]);
});

test('S3 with encryption: the archive is uploaded as <key>.control-plane-files.tar.gz.age and its stored size checked', async () => {
  const dirs = controlPlaneDirs();
  const policy = etcdPolicy(
    {
      endpoint: etcd.endpoint,
      controlPlaneFiles: {},
      destination: {
        s3: { bucket: BUCKET, region: 'us-east-1', endpoint: s3.endpoint, credentialsSecret: { name: 's3-creds' } },
      },
    },
    { encryption: { age: { image: 'example.com/age:1', recipients: [key.recipient] } } },
  );
  const run = await runPod(cronJobOf(policy), {
    volumes: volumes(undefined, dirs),
    secrets: { 's3-creds': { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' } },
  });
  expect(run.failed).toBeUndefined();
  const keys = (await s3.listObjects(BUCKET, '')).map((o) => o.key).sort();
  const snapshot = keys.find((k) => k.endsWith('.db.age'))!.slice(0, -4);
  expect(keys).toEqual([`${snapshot}.age`, `${snapshot}${SUFFIX}.age`, `${snapshot}.json`].sort());
  const encrypted = path.join(tempDir('download'), 'files.age');
  fs.writeFileSync(encrypted, await s3.getObject(BUCKET, `${snapshot}${SUFFIX}.age`));
  const clear = path.join(tempDir('clear'), 'files.tar.gz');
  ageDecrypt(key.identity, encrypted, clear);
  expect(tarList(clear)).toEqual(Object.keys(dirs.archived).sort());
  expect(run.results.finalize.stderr).toContain(`with ${snapshot}${SUFFIX}.age`);
});

test('retention deletes an archive with its snapshot, encrypted or not', async () => {
  const dirs = controlPlaneDirs();
  const dest = tempDir('dest');
  const older = ['etcd-snapshot_etcd_2020-01-01T00:00:00Z_cp-1.db', 'etcd-snapshot_etcd_2021-01-01T00:00:00Z_cp-1.db'];
  for (const f of [
    older[0],
    `${older[0]}.json`,
    `${older[0]}${SUFFIX}`,
    `${older[1]}.age`,
    `${older[1]}.json`,
    `${older[1]}${SUFFIX}.age`,
  ]) {
    fs.writeFileSync(path.join(dest, f), 'an older backup');
  }
  const policy = etcdPolicy(
    { endpoint: etcd.endpoint, controlPlaneFiles: { allowUnencrypted: true } },
    { retention: { keepLast: 1 } },
  );
  const run = await runPod(cronJobOf(policy), { volumes: volumes(dest, dirs) });
  expect(run.failed).toBeUndefined();
  const [snapshot] = filesOf(dest).filter((f) => SNAPSHOT.test(f));
  expect(walk(dest)).toEqual([snapshot, `${snapshot}${SUFFIX}`, `${snapshot}.json`]);
});

test('an archive that does not list back what was archived fails the snapshot step before any snapshot is taken; nothing is stored', async () => {
  const dirs = controlPlaneDirs();
  const dest = tempDir('dest');
  // A stand-in tar: creating, it passes the real busybox tar every name but the last (what a split
  // xargs would do); every other call is the real one, unchanged.
  const bin = tempDir('tar-bin');
  const busybox = requireCommands('busybox').busybox;
  fs.writeFileSync(
    path.join(bin, 'tar'),
    [
      '#!/bin/sh',
      `case $1 in -czf) ;; *) exec '${busybox}' tar "$@" ;; esac`,
      'n=$#; i=0; for a in "$@"; do i=$((i + 1)); if [ "$i" -eq 1 ]; then set --; fi; [ "$i" -eq "$n" ] || set -- "$@" "$a"; done',
      `exec '${busybox}' tar "$@"`,
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
  const cj = cronJobOf(etcdPolicy({ endpoint: etcd.endpoint, controlPlaneFiles: { allowUnencrypted: true } }));
  const run = await runPod(cj, { volumes: volumes(dest, dirs), pathPrepend: [bin] });
  expect(run.failed).toBe('snapshot');
  const errors = errorLines(run.results.snapshot);
  expect(errors).toHaveLength(1);
  expect(errors[0]).toMatch(
    /the control-plane files archive .*\.files\.partial lacks etc\/kubernetes\/\S+, which was archived$/,
  );
  expect(run.results.snapshot.stderr).not.toContain('snapshot verified');
  expect(walk(dest)).toEqual([]);
});
