/**
 * Run by policy-file.test.ts in a Node process of its own (ts-node): `preview`, then `up`, of a
 * `BackupPolicy.fromFile` program whose policy file is invalid. A program's error also rejects
 * promises of Pulumi's stack resource that nothing awaits; the Automation API's server takes them
 * through the process's `unhandledRejection` listeners, which a jest test cannot reach (its
 * `process` is a copy), so the runs happen here. Prints JSON: each run's error message and engine
 * steps, and the resources in the stack's state afterwards.
 *
 *   invalid-policy-run.ts POLICY_FILE NAMESPACE KUBECONFIG
 */
import { BackupPolicy } from '../../../constructs/pulumi';
import { newStack, type StepEvent } from './stack';

async function main(): Promise<void> {
  const [file, namespace, kubeconfig] = process.argv.slice(2);
  const stack = await newStack({
    project: 'policy-invalid',
    stackName: 'dev',
    kubeconfig: () => kubeconfig,
    program: () => {
      const policy = BackupPolicy.fromFile('redis-backup', file, { namespace });
      return Promise.resolve({ cronJobNames: policy.cronJobNames });
    },
  });
  try {
    const runs: { op: string; error?: string; steps: readonly StepEvent[] }[] = [];
    for (const op of ['preview', 'up'] as const) {
      try {
        const r = await stack[op]();
        runs.push({ op, steps: r.steps });
      } catch (e) {
        const err = e as Error & { steps?: StepEvent[] };
        runs.push({ op, error: err.message, steps: err.steps ?? [] });
      }
    }
    const state = (await stack.stack.exportStack()).deployment as { resources?: { type: string; urn: string }[] };
    process.stdout.write(JSON.stringify({ runs, resources: state.resources ?? [] }));
  } finally {
    stack.cleanup();
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exitCode = 1;
});
