import fs = require('fs');
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'fs';
import { join } from 'path';
import { parseAllDocuments } from 'yaml';
import { renderPolicy, toYaml } from '../../../lib';
import { etcdPolicy } from '../engines/etcd/fixtures';
import { vitessPolicy } from '../engines/vitess/fixtures';
import { BAD_POLICY, run, tempDir, writePolicy } from './fixtures';

const dir = tempDir('synth');
const good = writePolicy(dir, 'good.yaml', vitessPolicy());
const bad = writePolicy(dir, 'bad.yaml', BAD_POLICY);

test('to stdout: one YAML document per object, the bytes toYaml gives', () => {
  const r = run(['synth', good]);
  expect(r).toEqual({ code: 0, stdout: toYaml(renderPolicy(vitessPolicy())), stderr: '' });
  expect(parseAllDocuments(r.stdout).map((d) => (d.toJS() as { metadata: { name: string } }).metadata.name)).toEqual([
    expect.stringMatching(/^example-scripts-[0-9a-f]{10}$/),
    'example-daily-commerce-x-x',
  ]);
});

test('-o json: one v1 List of every object of every input, as kubectl get -o json prints (apply -f takes it)', () => {
  const second = writePolicy(dir, 'second.yaml', etcdPolicy());
  const r = run(['synth', good, second, '-o', 'json']);
  expect(r.code).toBe(0);
  const list = JSON.parse(r.stdout) as Record<string, unknown>;
  expect(Object.keys(list)).toEqual(['apiVersion', 'items', 'kind']);
  expect(list).toEqual({
    apiVersion: 'v1',
    kind: 'List',
    items: [...renderPolicy(vitessPolicy()), ...renderPolicy(etcdPolicy())],
  });
  expect(run(['synth', good, '--output=json']).stdout).toBe(run(['synth', good, '-o', 'json']).stdout);
  expect(run(['synth', good, '-o', 'yaml']).stdout).toBe(run(['synth', good]).stdout);
});

test('- reads the policy from standard input', () => {
  const r = run(['synth', '-'], JSON.stringify(vitessPolicy()));
  expect(r.code).toBe(0);
  expect(r.stdout).toBe(run(['synth', good]).stdout);
  const invalid = run(['synth', '-'], BAD_POLICY);
  expect(invalid.code).toBe(1);
  expect(invalid.stderr).toContain('<stdin>: invalid BackupPolicy (3 problems)');
  expect(invalid.stderr).toContain('<stdin>:3:12: metadata.name: received "Bad"');
  expect(run(['synth', '-', '-'], '').stderr).toMatch(/^"-" \(standard input\) can be given only once\n/);
});

test('--out writes one file per policy, named after it, with the bytes of stdout', () => {
  const out = join(dir, 'out');
  const r = run(['synth', good, '--out', out]);
  expect(r.code).toBe(0);
  expect(r.stderr).toBe(`wrote ${join(out, 'example.k8s.yaml')}\n`);
  expect(readdirSync(out)).toEqual(['example.k8s.yaml']);
  expect(readFileSync(join(out, 'example.k8s.yaml'), 'utf8')).toBe(run(['synth', good]).stdout);
});

describe('--out removes the files an earlier synth wrote that no input renders any more, and nothing else', () => {
  const out = join(dir, 'stale');
  const etcdFile = writePolicy(dir, 'etcd.yaml', etcdPolicy());
  const foreign: Record<string, string> = {
    // not ours: objects without the label, mixed files, other names, aliases, not YAML
    'hand-written.k8s.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: mine\n',
    'mixed.k8s.yaml': `${toYaml(renderPolicy(etcdPolicy({}, {}, 'gone')))}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: mine\n`,
    'other-tool.k8s.yaml':
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  labels:\n    app.kubernetes.io/managed-by: Helm\n',
    'aliased.k8s.yaml': 'a: &l {app.kubernetes.io/managed-by: backup-cronjobs}\nmetadata: {labels: *l}\n',
    'broken.k8s.yaml': 'metadata: [unclosed\n',
    'empty.k8s.yaml': '',
    'notes.yaml': toYaml(renderPolicy(etcdPolicy({}, {}, 'notes'))),
    'README.md': '# manifests\n',
  };

  test('a policy dropped from the inputs loses its file; foreign files and directories survive byte for byte', () => {
    mkdirSync(out, { recursive: true });
    for (const [name, text] of Object.entries(foreign)) writeFileSync(join(out, name), text);
    mkdirSync(join(out, 'sub.k8s.yaml'));
    expect(run(['synth', good, etcdFile, '--out', out]).code).toBe(0);
    expect(
      readdirSync(out)
        .filter((f) => ['example.k8s.yaml', 'etcd.k8s.yaml'].includes(f))
        .sort(),
    ).toEqual(['etcd.k8s.yaml', 'example.k8s.yaml']);

    const r = run(['synth', good, '--out', out]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      `wrote ${join(out, 'example.k8s.yaml')}\nremoved ${join(out, 'etcd.k8s.yaml')} (an earlier synth wrote it; no input renders policy etcd now)\n`,
    );
    expect(readdirSync(out).sort()).toEqual([...Object.keys(foreign), 'example.k8s.yaml', 'sub.k8s.yaml'].sort());
    for (const [name, text] of Object.entries(foreign))
      expect({ name, text: readFileSync(join(out, name), 'utf8') }).toEqual({ name, text });
  });

  test('a file synth wrote for a policy that is still an input is rewritten, not removed', () => {
    const again = run(['synth', good, '--out', out]);
    expect(again.stderr).toBe(`wrote ${join(out, 'example.k8s.yaml')}\n`);
  });
});

