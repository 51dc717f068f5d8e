import type { IdService } from '@vesta/core';

/** What {@link watchHealth} has seen of each service so far. */
export interface HealthWatch {
  /** Each service's longest stretch of unhealthy answers (ms). */
  readonly longestUnhealthyMs: readonly number[];
  stop(): void;
}

/**
 * For fault tests: samples each service's `health()` every `everyMs` (20 by default) until
 * stopped, keeping its longest unhealthy stretch, the figure a fault's unavailability is read as.
 */
export function watchHealth(services: readonly IdService[], everyMs = 20): HealthWatch {
  const since: (number | undefined)[] = services.map(() => undefined);
  const longest = services.map(() => 0);
  const sampler = setInterval(() => {
    const now = performance.now();
    services.forEach((service, i) => {
      if (service.health().ok) {
        since[i] = undefined;
        return;
      }
      since[i] ??= now;
      longest[i] = Math.max(longest[i] ?? 0, now - (since[i] ?? now));
    });
  }, everyMs);
  return {
    longestUnhealthyMs: longest,
    stop: () => clearInterval(sampler),
  };
}
