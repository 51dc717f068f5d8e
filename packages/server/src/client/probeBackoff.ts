/**
 * How long to wait before probing a down server again: `probeIntervalMs` doubled per failure
 * since it last answered, at most `maxProbeIntervalMs`, with +-25% jitter so that many clients
 * do not probe a restarted server in step. `random` is injected for tests (a number in [0, 1)).
 */
export function probeBackoffMs(
  failures: number,
  probeIntervalMs: number,
  maxProbeIntervalMs: number,
  random: () => number = Math.random,
): number {
  const base = Math.min(maxProbeIntervalMs, probeIntervalMs * 2 ** Math.min(20, failures - 1));
  return Math.round(base * (0.75 + random() * 0.5));
}
