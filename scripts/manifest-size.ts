// How big the example policies' manifests are: per CronJob, the lines of embedded script now (inline, the
// default) and at the baseline (commit 86509c7, before the embedder rework), the reduction, the same
// with the lines as written (nothing packed, comments dropped: the baseline's format, so that reduction
// is what embedding only the reachable functions saves), the CronJob's total lines, and its script and
// total lines in configMap mode (spec.scripts.mode: configMap; the policy's ConfigMap counted once).
//   npx ts-node --transpile-only scripts/manifest-size.ts             the table
//   npx ts-node --transpile-only scripts/manifest-size.ts --baseline  re-measure the baseline (git worktree)
import { execFileSync } from 'child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { loadPolicies, renderPolicy, toYaml } from '../lib';
import type { Manifest } from '../lib';
import { SCRIPT_HEADER, withScriptLinesAsWritten } from '../lib/scripts';

const ROOT = join(__dirname, '..');
const EXAMPLES = join(ROOT, 'examples', 'policies');
export const BASELINE_COMMIT = '86509c7';

/**
 * Per example file, per CronJob (its name after `<policy>-`, '' for the policy's own name):
 * [embedded-script lines, total lines], as `--baseline` measured them at commit 86509c7.
 */
export const BASELINE: Readonly<Record<string, Readonly<Record<string, readonly [number, number]>>>> = {
  'etcd-cluster-s3.yaml': { '': [1200, 1592] },
  'etcd-kubeadm-per-node.yaml': {
    'cp-1': [1119, 1462], 'cp-2': [1119, 1462], 'cp-3': [1119, 1480],
    'prune-cp-1': [610, 762], 'prune-cp-2': [610, 762], 'prune-cp-3': [610, 768],
  },
  'redis-sharded.yaml': { shard01: [862, 1073], shard02: [862, 1073] },
  'vitess-commerce-customer.yaml': {
    'nightly-commerce-x-x': [214, 489], 'nightly-customer-x-80': [214, 489], 'nightly-customer-80-x': [214, 489],
    'frequent-customer-customer-x-80': [214, 489], 'frequent-customer-customer-80-x': [214, 489],
  },
  'vitess-file-pvc.yaml': { 'daily-commerce-x-x': [133, 344] },
};

/** Lines of the embedded scripts in an object (every string that starts with the script header). */
export function scriptLines(value: unknown): number {
  if (typeof value === 'string') return value.startsWith(SCRIPT_HEADER) ? value.replace(/\n$/, '').split('\n').length : 0;
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + scriptLines(v), 0);
  if (value !== null && typeof value === 'object') return Object.values(value).reduce((n: number, v) => n + scriptLines(v), 0);
  return 0;
}

const lines = (o: Manifest) => toYaml([o]).replace(/\n$/, '').split('\n').length;

export interface CronJobSize {
  readonly file: string;
  readonly name: string;
  /** The CronJob's name after `<policy>-`: the key into BASELINE. */
  readonly target: string;
  readonly scriptLines: number;
  readonly totalLines: number;
  readonly baselineScriptLines?: number;
  /** 1 - now / baseline. */
  readonly reduction?: number;
  /** The script lines with nothing packed (comments dropped), and 1 - that / baseline. */
  readonly asWrittenScriptLines: number;
  readonly asWrittenReduction?: number;
  /** With spec.scripts.mode configMap: the CronJob's script lines (its entries' own code) and total lines. */
  readonly configMapScriptLines: number;
  readonly configMapLines: number;
}

export interface PolicySize {
  readonly file: string;
  readonly policy: string;
  readonly cronJobs: readonly CronJobSize[];
  /** Lines of the script ConfigMap in configMap mode. */
  readonly configMapLines: number;
}

