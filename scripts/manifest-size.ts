// How big the example policies' manifests are, in lines of YAML: per CronJob its total lines and the
// lines of script in it, in the default mode (spec.scripts.mode configMap: the entries' main in the
// commands, the policy's ConfigMap counted once per policy) and in inline mode (every function a
// container reaches in its command); per policy the total of all its objects in each mode.
// Reported, never targeted: the measure is the person reading the pull request.
//   npm run size
import { readFileSync, readdirSync } from 'fs';
import { join } from 'path';
import { loadPolicies, renderPolicy, toYaml } from '../lib';
import type { BackupPolicy, Manifest } from '../lib';
import { SCRIPT_HEADER } from '../lib/scripts';

const EXAMPLES = join(__dirname, '..', 'examples', 'policies');

/** Lines of the embedded scripts in an object (every string that starts with the script header). */
export function scriptLines(value: unknown): number {
  if (typeof value === 'string')
    return value.startsWith(SCRIPT_HEADER) ? value.replace(/\n$/, '').split('\n').length : 0;
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + scriptLines(v), 0);
  if (value !== null && typeof value === 'object')
    return Object.values(value).reduce((n: number, v) => n + scriptLines(v), 0);
  return 0;
}

const lines = (objects: readonly Manifest[]) =>
  objects.length === 0 ? 0 : toYaml(objects).replace(/\n$/, '').split('\n').length;

export interface CronJobSize {
  readonly name: string;
  /** Default (configMap) mode: the CronJob's lines and the script lines in them. */
  readonly lines: number;
  readonly scriptLines: number;
  /** Inline mode. */
  readonly inlineLines: number;
  readonly inlineScriptLines: number;
}

export interface PolicySize {
  readonly file: string;
  readonly policy: string;
  readonly cronJobs: readonly CronJobSize[];
  /** Every object of the policy (`synth` output), in the default mode and inline. */
  readonly lines: number;
  readonly inlineLines: number;
  /** The script ConfigMap's lines (default mode). */
  readonly configMapLines: number;
}

const withMode = (policy: BackupPolicy, mode: 'configMap' | 'inline'): BackupPolicy => ({
  ...policy,
  spec: { ...policy.spec, scripts: { mode } },
});

/** The sizes of every example policy and its CronJobs. */
export function measure(): PolicySize[] {
  const files = readdirSync(EXAMPLES)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort();
  return files.flatMap((file) =>
    loadPolicies(readFileSync(join(EXAMPLES, file), 'utf8'), file).map((policy): PolicySize => {
      const byDefault = renderPolicy(policy);
      const inline = renderPolicy(withMode(policy, 'inline'));
      const cronJobs = byDefault
        .filter((o) => o.kind === 'CronJob')
        .map((o): CronJobSize => {
          const other = inline.find((s) => s.kind === 'CronJob' && s.metadata.name === o.metadata.name)!;
          return {
            name: o.metadata.name,
            lines: lines([o]),
            scriptLines: scriptLines(o),
            inlineLines: lines([other]),
            inlineScriptLines: scriptLines(other),
          };
        });
      return {
        file,
        policy: policy.metadata.name,
        cronJobs,
        lines: lines(byDefault),
        inlineLines: lines(inline),
        configMapLines: lines(byDefault.filter((o) => o.kind === 'ConfigMap')),
      };
    }),
  );
}

/** The table the script prints. */
export function table(sizes: readonly PolicySize[]): string {
  const rows = [['example / CronJob', 'lines', 'of which script', 'inline: lines', 'of which script']];
  for (const p of sizes) {
    rows.push([
      `${p.file} (policy ${p.policy}, every object; its ConfigMap ${p.configMapLines})`,
      String(p.lines),
      '',
      String(p.inlineLines),
      '',
    ]);
    for (const c of p.cronJobs)
      rows.push([
        `  ${c.name}`,
        String(c.lines),
        String(c.scriptLines),
        String(c.inlineLines),
        String(c.inlineScriptLines),
      ]);
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows
    .map((r) =>
      r
        .map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i])))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

if (require.main === module) {
  const sizes = measure();
  console.log(table(sizes));
  const total = (key: 'lines' | 'inlineLines') => sizes.reduce((n, p) => n + p[key], 0);
  console.log(`\nevery example: ${total('lines')} lines (inline: ${total('inlineLines')})`);
}
