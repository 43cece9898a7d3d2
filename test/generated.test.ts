// The committed generated files (scripts/generate-types.ts) are what the policy schema gives today.
import { execFileSync } from 'child_process';
import { readFileSync } from 'fs';
import { join } from 'path';

const ROOT = join(__dirname, '..');

test('the generated files are up to date (else: npm run generate)', () => {
  // a child process: prettier, which formats them, is an ES module that jest's VM does not load
  expect(() =>
    execFileSync(
      process.execPath,
      [require.resolve('ts-node/dist/bin'), '--transpile-only', 'scripts/generate-types.ts', '--check'],
      {
        cwd: ROOT,
        stdio: 'pipe',
      },
    ),
  ).not.toThrow();
});

test('the cdk8s props hold no conditional or mapped type (jsii compiles them)', () => {
  const text = readFileSync(join(ROOT, 'constructs/cdk8s/props.generated.ts'), 'utf8');
  expect(text).toMatch(/export interface RedisBackupScheduleProps \{/);
  expect(text).not.toMatch(/\bextends\b.*\?|\[\s*\w+\s+in\s+keyof|\binfer\b|Readonly<|Record<|Omit<|Pick</);
});

test.each([
  'constructs/cdk8s/props.generated.ts',
  'constructs/pulumi/args.generated.ts',
  'jsii/src/props.generated.ts',
  'lib/policy/types.generated.ts',
])('every optional field of %s has a @default and every field a doc comment', (file) => {
  const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
  const undocumented: string[] = [];
  lines.forEach((line, i) => {
    const field = /^\s+readonly (\w+)(\??):/.exec(line);
    if (!field) return;
    const doc: string[] = [];
    for (let j = i - 1; j >= 0 && /^\s+(\*|\/\*\*)/.test(lines[j]); j--) doc.push(lines[j]);
    if (doc.length === 0 || (field[2] === '?' && !doc.some((l) => l.includes('@default'))))
      undocumented.push(line.trim());
  });
  expect(undocumented).toEqual([]);
});