describe('--out reads no file it writes, and earlier files only as far as it must to know they are its own', () => {
  const out = join(dir, 'reads');
  const etcdFile = writePolicy(dir, 'etcd-reads.yaml', etcdPolicy());

  /** Runs the CLI, recording the bytes read from each file under `out` (by readFileSync, or open + readSync). */
  function runReading(args: readonly string[]): {
    code: number;
    stderr: string;
    bytesRead: Map<string, number>;
    writes: string[];
  } {
    const bytesRead = new Map<string, number>();
    const writes: string[] = [];
    const paths = new Map<number, string>();
    const realOpen = fs.openSync;
    const realRead = fs.readSync;
    const realReadFile = fs.readFileSync;
    const spies = [
      jest.spyOn(fs, 'openSync').mockImplementation(((path: fs.PathLike, flags?: fs.OpenMode, mode?: fs.Mode) => {
        const fd = realOpen(path, flags ?? 'r', mode);
        paths.set(fd, String(path));
        if (flags === 'w') writes.push(String(path));
        return fd;
      }) as typeof fs.openSync),
      jest.spyOn(fs, 'readSync').mockImplementation((fd: number, ...rest: unknown[]) => {
        const n = (realRead as (...a: unknown[]) => number)(fd, ...rest);
        const path = paths.get(fd);
        if (path?.startsWith(out)) bytesRead.set(path, (bytesRead.get(path) ?? 0) + n);
        return n;
      }),
      jest.spyOn(fs, 'readFileSync').mockImplementation(((path: fs.PathOrFileDescriptor, options?: unknown) => {
        const r = (realReadFile as (...a: unknown[]) => string | Buffer)(path, options);
        if (String(path).startsWith(out)) bytesRead.set(String(path), (bytesRead.get(String(path)) ?? 0) + r.length);
        return r;
      }) as typeof fs.readFileSync),
    ];
    try {
      const r = run(args);
      return { code: r.code, stderr: r.stderr, bytesRead, writes };
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
  }

  test('its own outputs, from this run or an earlier one, are never read', () => {
    mkdirSync(out, { recursive: true });
    const first = runReading(['synth', good, etcdFile, '--out', out]);
    expect(first.code).toBe(0);
    expect(first.writes.sort()).toEqual([join(out, 'etcd.k8s.yaml'), join(out, 'example.k8s.yaml')]);
    expect(first.bytesRead).toEqual(new Map());
    const again = runReading(['synth', good, etcdFile, '--out', out]);
    expect(again.code).toBe(0);
    expect(again.writes).toHaveLength(2);
    expect(again.bytesRead).toEqual(new Map());
  });

  test('a foreign file is read up to the end of its first foreign document (and kept); a file of ours is read whole (and removed)', () => {
    const ours = join(out, 'etcd.k8s.yaml');
    const oursText = readFileSync(ours, 'utf8');
    // big files of many documents (4 MiB), as another tool writes them: none labelled managed-by backup-cronjobs
    const theirs = (i: number) =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: theirs-${i}\n  labels:\n    app.kubernetes.io/managed-by: Helm\ndata:\n  x: "${'y'.repeat(4000)}"\n`;
    const big = Array.from({ length: 1024 }, (_, i) => theirs(i)).join('---\n');
    const foreignName = join(out, 'big-foreign.k8s.yaml');
    const foreignText = `${big}---\n${oursText}`;
    writeFileSync(foreignName, foreignText);
    // a foreign file whose first documents are ours: read past them, up to the first foreign one
    const lateName = join(out, 'late-foreign.k8s.yaml');
    const lateText = `${oursText}---\n${big}`;
    writeFileSync(lateName, lateText);

    const r = runReading(['synth', good, '--out', out]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      `wrote ${join(out, 'example.k8s.yaml')}\nremoved ${ours} (an earlier synth wrote it; no input renders policy etcd now)\n`,
    );
    expect(r.bytesRead.get(ours)).toBe(Buffer.byteLength(oursText));
    expect(r.bytesRead.get(join(out, 'example.k8s.yaml'))).toBeUndefined();
    expect(r.bytesRead.get(foreignName)).toBeLessThan(Buffer.byteLength(foreignText) / 10);
    expect(r.bytesRead.get(lateName)).toBeGreaterThan(Buffer.byteLength(oursText));
    expect(r.bytesRead.get(lateName)).toBeLessThan(Buffer.byteLength(lateText) / 10);
    expect(readFileSync(foreignName, 'utf8')).toBe(foreignText);
    expect(readFileSync(lateName, 'utf8')).toBe(lateText);
    expect(existsSync(ours)).toBe(false);
  });
});

test('any bad input: exit 1, every error on stderr, nothing written', () => {
  const out = join(dir, 'never');
  const r = run(['synth', good, bad, '--out', out]);
  expect(r.code).toBe(1);
  expect(existsSync(out)).toBe(false);
  expect(r.stdout).toBe('');
  expect(r.stderr).toContain(`${bad}: invalid BackupPolicy (3 problems)`);
  expect(r.stderr).toContain(`${bad}:3:12: metadata.name: received "Bad"; must be a DNS-1123 label`);
  expect(r.stderr).toContain(`${bad}:4:19: spec.defaults.suspend: expected boolean, received string "maybe"`);
  expect(r.stderr).toContain(`${bad}:4:1: spec: received no engine; set exactly one of: vitess, redis, etcd`);
});

test('two inputs rendering the same object: exit 1, naming both sources and the object, nothing written', () => {
  const a = writePolicy(dir, 'collide-a.yaml', etcdPolicy({ mode: 'perNode', nodes: ['b-c'] }, {}, 'a'));
  const b = writePolicy(dir, 'collide-b.yaml', etcdPolicy({ mode: 'perNode', nodes: ['c'] }, {}, 'a-b'));
  for (const command of ['synth', 'validate']) {
    const r = run([command, a, b]);
    expect(r).toEqual({
      code: 1,
      stdout: '',
      stderr: expect.stringContaining(
        `CronJob.batch kube-system/a-b-c is rendered by both ${a} (policy a) and ${b} (policy a-b)`,
      ) as unknown,
    });
  }
});

test('two policies of one name would write one file: exit 1', () => {
  const twin = writePolicy(dir, 'twin.yaml', {
    ...vitessPolicy(),
    metadata: { name: 'example', namespace: 'elsewhere' },
  });
  const r = run(['synth', good, twin]);
  expect(r.code).toBe(1);
  expect(r.stderr).toBe(
    `${twin}: a second policy is named example: each policy needs its own name (its output file is example.k8s.yaml)\n`,
  );
});

test.each([
  [['synth'], 'no policy file given (a file name, or - for standard input)'],
  [['synth', good, '--bogus'], 'unknown option "--bogus"'],
  [['synth', good, '--outt', 'x'], 'unknown option "--outt" (did you mean --out?)'],
  [['synth', good, '--out'], '--out needs a value'],
  [['synth', good, '-o'], '-o, --output needs a value'],
  [['synth', good, '-o', 'manifests'], '-o, --output: received "manifests"; allowed: yaml, json'],
  [
    ['synth', good, '-o', 'json', '--out', 'x'],
    '-o json prints to stdout; --out writes YAML files (as cdk8s synth does): give one of them',
  ],
])('usage error %j: exit 2, one line and where the help is', (args, message) => {
  const r = run(args);
  expect(r).toEqual({ code: 2, stdout: '', stderr: `${message}\nRun "backup-cronjobs synth --help" for usage.\n` });
});

test('--out naming an existing file is a usage error, the file untouched', () => {
  const file = writePolicy(dir, 'not-a-dir', 'keep me');
  const r = run(['synth', good, '--out', file]);
  expect(r.code).toBe(2);
  expect(r.stderr).toBe(
    `--out ${file}: exists and is not a directory\nRun "backup-cronjobs synth --help" for usage.\n`,
  );
  expect(readFileSync(file, 'utf8')).toBe('keep me');
});

test('a missing file is an error naming it', () => {
  const r = run(['synth', join(dir, 'nope.yaml')]);
  expect(r.code).toBe(1);
  expect(r.stderr).toMatch(/nope\.yaml: cannot read: ENOENT/);
});
