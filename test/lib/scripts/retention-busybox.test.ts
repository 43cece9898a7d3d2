/**
 * Property test under busybox (the alpine-like toolset): busybox sh, awk,
 * sort and date -- whose date has no -f, so the per-entry fallback runs --
 * print exactly the TypeScript reference's plan. Needs Debian's `busybox`
 * (scripts/install-test-deps.sh installs it); without it the test fails.
 */
import * as fs from 'fs';
import { busyboxBinary, busyboxPath } from './retention.harness';
import { caseArb, checkParity, fc, seed } from './retention.arbitraries';

describe('retention.sh under busybox plans exactly like the TypeScript reference', () => {
  test('busybox sh + awk/sort/date: 40 random cases', async () => {
    const bb = busyboxBinary();
    const s = seed() + 2;
    const dir = busyboxPath();
    try {
      const cases = fc.sample(caseArb(15), { numRuns: 40, seed: s });
      await checkParity('busybox', cases, s, { shell: [bb, 'sh'], pathEnv: dir });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
