import { IdConverter } from '@vesta/core';
import { expect } from 'vitest';
import { expectNoRepeatedIds } from './expectNoRepeatedIds.js';
import type { IssuedBatch } from './startIdLoad.js';

const codec = IdConverter.standard(0);

/** The machine id of a batch's ids (its first id's). */
export function machineOf(batch: IssuedBatch): number {
  return codec.expId(BigInt(batch.ids[0] ?? '0')).machine;
}

/**
 * Asserts no id twice over all batches and, per machine id, none below an id answered before it
 * was asked; returns the ids counted per machine id.
 */
export function expectUniqueAndOrderedPerMachine(
  batches: readonly IssuedBatch[],
): Map<number, number> {
  const byMachine = new Map<number, IssuedBatch[]>();
  for (const batch of batches) {
    const machine = machineOf(batch);
    // A request is answered by one worker: its ids share a machine id.
    expect(batch.ids.every((id) => codec.expId(BigInt(id)).machine === machine)).toBe(true);
    const own = byMachine.get(machine);
    if (own === undefined) byMachine.set(machine, [batch]);
    else own.push(batch);
  }
  expectNoRepeatedIds(batches.map((b) => ({ ...b, sentAt: 0, receivedAt: 0 })));
  const counts = new Map<number, number>();
  for (const [machine, own] of byMachine) counts.set(machine, expectNoRepeatedIds(own).total);
  return counts;
}
