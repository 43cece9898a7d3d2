// The Pulumi example program (Pulumi.yaml `main`) under mocks: one BackupPolicy
// component per example policy, the same objects as the CLI, and its stack output.
import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';
import { loadPolicies, renderPolicy } from '../../../lib';
import { installMocks, unwrap } from './harness';

const registered = installMocks(); // before the program is imported

test('creates one BackupPolicy per example policy and exports their CronJob names', async () => {
  jest.spyOn(console, 'warn').mockImplementation(() => undefined); // suspended-Job warnings, tested elsewhere
  const program = await import('../../../examples/pulumi/index');
  const dir = join(__dirname, '..', '..', '..', 'examples', 'policies');
  const policies = readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()
    .flatMap((f) => loadPolicies(readFileSync(join(dir, f), 'utf8'), f));
  expect(policies.length).toBeGreaterThanOrEqual(2);
  const expected = Object.fromEntries(
    policies.map((p) => [
      p.metadata.name,
      renderPolicy(p)
        .filter((m) => m.kind === 'CronJob')
        .map((m) => m.metadata.name),
    ]),
  );
  const exported = Object.fromEntries(
    await Promise.all(Object.entries(program.cronJobNames).map(async ([k, v]) => [k, await unwrap(v)] as const)),
  );
  expect(exported).toEqual(expected);
  // registrations are asynchronous: wait (bounded) until every CronJob child has reached the mock
  const cronJobCount = Object.values(expected).flat().length;
  for (
    let i = 0;
    i < 400 && registered.filter((r) => r.type === 'kubernetes:batch/v1:CronJob').length < cronJobCount;
    i++
  ) {
    await new Promise((r) => setTimeout(r, 5));
  }
  const components = registered
    .filter((r) => r.type === 'backup-cronjobs:index:BackupPolicy')
    .map((r) => r.name)
    .sort();
  expect(components).toEqual(policies.map((p) => p.metadata.name).sort());
  const cronJobs = registered
    .filter((r) => r.type === 'kubernetes:batch/v1:CronJob')
    .map((r) => (r.inputs as { metadata: { name: string } }).metadata.name);
  expect(cronJobs.sort()).toEqual(Object.values(expected).flat().sort());
});
