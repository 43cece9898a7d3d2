// CronJobs and Jobs: schedule, time zone, job template (api-rules/workloads.ts).
import { validateManifest } from '..';
import { AcceptedCase, RuleCase, expectApiRule, mutate, validCronJob, validJob } from '../fixtures';

test.each<RuleCase>([
  [
    'schedule with 4 fields',
    () => mutate(validCronJob(), 'spec.schedule', '0 3 * *'),
    'spec.schedule',
    'bad cron schedule',
    '5 fields',
  ],
  [
    'schedule hour 24',
    () => mutate(validCronJob(), 'spec.schedule', '0 24 * * *'),
    'spec.schedule',
    'bad cron schedule',
    'hour',
  ],
  [
    'TZ in the schedule',
    () => mutate(validCronJob(), 'spec.schedule', 'TZ=UTC 0 3 * * *'),
    'spec.schedule',
    'bad cron schedule',
    'timeZone',
  ],
  [
    'unknown time zone',
    () => mutate(validCronJob(), 'spec.timeZone', 'Mars/Olympus'),
    'spec.timeZone',
    'bad time zone',
  ],
  [
    'time zone in the wrong case',
    () => mutate(validCronJob(), 'spec.timeZone', 'europe/berlin'),
    'spec.timeZone',
    'bad time zone',
  ],
  [
    'negative startingDeadlineSeconds',
    () => mutate(validCronJob(), 'spec.startingDeadlineSeconds', -1),
    'spec.startingDeadlineSeconds',
    'must be greater than or equal to 0',
  ],
  [
    'negative backoffLimit',
    () => mutate(validCronJob(), 'spec.jobTemplate.spec.backoffLimit', -1),
    'spec.jobTemplate.spec.backoffLimit',
    'must be greater than or equal to 0',
  ],
  [
    'job template with a selector',
    () => mutate(validCronJob(), 'spec.jobTemplate.spec.selector', { matchLabels: { a: 'b' } }),
    'spec.jobTemplate.spec.selector',
    'will be auto-generated',
  ],
  [
    'job template with manualSelector',
    () => mutate(validCronJob(), 'spec.jobTemplate.spec.manualSelector', true),
    'spec.jobTemplate.spec.manualSelector',
    'not in enum [null,false]',
  ],
  [
    'Job selector without manualSelector',
    () => mutate(validJob(), 'spec.selector', { matchLabels: { a: 'b' } }),
    'spec.selector',
    'manualSelector: true',
  ],
])('%s', (_rule, bad, path, ...fragments) => {
  expectApiRule(bad(), path, ...fragments);
});

test.each<AcceptedCase>([
  ['ranges, steps, names and "?"', () => mutate(validCronJob(), 'spec.schedule', '*/15 1-5 ? JAN-jun mon,FRI')],
  ['a macro', () => mutate(validCronJob(), 'spec.schedule', '@daily')],
  [
    'a Job with its own selector and manualSelector',
    () =>
      mutate(
        mutate(validJob(), 'spec.selector', { matchLabels: { 'app.kubernetes.io/name': 'backup-cronjobs' } }),
        'spec.manualSelector',
        true,
      ),
  ],
])('accepts %s', (_what, good) => {
  expect(validateManifest(good())).toEqual([]);
});
