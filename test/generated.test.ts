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
