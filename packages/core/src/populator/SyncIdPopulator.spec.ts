import 'reflect-metadata';
import { describe, expect, it } from 'vitest';
import { createIdService } from '../service/createIdService.js';
import type { DefaultIdService } from '../service/DefaultIdService.js';
import { countOrderBreaks } from '../testing/countOrderBreaks.js';

const COUNT = 2_000_000;

describe('SyncIdPopulator', () => {
  it('issues 2,000,000 strictly increasing ids through genIdSync on the real clock', async () => {
    const service = await createIdService<DefaultIdService>({ machineId: 11, populator: 'sync' });
    const { breaks, first, last } = countOrderBreaks(service, COUNT);
    expect(breaks).toBe(0);
    // More than one second's sequence: the run crossed at least one used-up unit.
    expect(service.expId(last).time).toBeGreaterThan(service.expId(first).time);
    await service.close();
  });
});
