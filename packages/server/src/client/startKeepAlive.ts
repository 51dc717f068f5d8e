import type { TimeSource, TimerHandle } from '@vesta/core';

/** Calls `tick` every `everyMs` (unref'd) until the returned function is called. */
export function startKeepAlive(time: TimeSource, everyMs: number, tick: () => void): () => void {
  let timer: TimerHandle | undefined;
  let stopped = false;
  const schedule = (): void => {
    timer = time
      .setTimer(() => {
        if (stopped) return;
        tick();
        schedule();
      }, everyMs)
      .unref();
  };
  schedule();
  return () => {
    stopped = true;
    timer?.cancel();
  };
}