/** The sizes of every example policy's CronJobs. */
export function measure(): PolicySize[] {
  const files = readdirSync(EXAMPLES).filter((f) => /\.ya?ml$/.test(f)).sort();
  return files.flatMap((file) => loadPolicies(readFileSync(join(EXAMPLES, file), 'utf8'), file).map((policy) => {
    const inlinePolicy = { ...policy, spec: { ...policy.spec, scripts: { mode: 'inline' as const } } };
    const inline = renderPolicy(inlinePolicy).filter((o) => o.kind === 'CronJob');
    const asWritten = withScriptLinesAsWritten(() => renderPolicy(inlinePolicy));
    const sourced = renderPolicy({ ...policy, spec: { ...policy.spec, scripts: { mode: 'configMap' } } });
    const configMap = sourced.find((o) => o.kind === 'ConfigMap');
    const cronJobs = inline.map((o): CronJobSize => {
      const name = o.metadata.name;
      const target = name === policy.metadata.name ? '' : name.slice(policy.metadata.name.length + 1);
      const baseline = BASELINE[file]?.[target]?.[0];
      const n = scriptLines(o);
      const written = scriptLines(asWritten.find((s) => s.kind === 'CronJob' && s.metadata.name === name));
      return {
        file,
        name,
        target,
        scriptLines: n,
        totalLines: lines(o),
        baselineScriptLines: baseline,
        reduction: baseline === undefined ? undefined : 1 - n / baseline,
        asWrittenScriptLines: written,
        asWrittenReduction: baseline === undefined ? undefined : 1 - written / baseline,
        configMapScriptLines: scriptLines(sourced.find((s) => s.kind === 'CronJob' && s.metadata.name === name)),
        configMapLines: lines(sourced.find((s) => s.kind === 'CronJob' && s.metadata.name === name)!),
      };
    });
    return { file, policy: policy.metadata.name, cronJobs, configMapLines: configMap ? lines(configMap) : 0 };
  }));
}

/** The table the script prints. */
export function table(sizes: readonly PolicySize[]): string {
  const rows = [['example / CronJob', 'script lines', 'baseline', 'reduction', 'as written', 'reduction', 'CronJob lines', 'configMap: script lines', 'CronJob lines']];
  const percent = (r?: number) => (r === undefined ? '-' : `${(r * 100).toFixed(0)}%`);
  for (const p of sizes) {
    rows.push([`${p.file} (policy ${p.policy}; its ConfigMap: ${p.configMapLines} lines)`, '', '', '', '', '', '', '', '']);
    for (const c of p.cronJobs) {
      rows.push([`  ${c.name}`, String(c.scriptLines), String(c.baselineScriptLines ?? '-'), percent(c.reduction), String(c.asWrittenScriptLines),
        percent(c.asWrittenReduction), String(c.totalLines), String(c.configMapScriptLines), String(c.configMapLines)]);
    }
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ').trimEnd()).join('\n');
}

/** Renders the examples of `commit` in a temporary worktree and prints the BASELINE table for them. */
function measureBaseline(commit: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'manifest-size-'));
  const tree = join(dir, 'tree');
  execFileSync('git', ['worktree', 'add', '--detach', tree, commit], { cwd: ROOT, stdio: 'ignore' });
  try {
    symlinkSync(join(ROOT, 'node_modules'), join(tree, 'node_modules'));
    const program = `
      const lib = require('./lib'); const fs = require('fs'); const out = {};
      const count = (v) => typeof v === 'string' ? (v.startsWith(${JSON.stringify(SCRIPT_HEADER)}) ? v.replace(/\\n$/, '').split('\\n').length : 0)
        : Array.isArray(v) ? v.reduce((n, x) => n + count(x), 0) : v && typeof v === 'object' ? Object.values(v).reduce((n, x) => n + count(x), 0) : 0;
      for (const f of fs.readdirSync('examples/policies').filter((x) => /\\.ya?ml$/.test(x)).sort())
        for (const p of lib.loadPolicies(fs.readFileSync('examples/policies/' + f, 'utf8'), f))
          for (const o of lib.renderPolicy(p).filter((o) => o.kind === 'CronJob')) {
            const key = o.metadata.name === p.metadata.name ? '' : o.metadata.name.slice(p.metadata.name.length + 1);
            (out[f] = out[f] || {})[key] = [count(o), lib.toYaml([o]).replace(/\\n$/, '').split('\\n').length];
          }
      console.log(JSON.stringify(out, null, 2));`;
    return execFileSync(process.execPath, ['-r', 'ts-node/register/transpile-only', '-e', program], { cwd: tree, encoding: 'utf8' });
  } finally {
    execFileSync('git', ['worktree', 'remove', '--force', tree], { cwd: ROOT, stdio: 'ignore' });
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  if (process.argv.includes('--baseline')) process.stdout.write(measureBaseline(BASELINE_COMMIT));
  else {
    const sizes = measure();
    console.log(table(sizes));
    const short = sizes.flatMap((p) => p.cronJobs).filter((c) => c.reduction === undefined || c.reduction < 0.5);
    console.log(short.length === 0 ? '\nevery CronJob embeds at least 50% fewer script lines than at the baseline' : `\nunder 50% fewer script lines than the baseline: ${short.map((c) => c.name).join(', ')}`);
  }
}
