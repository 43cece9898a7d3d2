// age.sh with the real age binary (Debian package age): encrypt, fingerprints, decrypt, and clean failures.
import { execFileSync, spawnSync } from 'child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { createHash } from 'crypto';
import { tmpdir } from 'os';
import { join } from 'path';
import { ageIdentityParts, ageRecipientsParts } from '../../../lib/workload/encryption';

const SCRIPTS = join(__dirname, '..', '..', '..', 'lib', 'scripts');
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'bc-age-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A fresh identity file and its recipient, from the real age-keygen. */
function keypair(name: string): { identity: string; recipient: string } {
  const identity = join(dir, `${name}.key`);
  execFileSync('age-keygen', ['-o', identity], { stdio: 'ignore' });
  return { identity, recipient: execFileSync('age-keygen', ['-y', identity], { encoding: 'utf8' }).trim() };
}

/** Runs `body` after common.sh and age.sh under /bin/sh. */
function run(
  body: string,
  env: Record<string, string>,
  input?: Buffer,
): { code: number; stdout: Buffer; stderr: string } {
  const script = [
    readFileSync(join(SCRIPTS, 'common.sh'), 'utf8'),
    readFileSync(join(SCRIPTS, 'age.sh'), 'utf8'),
    body,
  ].join('\n');
  const r = spawnSync('/bin/sh', ['-c', script, 'test'], {
    env: { PATH: process.env.PATH, TMPDIR: dir, ...env },
    input,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr.toString() };
}

const fingerprint = (recipient: string) =>
  `sha256:${createHash('sha256').update(recipient).digest('hex').slice(0, 16)}`;

test('encrypts to inline recipients; each identity decrypts the same bytes; fingerprints name them', () => {
  const [a, b] = [keypair('a'), keypair('b')];
  const clear = Buffer.from(Array.from({ length: 70_000 }, (_, i) => i % 251));
  const env = { BACKUP_AGE_RECIPIENTS: `${a.recipient}\n${b.recipient}` };
  const enc = run('f=$(age_recipients_file); age_encrypt "$f"', env, clear);
  expect(enc.code).toBe(0);
  expect(enc.stdout.subarray(0, 21).toString()).toBe('age-encryption.org/v1');
  writeFileSync(join(dir, 'x.age'), enc.stdout);
  for (const k of [a, b]) {
    const out = join(dir, `x-${k === a ? 'a' : 'b'}`);
    expect(run(`age_decrypt "${join(dir, 'x.age')}" "${out}"`, { BACKUP_AGE_IDENTITY_FILE: k.identity }).code).toBe(0);
    expect(readFileSync(out).equals(clear)).toBe(true);
  }
  expect(JSON.parse(run('age_fingerprints "$(age_recipients_file)"', env).stdout.toString())).toEqual([
    fingerprint(a.recipient),
    fingerprint(b.recipient),
  ]);
});

test('a recipients file (Secret/ConfigMap) may hold comments and blank lines; an empty one is refused', () => {
  const a = keypair('c');
  const file = join(dir, 'recipients.txt');
  writeFileSync(file, `# the backup team\n\n  ${a.recipient}  \n`);
  expect(
    JSON.parse(
      run('age_fingerprints "$(age_recipients_file)"', { BACKUP_AGE_RECIPIENTS_FILE: file }).stdout.toString(),
    ),
  ).toEqual([fingerprint(a.recipient)]);
  writeFileSync(file, '# nobody\n\n');
  const r = run('age_recipients_file', { BACKUP_AGE_RECIPIENTS_FILE: file });
  expect(r.code).toBe(1);
  expect(r.stderr).toMatch(/ error the age recipients file .*recipients\.txt holds no recipient\n$/);
});

test("a wrong identity or a damaged file fails with age's own reason, and leaves no output", () => {
  const [a, other] = [keypair('d'), keypair('e')];
  const enc = run(
    'age_encrypt "$(age_recipients_file)"',
    { BACKUP_AGE_RECIPIENTS: a.recipient },
    Buffer.from('secret data'),
  );
  const file = join(dir, 'y.age');
  writeFileSync(file, enc.stdout);
  const out = join(dir, 'y');
  const wrong = run(`age_decrypt "${file}" "${out}"`, { BACKUP_AGE_IDENTITY_FILE: other.identity });
  expect(wrong.code).toBe(1);
  expect(wrong.stderr).toMatch(
    / error cannot decrypt .*y\.age: age: error: no identity matched any of the recipients \n$/,
  );
  expect(spawnSync('test', ['-e', out]).status).not.toBe(0);
  writeFileSync(file, enc.stdout.subarray(0, enc.stdout.length - 20));
  const damaged = run(`age_decrypt "${file}" "${out}"`, { BACKUP_AGE_IDENTITY_FILE: a.identity });
  expect(damaged.code).toBe(1);
  expect(damaged.stderr).toMatch(/ error cannot decrypt .*y\.age: age: error: /);
  expect(spawnSync('test', ['-e', out]).status).not.toBe(0);
});

test('pod parts: inline recipients in the env; Secret/ConfigMap recipients and the identity mounted read-only', () => {
  const image = 'example/age:1';
  expect(ageRecipientsParts({ image, recipients: ['age1x', 'age1y'] })).toEqual({
    env: [{ name: 'BACKUP_AGE_RECIPIENTS', value: 'age1x\nage1y' }],
    volumes: [],
    mounts: [],
  });
  const fromConfigMap = ageRecipientsParts({ image, recipientsConfigMap: { name: 'backup-keys', key: 'recipients' } });
  expect(fromConfigMap.volumes).toEqual([
    {
      name: 'age-recipients',
      configMap: { name: 'backup-keys', items: [{ key: 'recipients', path: 'recipients.txt' }] },
    },
  ]);
  expect(fromConfigMap.env).toEqual([
    { name: 'BACKUP_AGE_RECIPIENTS_FILE', value: '/etc/backup-cronjobs/age-recipients/recipients.txt' },
  ]);
  const identity = ageIdentityParts({
    image,
    recipientsSecret: { name: 'k', key: 'r' },
    identitySecret: { name: 'backup-identity', key: 'key.txt' },
  });
  expect(identity.volumes[0]).toEqual({
    name: 'age-identity',
    secret: { secretName: 'backup-identity', items: [{ key: 'key.txt', path: 'identity.txt' }], defaultMode: 0o400 },
  });
  expect(identity.mounts).toEqual([
    { name: 'age-identity', mountPath: '/etc/backup-cronjobs/age-identity', readOnly: true },
  ]);
});
