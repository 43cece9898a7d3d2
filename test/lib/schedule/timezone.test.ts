import { validateTimeZone } from '../../../lib/schedule';

describe('validateTimeZone', () => {
  // etcd.md §8.3 (openshift/api vectors and the "Kubernetes CronJob API" column).
  it.each([
    'Africa/Banjul',
    'Etc/GMT-8',
    'Etc/UTC',
    'America/Argentina/Catamarca',
    'UTC',
    'GMT+0',
    'Europe/Berlin',
    'America/Indiana/Indianapolis',
    'Asia/Ho_Chi_Minh',
    'Etc/GMT+10',
    'America/Port-au-Prince',
    'EST5EDT',
    'US/Eastern',
    'Europe/Kyiv',
  ])('accepts %j', (tz) => {
    expect(validateTimeZone(tz)).toBeUndefined();
  });

  it.each([
    ['GMT2', 'timeZone "GMT2" is not a known IANA time zone'],
    [
      'GMT+3',
      'timeZone "GMT+3" is not a known IANA time zone: for a fixed offset of UTC+3 use "Etc/GMT-3" (the Etc/GMT sign is inverted)',
    ],
    [
      'UTC-5',
      'timeZone "UTC-5" is not a known IANA time zone: for a fixed offset of UTC-5 use "Etc/GMT+5" (the Etc/GMT sign is inverted)',
    ],
    ['Local', 'timeZone "Local" is not allowed: give an explicit IANA name such as "Europe/Berlin"'],
    ['local', 'timeZone "local" is not allowed: give an explicit IANA name such as "Europe/Berlin"'],
    ['', 'timeZone must not be empty: omit it or give an IANA name such as "Europe/Berlin"'],
    ['Mars/Olympus', 'timeZone "Mars/Olympus" is not a known IANA time zone'],
    ['../etc/passwd', 'timeZone "../etc/passwd" must not contain a ".." part'],
    ['Europe/./Berlin', 'timeZone "Europe/./Berlin" must not contain a "." part'],
    ['Europe/-Berlin', 'timeZone "Europe/-Berlin" has a part "-Berlin" that starts with "-"'],
    [
      'America/North_Dakota_Center',
      'timeZone "America/North_Dakota_Center" has an invalid part "North_Dakota_Center": each "/"-separated part must be 1-14 characters from A-Z, a-z, 0-9, ".", "-", "_" and "+"',
    ],
    [
      'Europe//Berlin',
      'timeZone "Europe//Berlin" has an invalid part "": each "/"-separated part must be 1-14 characters from A-Z, a-z, 0-9, ".", "-", "_" and "+"',
    ],
    [
      'Europe/Berlin ',
      'timeZone "Europe/Berlin " has an invalid part "Berlin ": each "/"-separated part must be 1-14 characters from A-Z, a-z, 0-9, ".", "-", "_" and "+"',
    ],
    // Case matters to Go's time.LoadLocation, not to ICU.
    [
      'europe/berlin',
      'timeZone "europe/berlin" is not a known IANA time zone: names are case-sensitive, did you mean "Europe/Berlin"?',
    ],
    ['utc', 'timeZone "utc" is not a known IANA time zone: names are case-sensitive, did you mean "UTC"?'],
    [
      'us/eastern',
      'timeZone "us/eastern" is not a known IANA time zone: names are case-sensitive (each part starts with a capital letter)',
    ],
    // ICU-only names that the tz database does not have.
    ['PST', 'timeZone "PST" is not a known IANA time zone'],
    ['IST', 'timeZone "IST" is not a known IANA time zone'],
    ['SystemV/AST4', 'timeZone "SystemV/AST4" is not a known IANA time zone'],
    ['US/Pacific-New', 'timeZone "US/Pacific-New" is not a known IANA time zone'],
  ])('rejects %j', (tz, message) => {
    expect(validateTimeZone(tz)).toBe(message);
  });

  it('gives the same answer when asked again (cached zones)', () => {
    expect(validateTimeZone('Asia/Tokyo')).toBeUndefined();
    expect(validateTimeZone('Asia/Tokyo')).toBeUndefined();
    expect(validateTimeZone('asia/tokyo')).toMatch(/did you mean "Asia\/Tokyo"/);
  });
});
