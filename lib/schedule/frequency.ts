import { ScheduleError } from './errors';
import { hashModulo } from './hash';

const NS_PER: Readonly<Record<string, bigint>> = {
  ns: 1n,
  us: 1_000n,
  µs: 1_000n,
  μs: 1_000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};
const GO_DURATION_PART = /(\d*)(?:\.(\d*))?(ns|us|µs|μs|ms|s|m|h)/y;
const MINUTE_NS = NS_PER.m;
const SUB_HOUR = '1m, 2m, 3m, 4m, 5m, 6m, 10m, 12m, 15m, 20m or 30m';
const HOURS = '1h, 2h, 3h, 4h, 6h, 8h, 12h or 24h';

/** A Go duration (time.ParseDuration syntax) in nanoseconds, or undefined if `text` is not one. */
export function parseGoDuration(text: string): bigint | undefined {
  const negative = text.startsWith('-');
  const body = /^[+-]/.test(text) ? text.slice(1) : text;
  if (body === '0') return 0n;
  if (body === '') return undefined;
  let total = 0n;
  for (let pos = 0; pos < body.length; pos = GO_DURATION_PART.lastIndex) {
    GO_DURATION_PART.lastIndex = pos;
    const match = GO_DURATION_PART.exec(body);
    if (!match) return undefined;
    const [, whole, fraction = '', unit] = match;
    if (whole === '' && fraction === '') return undefined;
    total += BigInt(whole || '0') * NS_PER[unit];
    if (fraction !== '') total += (BigInt(fraction) * NS_PER[unit]) / 10n ** BigInt(fraction.length);
  }
  return negative ? -total : total;
}

/**
 * The whole number of minutes of a Vitess `frequency` (a Go duration), with the operator's rules:
 * at least 1m, whole minutes; below 1h it divides 60; from 1h to 24h it is whole hours dividing 24.
 */
export function frequencyMinutes(frequency: string): number {
  const ns = parseGoDuration(frequency);
  if (ns === undefined) {
    throw new ScheduleError(
      `frequency "${frequency}" is not a duration: use a Go duration such as 30m, 1h, 6h, 24h or 1h30m`,
    );
  }
  if (ns < MINUTE_NS)
    throw new ScheduleError(`frequency "${frequency}" is shorter than 1m: the shortest frequency is 1m`);
  if (ns % MINUTE_NS !== 0n) throw new ScheduleError(`frequency "${frequency}" is not a whole number of minutes`);
  if (ns > 24n * 60n * MINUTE_NS)
    throw new ScheduleError(`frequency "${frequency}" is longer than 24h: the longest frequency is 24h`);
  const minutes = Number(ns / MINUTE_NS);
  if (minutes < 60 && 60 % minutes !== 0) {
    throw new ScheduleError(`frequency "${frequency}" is below 1h and does not divide 1h evenly: use ${SUB_HOUR}`);
  }
  if (minutes >= 60 && (minutes % 60 !== 0 || 24 % (minutes / 60) !== 0)) {
    throw new ScheduleError(`frequency "${frequency}" must be a whole number of hours that divides 24h: use ${HOURS}`);
  }
  return minutes;
}

/**
 * The Vitess operator's cron for a `frequency`: offset = hash64(key) mod minutes, where `key` is
 * "<cluster>|<keyspace>|<shard>|<strategy name>" (raw shard name, expanded strategy name).
 */
export function cronFromFrequency(frequency: string, key: string): string {
  const total = frequencyMinutes(frequency);
  const offset = hashModulo(key, total);
  if (total === 1440) return `${offset % 60} ${Math.floor(offset / 60)} * * *`;
  if (total % 60 === 0) {
    const step = total / 60;
    return step === 1 ? `${offset % 60} * * * *` : `${offset % 60} ${Math.floor(offset / 60) % step}/${step} * * *`;
  }
  return `${offset}/${total} * * * *`;
}
