import 'reflect-metadata';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { DEFAULT_EPOCH_MS } from '../time/epochs.js';
import { createIdService } from './createIdService.js';
import type { DefaultIdService } from './DefaultIdService.js';

it('scratch: step back right after a restart', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vesta-scratch-'));
  const T = DEFAULT_EPOCH_MS + 1_000_000_500;
  const first = await createIdService<DefaultIdService>({ machineId: 7, stateDir: dir, clock: () => T });
  const a = first.genIdSync();
  await first.close();
  let now = T + 500; // restart exactly at the lowered mark
  const second = await createIdService<DefaultIdService>({ machineId: 7, stateDir: dir, clock: () => now });
  now = T; // NTP steps back 500 ms, within tolerance
  const b = second.genIdSync();
  console.log(a, b, a === b);
  expect(b).toBeGreaterThan(a);
});
