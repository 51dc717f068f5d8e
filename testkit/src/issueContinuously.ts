import { VestaError, type IdService } from '@vesta/core';
import { sleep } from '@vesta/core/kit';

/** What {@link issueContinuously} has seen so far. */
export interface IssueLoops {
  /** Every id issued, across all services. */
  readonly seen: Set<bigint>;
  /** Ids issued a second time. */
  readonly duplicates: () => number;
  /** Failures by error code. */
  readonly errors: Map<string, number>;
  /** Ends the loops and waits for them. */
  stop(): Promise<void>;
}

/**
 * For tests: each service issues `genIds(10)` in a loop (5 ms apart) until `stop()`, every id
 * checked for duplicates across all of them and every failure counted by its code.
 */
export function issueContinuously(services: readonly IdService[]): IssueLoops {
  const seen = new Set<bigint>();
  const errors = new Map<string, number>();
  let duplicates = 0;
  let running = true;
  const loops = services.map(async (service) => {
    while (running) {
      try {
        for (const id of await service.genIds(10)) {
          if (seen.has(id)) duplicates++;
          seen.add(id);
        }
      } catch (error) {
        const code = VestaError.is(error) ? error.code : String(error);
        errors.set(code, (errors.get(code) ?? 0) + 1);
      }
      await sleep(5);
    }
  });
  return {
    seen,
    duplicates: () => duplicates,
    errors,
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}
