/** `plan`: when each CronJob runs, its run window, and what overlaps; optionally a timeline picture. */
import { writeFileSync } from 'fs';
import { MAX_RUNS_PER_TARGET, planPolicies } from '../model/plan';
import { objectLockWarnings } from '../model/lock-warnings';
import { formatPlanText, planJson, planWarnings } from '../model/plan-text';
import { PlanSpan, SPAN_MS, planSvg } from '../model/plan-svg';
import { ScheduleError } from '../schedule';
import { durationProblem, parseDuration } from '../units';
import { CliIO, Command, EXIT, UsageError, choice, parseCommand, policyFiles } from './command';
import { loadInputs } from './inputs';
import { jsonText } from './output';
import { TIME_HELP, parseTimeOption } from './time';

const DEFAULT_HORIZON = '31d';
const MAX_HORIZON_DAYS = 400;

export const planCommand: Command = {
  name: 'plan',
  summary: 'when each CronJob runs, its run window, what overlaps (--svg FILE: a timeline)',
  help: `Usage: backup-cronjobs plan <policy file|->... [--from TIME] [--count N] [--horizon DURATION]
                             [-o text|json] [--svg FILE [--span day|week]]

For every CronJob: its schedule as written and as resolved (H fields hashed,
stagger applied), its time zone, its run window (start + timeout, the Job's
activeDeadlineSeconds), its serialization group and node, and its next runs.
Then the warnings within the horizon:
  overlap    runs of one serialization group (same namespace, name and scope),
             or of one node, whose windows overlap; or a run window longer than
             the time to the next run of the same CronJob
  dst        a local time the schedule names that a daylight-saving change skips
             (that run does not happen) or repeats (it runs once)
  collision  two inputs render the same object (exit status 1)

Options:
  --from TIME          start of the plan (default: now); see TIME below
  --count N            next runs listed per CronJob, 1-999 (default 3)
  --horizon DURATION   how far ahead warnings are looked for (default ${DEFAULT_HORIZON}, at most ${MAX_HORIZON_DAYS}d)
  -o, --output FORMAT  text (default) or json
  --svg FILE           also draw a timeline: a row per CronJob, a bar per run
                       window, colours by serialization group, overlaps hatched red
  --span day|week      what the timeline shows from --from (default day)
  -h, --help           show this help

A policy file "-" reads standard input. Times are printed in UTC.
${TIME_HELP}
Exit status: 0 planned (warnings or not); 1 an input is unreadable or invalid,
or two inputs render the same object (the plan is still printed); 2 usage error.
`,
  run: plan,
};

function plan(args: readonly string[], io: CliIO): number {
  const parsed = parseCommand(planCommand, args, io, {
    from: { type: 'string' },
    count: { type: 'string' },
    horizon: { type: 'string' },
    output: { type: 'string', short: 'o' },
    svg: { type: 'string' },
    span: { type: 'string' },
  });
  if (!parsed) return EXIT.ok;
  const v = parsed.values as Record<string, string | undefined>;
  const files = policyFiles('plan', parsed.positionals);
  const format = choice('plan', '-o, --output', v.output, ['text', 'json'] as const);
  const span = choice<PlanSpan>('plan', '--span', v.span, ['day', 'week']);
  if (v.span !== undefined && v.svg === undefined)
    throw new UsageError('--span sets what the --svg picture shows: give --svg FILE too', 'plan');
  const count = v.count === undefined ? 3 : Number(v.count);
  if (v.count !== undefined && !/^[1-9][0-9]{0,2}$/.test(v.count))
    throw new UsageError(`--count: received ${JSON.stringify(v.count)}; a whole number from 1 to 999`, 'plan');
  const fromTime = v.from === undefined ? { ms: Date.now() } : parseTimeOption('--from', v.from);
  if ('problem' in fromTime) throw new UsageError(fromTime.problem, 'plan');
  const from = new Date(fromTime.ms);
  const horizonText = v.horizon ?? DEFAULT_HORIZON;
  const problem = durationProblem(horizonText);
  if (problem) throw new UsageError(`--horizon: received ${JSON.stringify(horizonText)}; ${problem}`, 'plan');
  const horizon = parseDuration(horizonText) * 1000;
  if (horizon <= 0 || horizon > MAX_HORIZON_DAYS * SPAN_MS.day)
    throw new UsageError(
      `--horizon: received ${JSON.stringify(horizonText)}; must be more than 0s and at most ${MAX_HORIZON_DAYS}d`,
      'plan',
    );
  if (v.svg !== undefined && horizon < SPAN_MS[span])
    throw new UsageError(
      `--horizon ${horizonText} is shorter than --span ${span}: the picture shows every run of the ${span}`,
      'plan',
    );

  const loaded = loadInputs(files, io);
  if (!loaded) return EXIT.invalid;
  let result;
  try {
    result = planPolicies(
      loaded.files.flatMap((f) => f.resolved),
      { from, count, horizon },
    );
  } catch (e) {
    if (!(e instanceof ScheduleError)) throw e;
    throw new UsageError(
      `${e.message}: at most ${MAX_RUNS_PER_TARGET} runs per CronJob are planned; give a shorter --horizon`,
      'plan',
    );
  }
  for (const c of loaded.collisions) io.stderr(`${c}\n`);
  const warnings = [
    ...planWarnings(result, loaded.collisions),
    ...loaded.files.flatMap((f) =>
      f.resolved.flatMap((r) =>
        objectLockWarnings(r.policy).map((w) => ({
          kind: 'retention' as const,
          message: `${r.namespace}/${r.name}: ${w.path}: ${w.message}`,
        })),
      ),
    ),
  ];
  io.stdout(format === 'json' ? jsonText(planJson(result, warnings)) : formatPlanText(result, warnings));
  if (v.svg !== undefined) {
    writeFileSync(v.svg, planSvg(result, span));
    io.stderr(`wrote ${v.svg}\n`);
  }
  return loaded.collisions.length > 0 ? EXIT.invalid : EXIT.ok;
}
