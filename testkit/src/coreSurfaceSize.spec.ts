import { describe, expect, it } from 'vitest';

describe('@vesta/core', () => {
  // The application surface stays small: what modes, servers and providers need besides lives
  // on @vesta/core/kit (issue "shape": 35 runtime exports at most).
  it('exports at most 35 runtime names; the card names among them', async () => {
    const core = await import('@vesta/core');
    const names = Object.keys(core);
    expect(names.length).toBeLessThanOrEqual(35);
    for (const name of [
      'IdConverter',
      'createIdMeta',
      'SyncIdPopulator',
      'LockIdPopulator',
      'AtomicIdPopulator',
    ]) {
      expect(names).toContain(name);
    }
  });
});
