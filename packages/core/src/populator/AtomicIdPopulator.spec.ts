import 'reflect-metadata';
import { describe, expect, it } from 'vitest';
import { VestaError } from '../errors/VestaError.js';
import { createIdMeta, vestaLayoutSpec, type IdMetaWidths } from '../layout/IdMeta.js';

const metaOfWidths = (w: IdMetaWidths) => createIdMeta(vestaLayoutSpec(w, 0, 1000));
import { createIdService } from '../service/createIdService.js';
import type { DefaultIdService } from '../service/DefaultIdService.js';
import { Timer } from '../time/Timer.js';
import { AtomicIdPopulator } from './AtomicIdPopulator.js';
import { newClaim } from './IdPopulator.js';
import { createSharedIdState } from './SharedIdState.js';
import { countOrderBreaks } from '../testing/countOrderBreaks.js';

const COUNT = 2_000_000;

describe('AtomicIdPopulator', () => {
  it('issues 2,000,000 strictly increasing ids on the real clock', async () => {
    const service = await createIdService<DefaultIdService>({ machineId: 12, populator: 'atomic' });
    expect(countOrderBreaks(service, COUNT).breaks).toBe(0);
    await service.close();
  });

  it('continues where another populator on the same shared state left off', () => {
    const now = Date.UTC(2025, 0, 1) + 77_000;
    const timer = new Timer(Date.UTC(2025, 0, 1), 1000, 30, () => now);
    const meta = metaOfWidths({
      machineBits: 10,
      seqBits: 3,
      timeBits: 30,
      genMethodBits: 2,
      typeBits: 1,
      versionBits: 1,
    });
    const shared = createSharedIdState();
    const a = new AtomicIdPopulator(timer, meta, 1000, {}, shared);
    const b = new AtomicIdPopulator(timer, meta, 1000, {}, shared);
    const out = newClaim();
    const seen: number[] = [];
    for (const populator of [a, b, a, b, b, a, a, b]) {
      expect(populator.tryClaim(1, out)).toBe(true);
      expect(out.time).toBe(77);
      seen.push(out.seq);
    }
    expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(a.tryClaim(1, out)).toBe(false);
    expect(b.tryClaim(5, out)).toBe(false);
    expect(out.time).toBe(78);
    expect(a.lastTime).toBe(77);
  });

  it('refuses a layout whose time and sequence do not fit one 64-bit word with INVALID_LAYOUT', () => {
    const timer = new Timer(0, 1, 40, Date.now);
    const meta = metaOfWidths({
      machineBits: 1,
      seqBits: 22,
      timeBits: 41,
      genMethodBits: 0,
      typeBits: 0,
      versionBits: 0,
    });
    let caught: unknown;
    try {
      new AtomicIdPopulator(timer, meta, 1000, {}, createSharedIdState());
    } catch (error) {
      caught = error;
    }
    expect(VestaError.is(caught, 'INVALID_LAYOUT')).toBe(true);
  });
});
