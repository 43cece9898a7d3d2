import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { V1PodSpec } from '@kubernetes/client-node';
import { containerArgv, containerEnv, expandK8s, makePathRewriter, runContainer } from './run-container';

/**
 * Resolves once the process is gone or a zombie (orphans are reaped late here). Gives up after 20 s: a bound
 * on the wait (a process that survives is a failure), not a speed requirement.
 */
async function waitGone(pid: number): Promise<void> {
  const alive = () => {
    try {
      const st = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      return !/^\d+ \(.*\) [ZX] /.test(st);
    } catch {
      return false;
    }
  };
  const end = Date.now() + 20_000;
  while (alive()) {
    if (Date.now() > end) throw new Error(`process ${pid} still running 20 s after its container was torn down`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

let scratch: string;
let backupDir: string;
let pkiDir: string;
let standins: string;

const SCRIPT = `set -eu
mkdir -p "$OUT_DIR"
echo "$A $B $ESCAPED $UNDEF" > "$OUT_DIR/x"
cat /secrets/k > /backup/secret-copy
stat -c %a /secrets/k > /backup/secret-mode
cat /work/init.txt > /backup/from-init
cat /etc/cfg/settings.conf > /backup/settings-copy
cat /etc/kubernetes/pki/etcd/ca.crt > /backup/ca-copy
echo arg > "$1"
aws s3 cp /backup/x s3://bucket/backup/x
echo done
`;

function podSpec(): V1PodSpec {
  return {
    restartPolicy: 'Never',
    initContainers: [
      {
        name: 'init',
        image: 'busybox',
        command: ['/bin/sh', '-c', 'echo from-init > /work/init.txt'],
        volumeMounts: [{ name: 'work', mountPath: '/work' }],
      },
    ],
    containers: [
      {
        name: 'main',
        image: 'busybox',
        command: ['/bin/sh', '-c'],
        args: [SCRIPT, 'sh', '$(OUT_DIR)/arg.txt'],
        env: [
          { name: 'A', value: 'alpha' },
          { name: 'B', value: '$(A)-beta' },
          { name: 'ESCAPED', value: '$$(A)' },
          { name: 'UNDEF', value: '$(NOPE)' },
          { name: 'OUT_DIR', value: '/backup/out' },
          { name: 'PASS', valueFrom: { secretKeyRef: { name: 'creds', key: 'password' } } },
          { name: 'MODE', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'mode' } } },
          { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
          { name: 'NS', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
          { name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
          { name: 'IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
          { name: 'OPT', valueFrom: { secretKeyRef: { name: 'absent', key: 'k', optional: true } } },
          { name: 'ETCD_FLAGS', value: '--cacert=/etc/kubernetes/pki/etcd/ca.crt --data-dir="/backup/data"' },
          { name: 'NOT_MOUNTS', value: '/backups/x /backup.tar s3://bucket/backup /data/backup x/backup' },
          { name: 'AWS_CA_BUNDLE', value: '/etc/ssl/certs/ca-certificates.crt' },
        ],
        volumeMounts: [
          { name: 'backup', mountPath: '/backup' },
          { name: 'secret', mountPath: '/secrets', readOnly: true },
          { name: 'work', mountPath: '/work' },
          { name: 'pki', mountPath: '/etc/kubernetes/pki/etcd', readOnly: true },
          { name: 'cfg', mountPath: '/etc/cfg/settings.conf', subPath: 'settings.conf' },
        ],
      },
    ],
    volumes: [
      { name: 'backup', hostPath: { path: '/var/backups', type: 'DirectoryOrCreate' } },
      {
        name: 'secret',
        secret: {
          secretName: 'creds',
          defaultMode: 0o400,
          items: [
            { key: 'password', path: 'k' },
            { key: 'token', path: 'sub/t', mode: 0o440 },
          ],
        },
      },
      { name: 'work', emptyDir: {} },
      { name: 'pki', hostPath: { path: '/etc/kubernetes/pki/etcd', type: 'Directory' } },
      { name: 'cfg', configMap: { name: 'cfg' } },
    ],
  };
}

const secrets = { creds: { password: 's3cr3t', token: 'tok' } };
const configMaps = { cfg: { mode: 'full', 'settings.conf': 'retention=7\n' } };

beforeAll(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'run-container-test-'));
  backupDir = path.join(scratch, 'backup');
  pkiDir = path.join(scratch, 'pki');
  standins = path.join(scratch, 'bin');
  for (const d of [backupDir, pkiDir, standins]) fs.mkdirSync(d);
  fs.writeFileSync(path.join(pkiDir, 'ca.crt'), 'CA-CERT\n');
  // stand-in `aws`: records its argv, one per line
  fs.writeFileSync(path.join(standins, 'aws'), '#!/bin/sh\nfor a in "$@"; do echo "$a"; done > "$STANDIN_LOG"\n', {
    mode: 0o755,
  });
});

afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

describe('$(VAR) expansion and path rewriting', () => {
  test('expandK8s follows the Kubernetes rules', () => {
    const vars = { A: 'x', EMPTY: '' };
    expect(expandK8s('$(A)', vars)).toBe('x');
    expect(expandK8s('pre-$(A)-$(A)', vars)).toBe('pre-x-x');
    expect(expandK8s('$$(A)', vars)).toBe('$(A)');
    expect(expandK8s('$$', vars)).toBe('$');
    expect(expandK8s('$(NOPE)', vars)).toBe('$(NOPE)');
    expect(expandK8s('$(A', vars)).toBe('$(A');
    expect(expandK8s('$A ${A}', vars)).toBe('$A ${A}');
    expect(expandK8s('a$', vars)).toBe('a$');
    expect(expandK8s('[$(EMPTY)]', vars)).toBe('[]');
  });

  // The cases of the kubelet's own test, doExpansionTest in kubernetes/kubernetes
  // third_party/forked/golang/expansion/expand_test.go (Expand, tryReadVariableName in expand.go:
  // `$` + rune is copied as is, so a `$` before a multi-byte character stays intact).
  test.each([
    ['$(VAR_A)', 'A'],
    ['$(VAR_A)-$(VAR_A)', 'A-A'],
    ['$(VAR_A)-1', 'A-1'],
    ['___$(VAR_B)___', '___B___'],
    ['___$(VAR_C)', '___C'],
    ['$(VAR_A)_$(VAR_B)_$(VAR_C)', 'A_B_C'],
    ['$$(VAR_B)_$(VAR_A)', '$(VAR_B)_A'],
    ['$$(VAR_A)_$$(VAR_B)', '$(VAR_A)_$(VAR_B)'],
    ['f000-$$VAR_A', 'f000-$VAR_A'],
    ['foo\\$(VAR_C)bar', 'foo\\Cbar'],
    ['foo\\\\$(VAR_C)bar', 'foo\\\\Cbar'],
    ['$(VAR_A$(VAR_B))', '$(VAR_A$(VAR_B))'],
    ['$(VAR_A$(VAR_B)', '$(VAR_A$(VAR_B)'],
    ['$(VAR_REF)', '$(VAR_A)'],
    ['%%$(VAR_REF)--$(VAR_REF)%%', '%%$(VAR_A)--$(VAR_A)%%'],
    ['foo$(VAR_EMPTY)bar', 'foobar'],
    ['foo$(VAR_Awhoops!', 'foo$(VAR_Awhoops!'],
    ['f00__(VAR_A)__', 'f00__(VAR_A)__'],
    ['$?_boo_$!', '$?_boo_$!'],
    ['$VAR_A', '$VAR_A'],
    ['$(VAR_DNE)', '$(VAR_DNE)'],
    ['$$$$$$(BIG_MONEY)', '$$$(BIG_MONEY)'],
    ['$$$$$$(VAR_A)', '$$$(VAR_A)'],
    ['$$$$$$$(GOOD_ODDS)', '$$$$(GOOD_ODDS)'],
    ['$$$$$$$(VAR_A)', '$$$A'],
    ['$VAR_A)', '$VAR_A)'],
    ['${VAR_A}', '${VAR_A}'],
    ['$(VAR_B)_______$(A', 'B_______$(A'],
    ['$(VAR_C)_______$(', 'C_______$('],
    ['$(VAR_A)foobarzab$', 'Afoobarzab$'],
    ['foo-\\$(VAR_A', 'foo-\\$(VAR_A'],
    ['--$($($($($--', '--$($($($($--'],
    ['$($($($($--foo$(', '$($($($($--foo$('],
    ['foo0--$($($($(', 'foo0--$($($($('],
    ['$(foo$$var)', '$(foo$$var)'],
    ['\n', '\n'],
    ['$é$日本$😀', '$é$日本$😀'],
  ])('expandK8s(%j) is %j, as in the kubelet', (input, expected) => {
    expect(expandK8s(input, { VAR_A: 'A', VAR_B: 'B', VAR_C: 'C', VAR_REF: '$(VAR_A)', VAR_EMPTY: '' })).toBe(expected);
  });

  test('mount paths are rewritten only at path boundaries, longest first', () => {
    const rw = makePathRewriter({ '/backup': '/H/b', '/backup/sub': '/H/s', '/tmp': '/H/t' });
    const cases: [string, string][] = [
      ['/backup', '/H/b'],
      ['/backup/x', '/H/b/x'],
      ['/backup/sub/y', '/H/s/y'],
      ['/backup/subx', '/H/b/subx'],
      ['--dir=/backup', '--dir=/H/b'],
      ['"/backup/a b"', '"/H/b/a b"'],
      ['a:/backup:/tmp', 'a:/H/b:/H/t'],
      ['cat /backup/k > /tmp/x', 'cat /H/b/k > /H/t/x'],
      ['/backups', '/backups'],
      ['/backup.tar', '/backup.tar'],
      ['/data/backup', '/data/backup'],
      ['s3://bucket/backup', 's3://bucket/backup'],
      ['x/backup', 'x/backup'],
      ['/tmpfoo', '/tmpfoo'],
    ];
    for (const [input, want] of cases) expect([input, rw.rewrite(input)]).toEqual([input, want]);
  });
});

describe('runContainer', () => {
  test('init + main container: env, secrets, configMap, emptyDir, hostPath, args rewriting, stand-ins', async () => {
    const volumeDirs: Record<string, string> = {};
    const volumes = { backup: backupDir, pki: pkiDir };
    const init = await runContainer(podSpec(), 'init', { volumes, volumeDirs, secrets, configMaps });
    expect([init.code, init.stderr]).toEqual([0, '']);
    expect(fs.readFileSync(path.join(volumeDirs.work, 'init.txt'), 'utf8')).toBe('from-init\n');

    const log = path.join(scratch, 'aws-args');
    const r = await runContainer(podSpec(), 'main', {
      volumes,
      volumeDirs,
      secrets,
      configMaps,
      pathPrepend: [standins],
      env: { STANDIN_LOG: log },
    });
    expect({ code: r.code, stderr: r.stderr, stdout: r.stdout, timedOut: r.timedOut }).toEqual({
      code: 0,
      stderr: '',
      stdout: 'done\n',
      timedOut: false,
    });
    expect(r.volumeDirs).toBe(volumeDirs);
    expect(r.mounts['/backup']).toBe(backupDir);

    // env: $(VAR) expansion, escapes, undefined refs
    expect(fs.readFileSync(path.join(backupDir, 'out', 'x'), 'utf8')).toBe('alpha alpha-beta $(A) $(NOPE)\n');
    // args: $(OUT_DIR) expanded, then the mount path rewritten
    expect(r.argv[4]).toBe(path.join(backupDir, 'out', 'arg.txt'));
    expect(fs.readFileSync(path.join(backupDir, 'out', 'arg.txt'), 'utf8')).toBe('arg\n');
    // secret volume, with modes
    expect(fs.readFileSync(path.join(backupDir, 'secret-copy'), 'utf8')).toBe('s3cr3t');
    expect(fs.readFileSync(path.join(backupDir, 'secret-mode'), 'utf8')).toBe('400\n');
    expect(fs.statSync(path.join(volumeDirs.secret, 'k')).mode & 0o777).toBe(0o400);
    expect(fs.statSync(path.join(volumeDirs.secret, 'sub', 't')).mode & 0o777).toBe(0o440);
    expect(fs.existsSync(path.join(volumeDirs.secret, 'password'))).toBe(false); // items select keys
    // emptyDir shared with the init container
    expect(fs.readFileSync(path.join(backupDir, 'from-init'), 'utf8')).toBe('from-init\n');
    // configMap subPath file mount and a mapped hostPath
    expect(fs.readFileSync(path.join(backupDir, 'settings-copy'), 'utf8')).toBe('retention=7\n');
    expect(fs.readFileSync(path.join(backupDir, 'ca-copy'), 'utf8')).toBe('CA-CERT\n');
    // the stand-in got rewritten local paths, untouched s3 URLs
    expect(fs.readFileSync(log, 'utf8').split('\n')).toEqual([
      's3',
      'cp',
      path.join(backupDir, 'x'),
      's3://bucket/backup/x',
      '',
    ]);

    // the resolved env
    const env = r.env;
    expect(env).toMatchObject({
      A: 'alpha',
      B: 'alpha-beta',
      PASS: 's3cr3t',
      MODE: 'full',
      POD: 'test-pod',
      NS: 'default',
      NODE: 'test-node',
      IP: '127.0.0.1',
      LANG: 'C',
      OUT_DIR: path.join(backupDir, 'out'),
      ETCD_FLAGS: `--cacert=${pkiDir}/ca.crt --data-dir="${backupDir}/data"`,
      NOT_MOUNTS: '/backups/x /backup.tar s3://bucket/backup /data/backup x/backup',
    });
    expect(env).not.toHaveProperty('OPT');
    expect(env).not.toHaveProperty('AWS_CA_BUNDLE');
    expect(env).not.toHaveProperty('JEST_WORKER_ID'); // nothing leaks from the test process
    expect(env.PATH).toBe(`${standins}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`);
    expect(env.HOME.startsWith(os.tmpdir())).toBe(true);
  });

  test('opts.env overrides in place (later references see it), opts.pod changes fieldRefs; CronJob objects are accepted', () => {
    const cronJob = {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      spec: { jobTemplate: { spec: { template: { spec: podSpec() } } } },
    };
    const env = containerEnv(cronJob, 'main', {
      volumes: { backup: backupDir, pki: pkiDir },
      secrets,
      configMaps,
      env: { A: 'over/backup', EXTRA: '1' },
      pod: { name: 'p-1', namespace: 'backups' },
    });
    expect(env).toMatchObject({ A: 'over/backup', B: 'over/backup-beta', EXTRA: '1', POD: 'p-1', NS: 'backups' });
    const vd: Record<string, string> = {};
    const { argv } = containerArgv(podSpec(), 'main', {
      volumes: { backup: backupDir, pki: pkiDir },
      secrets,
      configMaps,
      volumeDirs: vd,
    });
    expect(argv.slice(0, 2)).toEqual(['/bin/sh', '-c']);
    expect(argv[2]).toContain(`cat ${vd.secret}/k > ${backupDir}/secret-copy\n`); // script text rewritten
    expect(argv[2]).not.toMatch(/ \/backup\//);
    expect(argv[2]).toContain('s3://bucket/backup/x');
  });

  test("AWS_CA_BUNDLE naming a file the manifest mounts is kept (rewritten); the machine's own bundle never", () => {
    const spec = {
      containers: [
        {
          name: 'main',
          image: 'x',
          command: ['/bin/sh', '-c', 'true'],
          env: [{ name: 'AWS_CA_BUNDLE', value: '/etc/backup-cronjobs/s3-ca/ca.crt' }],
          volumeMounts: [{ name: 'ca', mountPath: '/etc/backup-cronjobs/s3-ca', readOnly: true }],
        },
      ],
      volumes: [{ name: 'ca', configMap: { name: 'minio-ca', items: [{ key: 'ca.crt', path: 'ca.crt' }] } }],
    };
    const volumeDirs: Record<string, string> = {};
    const env = containerEnv(spec, 'main', { configMaps: { 'minio-ca': { 'ca.crt': 'PEM' } }, volumeDirs });
    expect(env.AWS_CA_BUNDLE).toBe(`${volumeDirs.ca}/ca.crt`);
    expect(fs.readFileSync(env.AWS_CA_BUNDLE, 'utf8')).toBe('PEM');
  });

  test('missing inputs fail loudly', () => {
    const base = { volumes: { backup: backupDir, pki: pkiDir }, secrets, configMaps };
    expect(() => containerEnv(podSpec(), 'main', { ...base, volumes: { backup: backupDir } })).toThrow(
      /hostPath volume "pki" \(\/etc\/kubernetes\/pki\/etcd\) must be mapped explicitly via opts.volumes/,
    );
    expect(() => containerEnv(podSpec(), 'main', { ...base, secrets: {} })).toThrow(/Secret "creds"/);
    expect(() => containerEnv(podSpec(), 'nope', base)).toThrow(/no container named "nope".*main.*init/);
    const noCommand = podSpec();
    delete noCommand.containers[0].command;
    expect(() => containerArgv(noCommand, 'main', base)).toThrow(/has no command/);
  });

  test('a non-zero exit is reported with its output', async () => {
    const spec = { containers: [{ name: 'c', command: ['/bin/sh', '-c', 'echo out; echo boom >&2; exit 3'] }] };
    const r = await runContainer(spec, 'c');
    expect(r).toMatchObject({ code: 3, signal: null, stdout: 'out\n', stderr: 'boom\n', timedOut: false });
  });

  // The background `sleep` outlives jest's test timeout: if runContainer waited for it instead of killing
  // it, the test would fail on that timeout.
  test('a timeout kills the whole process group', async () => {
    const pidFile = path.join(scratch, 'bg.pid');
    const spec = {
      containers: [
        {
          name: 'c',
          command: ['/bin/sh', '-c', 'sleep 3600 & echo $! > "$PIDFILE"; wait'],
          env: [{ name: 'PIDFILE', value: pidFile }],
        },
      ],
    };
    const r = await runContainer(spec, 'c', { timeoutMs: 500 });
    expect({ timedOut: r.timedOut, code: r.code, signal: r.signal }).toEqual({
      timedOut: true,
      code: null,
      signal: 'SIGTERM',
    });
    const bg = Number(fs.readFileSync(pidFile, 'utf8'));
    await waitGone(bg);
  });

  test('processes left behind by the container are killed when it exits', async () => {
    const pidFile = path.join(scratch, 'left.pid');
    const spec = {
      containers: [{ name: 'c', command: ['/bin/sh', '-c', `sleep 3600 & echo $! > ${pidFile}; echo bye`] }],
    };
    const r = await runContainer(spec, 'c');
    expect([r.code, r.stdout, r.timedOut]).toEqual([0, 'bye\n', false]);
    const bg = Number(fs.readFileSync(pidFile, 'utf8'));
    await waitGone(bg);
  });
});

describe('runContainer with enforceSecurityContext', () => {
  const restricted = { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, readOnlyRootFilesystem: true };
  const PROBE = `
id -u; id -g; id -G | tr ' ' '\\n' | sort -n | tr '\\n' ' '; echo
grep '^CapEff' /proc/self/status | tr -d '\\t'
touch /scratch/ok && echo scratch-writable
touch /tmp/x 2>/dev/null && echo tmp-writable || echo tmp-read-only
touch "$HOME/x" 2>/dev/null && echo home-writable || echo home-read-only
touch /keys/x 2>/dev/null && echo keys-writable || echo keys-read-only
cat /keys/k; echo
stat -c '%a %g' /scratch`;
  const pod = (securityContext: Record<string, unknown>) => ({
    securityContext,
    volumes: [
      { name: 'scratch', emptyDir: {} },
      { name: 'keys', secret: { secretName: 's', defaultMode: 0o440 } },
    ],
    containers: [
      {
        name: 'c',
        command: ['/bin/sh', '-c', PROBE],
        volumeMounts: [
          { name: 'scratch', mountPath: '/scratch' },
          { name: 'keys', mountPath: '/keys', readOnly: true },
        ],
        securityContext: restricted,
      },
    ],
  });
  const secrets = { s: { k: 'secret-value' } };

  test("a non-root pod: its uid, gid and groups, no capabilities, a read-only root and read-only mounts; fsGroup makes volumes its group's", async () => {
    const r = await runContainer(pod({ runAsUser: 1001, runAsGroup: 1002, fsGroup: 1003, runAsNonRoot: true }), 'c', {
      secrets,
      enforceSecurityContext: true,
    });
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    expect(r.stdout.split('\n')).toEqual([
      '1001',
      '1002',
      '1002 1003 ',
      'CapEff:0000000000000000',
      'scratch-writable',
      'tmp-read-only',
      'home-read-only',
      'keys-read-only',
      'secret-value',
      '2777 1003',
      '',
    ]);
  });

  test("uid 0 without capabilities cannot read another user's 0600 file; without readOnlyRootFilesystem / stays writable", async () => {
    const foreign = path.join(scratch, 'foreign');
    fs.writeFileSync(foreign, 'x', { mode: 0o600 });
    fs.chownSync(foreign, 1234, 1234);
    const spec = {
      securityContext: { runAsUser: 0 },
      containers: [
        {
          name: 'c',
          command: [
            '/bin/sh',
            '-c',
            `cat ${foreign} 2>/dev/null || echo denied; touch ${scratch}/root-ok && echo root-writable`,
          ],
          securityContext: { ...restricted, readOnlyRootFilesystem: false },
        },
      ],
    };
    const r = await runContainer(spec, 'c', { enforceSecurityContext: true });
    expect([r.code, r.stdout]).toEqual([0, 'denied\nroot-writable\n']);
  });

  test('runAsNonRoot with uid 0 is refused, as the kubelet refuses it', async () => {
    await expect(
      runContainer(pod({ runAsNonRoot: true }), 'c', { secrets, enforceSecurityContext: true }),
    ).rejects.toThrow(/runAsNonRoot/);
  });
});
