import { VestaError, type Claim } from '@vesta/core';
import type { ContainerModule } from 'inversify';
import { stubPopulatorModule } from './stubPopulatorModule.js';

/** A populator whose claims wait until the test lets them go; see {@link heldModule}. */
export interface HeldPopulator {
  /** Rebinds the id service's populator to this one. */
  readonly module: ContainerModule;
  /** Claims waiting now. */
  readonly waiting: number;
  /** Resolves once at least `n` claims wait (polled once per turn of the event loop, at most 10 s). */
  whenWaiting(n: number): Promise<void>;
  /** Fails every waiting claim (and every later one) with OVERLOADED. */
  release(): void;
}

/**
 * Test fixture: an id service module whose every id request stays in flight until
 * {@link HeldPopulator.release}, so a test can hold a connection busy.
 */
export function heldModule(): HeldPopulator {
  const rejects: ((error: VestaError) => void)[] = [];
  let released = false;
  const error = (): VestaError => new VestaError('OVERLOADED', 'released by the test');
  const claim = (): Promise<Claim> =>
    released
      ? Promise.reject(error())
      : new Promise<Claim>((_resolve, reject) => {
          rejects.push(reject);
        });
  return {
    module: stubPopulatorModule(claim, error),
    get waiting() {
      return rejects.length;
    },
    async whenWaiting(n) {
      const deadline = performance.now() + 10_000;
      while (rejects.length < n) {
        if (performance.now() > deadline)
          throw new Error(`${n} claims did not arrive, ${rejects.length} did`);
        await new Promise((resolve) => setImmediate(resolve));
      }
    },
    release() {
      released = true;
      for (const reject of rejects.splice(0)) reject(error());
    },
  };
}
