import {
  cronJobSpecProblems,
  jobSpecProblems,
  scheduleTimeZoneProblem,
  timeZoneNameProblem,
} from '../../../support/kubernetes-validation';

const paths = (problems: readonly { path: string }[]) => problems.map((p) => p.path);
const podTemplate = { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox:1.36' }] } };

describe('CronJob specs', () => {
  const valid = {
    schedule: '0 3 * * *',
    timeZone: 'Etc/UTC',
    startingDeadlineSeconds: 600,
    successfulJobsHistoryLimit: 0,
    jobTemplate: { spec: { template: podTemplate } },
  };

  test('a valid spec passes', () => {
    expect(cronJobSpecProblems(valid)).toEqual([]);
  });

  test('counts are not negative, a schedule is set', () => {
    expect(
      paths(cronJobSpecProblems({ ...valid, schedule: '', startingDeadlineSeconds: -1, failedJobsHistoryLimit: -1 })),
    ).toEqual(['startingDeadlineSeconds', 'failedJobsHistoryLimit', 'schedule']);
  });

  test('the schedule parses as the API server parses it; a schedule that never runs and @every pass', () => {
    const schedule = (value: string) => cronJobSpecProblems({ ...valid, schedule: value });
    expect(schedule('0 0 31 2 *')).toEqual([]);
    expect(schedule('@every 1h30m')).toEqual([]);
    expect(schedule('61 * * * *')).toEqual([
      { path: 'schedule', message: expect.stringMatching(/^received "61 \* \* \* \*"; .*"minute".*0-59/) as string },
    ]);
    expect(paths(schedule('H 3 * * *'))).toEqual(['schedule']);
    expect(paths(schedule('@every 1d'))).toEqual(['schedule']);
  });

  test('the time zone exists, concurrencyPolicy is one of three', () => {
    expect(cronJobSpecProblems({ ...valid, timeZone: 'Europe/Nowhere', concurrencyPolicy: 'forbid' })).toEqual([
      { path: 'concurrencyPolicy', message: 'received "forbid"; supported values: "Allow", "Forbid", "Replace"' },
      {
        path: 'timeZone',
        message: expect.stringContaining(
          'received "Europe/Nowhere"; timeZone "Europe/Nowhere" is not a known IANA time zone',
        ) as string,
      },
    ]);
  });

  test('no TZ= or CRON_TZ= in the schedule', () => {
    expect(scheduleTimeZoneProblem('CRON_TZ=Europe/Paris 0 3 * * *')).toContain('use timeZone field instead');
    expect(scheduleTimeZoneProblem('TZ=UTC 0 3 * * *')).toBeDefined();
    expect(scheduleTimeZoneProblem('0 3 * * *')).toBeUndefined();
  });

  test('time zone names: explicit, IANA-shaped', () => {
    for (const tz of ['Etc/UTC', 'America/Argentina/Buenos_Aires', 'Etc/GMT+5', 'America/Port-au-Prince'])
      expect(timeZoneNameProblem(tz)).toBeUndefined();
    expect(timeZoneNameProblem('')).toContain('non-empty');
    expect(timeZoneNameProblem('Local')).toContain('explicit time zone');
    expect(timeZoneNameProblem('local')).toContain('explicit time zone');
    for (const tz of ['Europe/../etc', 'Europe/-Paris', 'Europe/Paris Time', 'America/Abcdefghijklmno'])
      expect(timeZoneNameProblem(tz)).toContain('unknown time zone');
  });

  test('the job template: labels and annotations of the Jobs it creates, generated selector, a pod that ends', () => {
    const spec = {
      ...valid,
      jobTemplate: {
        metadata: { labels: { 'app.kubernetes.io/name': 'bad value' }, annotations: { 'x y': '' } },
        spec: {
          selector: { matchLabels: { a: 'b' } },
          manualSelector: true,
          backoffLimit: -1,
          template: { spec: { ...podTemplate.spec, restartPolicy: 'Always' } },
        },
      },
    };
    expect(paths(cronJobSpecProblems(spec))).toEqual([
      'jobTemplate.metadata.labels[app.kubernetes.io/name]',
      'jobTemplate.metadata.annotations[x y]',
      'jobTemplate.spec.backoffLimit',
      'jobTemplate.spec.template.spec.restartPolicy',
      'jobTemplate.spec.selector',
      'jobTemplate.spec.manualSelector',
    ]);
  });
});

describe('Job specs', () => {
  test('counts are not negative; restartPolicy OnFailure or Never', () => {
    expect(jobSpecProblems({ template: podTemplate, backoffLimit: 0, ttlSecondsAfterFinished: 0 }, false)).toEqual([]);
    expect(jobSpecProblems({ template: { spec: { ...podTemplate.spec, restartPolicy: 'OnFailure' } } }, false)).toEqual(
      [],
    );
    expect(
      paths(
        jobSpecProblems(
          {
            template: { spec: { containers: podTemplate.spec.containers } },
            activeDeadlineSeconds: -5,
            parallelism: 1.5,
          },
          false,
        ),
      ),
    ).toEqual(['parallelism', 'activeDeadlineSeconds', 'template.spec.restartPolicy']);
  });
});
