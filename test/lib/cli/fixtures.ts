// Helpers of the CLI tests: runs the CLI in-process with captured output and a
// given standard input, in a temp directory of policy files.
import { mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { runCli } from '../../../lib/cli';

export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `backup-cronjobs <args>`; `stdin` is what a `-` argument reads (reading it when not given fails the test). */
export function run(args: readonly string[], stdin?: string): CliRun {
  let stdout = '';
  let stderr = '';
  const code = runCli(args, {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    stdin: () => {
      if (stdin === undefined) throw new Error('the command read standard input, which this test gives none');
      return stdin;
    },
  });
  return { code, stdout, stderr };
}

/** A fresh directory for one test file, removed after its tests (call it while the file's tests are collected). */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `bcj-cli-${prefix}-`));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Writes a policy (object as JSON, or text as is) to `dir/name` and returns its path. */
export function writePolicy(dir: string, name: string, policy: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof policy === 'string' ? policy : JSON.stringify(policy));
  return path;
}

/** A policy with three problems (bad name, bad suspend, no engine), each with its position. */
export const BAD_POLICY =
  'apiVersion: backup-cronjobs.io/v1alpha1\nkind: BackupPolicy\nmetadata: {name: Bad}\nspec: {defaults: {suspend: maybe}}\n';
