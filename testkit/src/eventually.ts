import { sleep } from '@vesta/core/kit';

/**
 * Polls `check` every 25 ms until it is true, at most `timeoutMs`; returns whether it became true
 * (the wait for an event that has no callback, never a sleep before an assertion).
 */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (await check()) return true;
    await sleep(25);
  }
  return check();
}
