/**
 * Daylight-saving changes a schedule runs into: local times that a change
 * skips (the run does not happen that day) or repeats (it runs once, at the
 * first occurrence), as `nextRuns` models the CronJob controller.
 */
import { parseSchedule } from './cron';
import { checkedZone, dayMatches } from './runs';
import { zoneOffset } from './timezone';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
/** Offset changes are found between samples this far apart (no zone changes its offset twice within 6 hours). */
const SAMPLE = 6 * 60 * MINUTE;

/** An instant at which a time zone's UTC offset changes. */
export interface OffsetChange {
  /** The first instant (ms since the epoch) of the new offset. */
  readonly at: number;
  /** The offsets (ms, local = UTC + offset) before and from `at`. */
  readonly before: number;
  /** The offset (ms) from `at`. */
  readonly after: number;
}

/** A change skips or repeats local times that a schedule names. */
export interface DstAmbiguity {
  /** `skipped`: clocks go forward over these local times; `repeated`: clocks go back and they occur twice. */
  readonly kind: 'skipped' | 'repeated';
  /** The offset change that skips or repeats them. */
  readonly change: OffsetChange;
  /** The schedule's local times in the skipped or repeated stretch, `YYYY-MM-DDTHH:MM`, ascending. */
  readonly localTimes: readonly string[];
}

/** Every offset change of `zone` in [from, to), ascending. */
export function offsetChanges(zone: string, from: number, to: number): OffsetChange[] {
  const changes: OffsetChange[] = [];
  if (zone === 'UTC') return changes;
  let t = from;
  let offset = zoneOffset(zone, t);
  while (t < to) {
    const next = Math.min(t + SAMPLE, to);
    const nextOffset = zoneOffset(zone, next);
    if (nextOffset !== offset) {
      const at = firstSecondWith(zone, nextOffset, t, next);
      if (at < to) changes.push({ at, before: offset, after: nextOffset });
    }
    t = next;
    offset = nextOffset;
  }
  return changes;
}

/** The first whole second in (lo, hi] at which `zone` has `offset` (it has it at `hi`, not at `lo`). */
function firstSecondWith(zone: string, offset: number, lo: number, hi: number): number {
  let low = Math.floor(lo / SECOND);
  let high = Math.ceil(hi / SECOND);
  while (high - low > 1) {
    const mid = low + Math.floor((high - low) / 2);
    if (zoneOffset(zone, mid * SECOND) === offset) high = mid;
    else low = mid;
  }
  return high * SECOND;
}

/** The local times `expr` names that the offset changes of `timeZone` (UTC when unset) in [from, to) skip or repeat. */
export function dstAmbiguities(expr: string, timeZone: string | undefined, from: Date, to: Date): DstAmbiguity[] {
  const zone = checkedZone(timeZone);
  const s = parseSchedule(expr);
  const found: DstAmbiguity[] = [];
  for (const change of offsetChanges(zone, from.getTime(), to.getTime())) {
    // the wall-clock stretch that does not exist (forward) or exists twice (back)
    const start = change.at + Math.min(change.before, change.after);
    const end = change.at + Math.max(change.before, change.after);
    const localTimes: string[] = [];
    for (let wall = Math.ceil(start / MINUTE) * MINUTE; wall < end; wall += MINUTE) {
      const d = new Date(wall);
      const named =
        s.month.contains[d.getUTCMonth() + 1] &&
        dayMatches(s, d.getUTCDate(), d.getUTCDay()) &&
        s.hour.contains[d.getUTCHours()] &&
        s.minute.contains[d.getUTCMinutes()];
      if (named) localTimes.push(d.toISOString().slice(0, 16));
    }
    if (localTimes.length > 0)
      found.push({ kind: change.after > change.before ? 'skipped' : 'repeated', change, localTimes });
  }
  return found;
}
