import 'reflect-metadata';
import { describe, expect, it } from 'vitest';
import { capturingLogger, caughtAsync, ManualTimeSource } from '@vesta/testkit';
import { createSharedIdState, MarkCell, markCells } from '../populator/SharedIdState.js';
import { DEFAULT_EPOCH_MS } from '../time/parseEpoch.js';
import { createIdService } from './createIdService.js';

describe("an owner's close and its members' mark", () => {
  it('waits for a member raising the mark and keeps the raised mark for the next service', async () => {
    const time = new ManualTimeSource(Date.UTC(2026, 0, 1));
    const sharedState = createSharedIdState();
    const options = {
      machineId: 81,
      populator: 'atomic' as const,
      time,
      maxStartupWaitMs: 0,
      logger: capturingLogger(),
    };
    const owner = await createIdService({ ...options, sharedState });
    await owner.genId();
    const cells = markCells(sharedState.buffer);
    // A member thread takes the writer lock to raise the mark, as its ensure() does...
    expect(Atomics.compareExchange(cells, MarkCell.WRITER, 0, 1)).toBe(0);
    const closed = owner.close();
    // ...and writes it while its owner closes: a minute ahead of the clock.
    const raisedMs = time.now() + 60_000;
    Atomics.store(cells, MarkCell.MARK, Math.ceil((raisedMs - DEFAULT_EPOCH_MS) / 1000));
    Atomics.store(cells, MarkCell.WRITER, 0);
    await closed;

    // The next service on this machine id and clock must not start below the member's mark.
    const error = await caughtAsync(() => createIdService(options));
    expect(error.code).toBe('CLOCK_BEHIND_HIGH_WATER_MARK');
    expect(error.details).toMatchObject({ markMs: raisedMs });
  });
});
