/** `retention plan`: the dry-run plan of retention rules over a listing, exactly as the containers print it. */
import {
  RETENTION_CLI_FLAGS,
  RetentionRules,
  formatPlan,
  planFromListing,
  retentionRulesFromFlags,
  validateRetention,
} from '../retention';
import { validateTimeZone } from '../schedule';
import { CliIO, Command, EXIT, OptionSpec, UsageError, parseCommand, readInput } from './command';
import { TIME_HELP, parseTimeOption } from './time';

const planCommand: Command = {
  name: 'retention plan',
  summary: 'which backups the rules keep (and why) and which they would delete',
  help: `Usage: backup-cronjobs retention plan --listing FILE|- [rules] [--time-zone ZONE] [--now TIME]

Prints which backups of a listing the retention rules keep (and by which rule)
and which they would delete, exactly as the backup containers decide. Deletes
nothing. FILE lines: <epoch seconds><TAB><bytes><TAB><name>; "-" reads
standard input.

Rules (combinable; a backup is kept if any rule keeps it):
  --keep-last N          the newest N
  --max-age DURATION     younger than this (30d)
  --max-total-size SIZE  the newest that fit together (50Gi, 20GB)
  --hourly N, --daily N, --weekly N, --monthly N, --yearly N
                         the newest backup of each of the last N periods
Options:
  --time-zone ZONE       periods in this IANA time zone (default UTC)
  --now TIME             the time of the plan (default: now); see TIME below
  -h, --help             show this help

${TIME_HELP}
Exit status: 0 printed; 1 invalid rules or listing; 2 usage error.
`,
  run: retentionPlan,
};

export const retentionCommand: Command = {
  name: 'retention',
  summary: 'retention plan --listing FILE: which backups the rules keep and delete (dry run)',
  help: `Usage: backup-cronjobs retention <command>

Commands:
  plan   ${planCommand.summary}
         (backup-cronjobs retention plan --help)

Options:
  -h, --help   show this help
`,
  run: (args, io) => {
    const [sub, ...rest] = args;
    if (sub === 'plan') return planCommand.run(rest, io);
    if (!parseCommand(retentionCommand, args, io, {})) return EXIT.ok;
    throw new UsageError(
      sub === undefined
        ? 'retention needs a command: plan'
        : `unknown retention command "${sub}"; the only one is: plan`,
      'retention',
    );
  },
};

const OPTIONS: Record<string, OptionSpec> = {
  listing: { type: 'string' },
  'time-zone': { type: 'string' },
  now: { type: 'string' },
  ...Object.fromEntries(Object.keys(RETENTION_CLI_FLAGS).map((flag) => [flag, { type: 'string' as const }])),
};

function retentionPlan(args: readonly string[], io: CliIO): number {
  const parsed = parseCommand(planCommand, args, io, OPTIONS, false);
  if (!parsed) return EXIT.ok;
  const {
    listing,
    'time-zone': timeZone = 'UTC',
    now,
    ...ruleFlags
  } = parsed.values as Record<string, string | undefined>;
  if (listing === undefined)
    throw new UsageError('--listing FILE is required (- for standard input)', 'retention plan');
  const problems: string[] = [];
  let rules: RetentionRules = {};
  try {
    rules = retentionRulesFromFlags(ruleFlags);
    const flagOf = Object.fromEntries(
      Object.entries(RETENTION_CLI_FLAGS).map(([flag, rule]) => [`rules.${rule}`, `--${flag}`]),
    );
    problems.push(
      ...validateRetention(rules, 'rules').map((p) => p.replace(/^rules\.[a-zA-Z]+/, (m) => flagOf[m] ?? m)),
    );
  } catch (e) {
    problems.push((e as Error).message);
  }
  const zoneProblem = validateTimeZone(timeZone);
  if (zoneProblem) problems.push(`--time-zone: received ${JSON.stringify(timeZone)}; ${zoneProblem}`);
  const nowTime = now === undefined ? { ms: Date.now() } : parseTimeOption('--now', now);
  if ('problem' in nowTime) problems.push(nowTime.problem);
  let input = { name: listing, text: '' };
  try {
    input = readInput(listing, io);
  } catch (e) {
    problems.push(`${listing}: cannot read: ${(e as Error).message}`);
  }
  if (problems.length > 0) {
    io.stderr(`${problems.join('\n')}\n`);
    return EXIT.invalid;
  }
  try {
    const plan = planFromListing(input.text, rules, {
      now: Math.floor(('ms' in nowTime ? nowTime.ms : Date.now()) / 1000),
      timeZone,
    });
    const printed = formatPlan(plan);
    io.stdout(printed.endsWith('\n') ? printed : `${printed}\n`);
    return EXIT.ok;
  } catch (e) {
    io.stderr(`${input.name}: ${(e as Error).message}\n`);
    return EXIT.invalid;
  }
}
