import { readFileSync } from 'fs';
import { join } from 'path';
import { withTable } from '../scripts/policy-fields';

const root = join(__dirname, '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');

test('the README field table is generated from the current schema (npm run docs)', () => {
  expect(readme).toBe(withTable(readme));
});

test('the README starts with the two commands, and CI runs the README test command verbatim', () => {
  const block = /^```sh\n(.*)\n(.*)\n```/.exec(readme);
  expect(block).not.toBeNull();
  const testCommand = block![2].split('#')[0].trim();
  expect(block![1]).toMatch(/^npm ci && npm run synth\b/);
  expect(testCommand).toMatch(/npm test$/);
  expect(readFileSync(join(root, '.ci', 'run'), 'utf8').split('\n')).toContain(testCommand);
});
