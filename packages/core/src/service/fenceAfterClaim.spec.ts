import 'reflect-metadata';
import { afterEach, describe, expect, it } from 'vitest';
import { capturingLogger, codeOfAsync, ManualTimeSource } from '@vesta/testkit';
import { VestaError } from '../errors/VestaError.js';
import type { MachineIdLease, MachineIdProvider } from '../machine-id/MachineIdProvider.js';
import type { PopulatorKind } from '../populator/IdPopulator.js';
import { createIdService } from './createIdService.js';
import type { DefaultIdService } from './DefaultIdService.js';

/** Where the lease's fence closes: ids at or after it must not be issued. */
const FENCE_MS = Date.UTC(2026, 0, 1, 0, 0, 30);

/**
 * A lease fenced by the wall clock (as `LeaseFence` is: nothing at or after its mark) that can
 * be told to stop the process right after its next check passes: the wall clock then jumps past
 * the fence before the service reads it to claim, as after a SIGSTOP or a long GC pause.
 */
function pausingLease(time: ManualTimeSource): {
  provider: MachineIdProvider;
  pauseAfterNextCheck(ms: number): void;
} {
  let pauseMs = 0;
  const lease: MachineIdLease = {
    machineId: 7,
    assertValid() {
      if (time.now() >= FENCE_MS) {
        throw new VestaError('MACHINE_ID_LEASE_LOST', 'the fence bound has passed');
      }
      if (pauseMs > 0) {
        time.stepWall(pauseMs);
        pauseMs = 0;
      }
    },
  };
  return {
    provider: { acquire: () => Promise.resolve(lease) },
    pauseAfterNextCheck: (ms) => (pauseMs = ms),
  };
}

type IssuingPath = (service: DefaultIdService) => Promise<unknown>;

const PATHS: [string, PopulatorKind, IssuingPath][] = [
  ['genId (sync populator, the fast path)', 'sync', (s) => s.genId()],
  ['genId (atomic populator, the fast path)', 'atomic', (s) => s.genId()],
  ['genId (lock populator, the waiting path)', 'lock', (s) => s.genId()],
  ['genIdSync (sync populator)', 'sync', (s) => Promise.resolve().then(() => s.genIdSync())],
  ['genIdSync (atomic populator)', 'atomic', (s) => Promise.resolve().then(() => s.genIdSync())],
  ['genIds (sync populator)', 'sync', (s) => s.genIds(3)],
  ['genIds (lock populator)', 'lock', (s) => s.genIds(3)],
];

const services: DefaultIdService[] = [];
afterEach(async () => {
  await Promise.all(services.splice(0).map((s) => s.close()));
});

describe('the lease fence on every issuing path', () => {
  it.each(PATHS)(
    '%s refuses an id when the fence bound passes between its check and its claim',
    async (_name, populator, issue) => {
      const time = new ManualTimeSource(FENCE_MS - 10_000);
      const lease = pausingLease(time);
      const service = await createIdService<DefaultIdService>({
        machineIdProvider: lease.provider,
        machineIdRange: { min: 0, max: 1023 },
        populator,
        time,
        logger: capturingLogger(),
      });
      services.push(service);
      // Before the fence, with no pause, the path issues: the refusal below is the pause's.
      await expect(issue(service)).resolves.toBeDefined();

      lease.pauseAfterNextCheck(15_000);
      expect(await codeOfAsync(() => issue(service))).toBe('MACHINE_ID_LEASE_LOST');
      expect(time.now()).toBeGreaterThanOrEqual(FENCE_MS);
    },
  );
});
