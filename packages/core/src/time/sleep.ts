/** Resolves after `ms` milliseconds (a timer, never a busy wait). */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}
