/** Polling for what the controllers and the scheduler do in their own time. */

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Calls `probe` until it returns a value (not undefined, false or null), every `intervalMs`, for at
 * most `timeoutMs`; then throws naming `what` and the last value or error.
 */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined | false | null>,
  timeoutMs: number,
  intervalMs = 250,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined && v !== false && v !== null) return v;
      last = v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `${what}: not so after ${timeoutMs} ms (last: ${last instanceof Error ? last.message : String(last)})`,
      );
    }
    await sleep(intervalMs);
  }
}

/** Resolves at the next start of a minute plus `plusMs` (the CronJob controller's schedule points). */
export function nextMinute(plusMs = 0): { at: Date; wait: () => Promise<void> } {
  const now = Date.now();
  const at = new Date(Math.floor(now / 60000) * 60000 + 60000 + plusMs);
  return { at, wait: () => sleep(at.getTime() - Date.now()) };
}

export { sleep };
