import 'reflect-metadata';
import { afterEach, describe, expect, it } from 'vitest';
import { createSharedIdState } from '../populator/SharedIdState.js';
import { createIdService } from './createIdService.js';
import type { IdService } from './IdService.js';
import type { IdServiceOptions } from './IdServiceOptions.js';
import { caughtAsync } from '@vesta/testkit';

const open: IdService[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((service) => service.close()));
});

async function service(options: IdServiceOptions): Promise<IdService> {
  const created = await createIdService(options);
  open.push(created);
  return created;
}

describe('a service joining shared state', () => {
  it.each([
    ['another machine id', { machineId: 71 }],
    ['another type', { type: 'min-granularity' as const }],
    ['another epoch', { epoch: '2024-01-01T00:00:00Z' }],
  ])('is refused with INVALID_OPTIONS under %s than its owner', async (_name, change) => {
    const sharedState = createSharedIdState();
    await service({ machineId: 70, populator: 'atomic', sharedState });
    const error = await caughtAsync(() =>
      createIdService({ machineId: 70, populator: 'atomic', sharedState, ...change }),
    );
    expect(error.code).toBe('INVALID_OPTIONS');
    expect(error.message).toContain('another identity');
  });

  it('is refused with SERVICE_CLOSED once its owner closed', async () => {
    const sharedState = createSharedIdState();
    const owner = await createIdService({ machineId: 74, populator: 'atomic', sharedState });
    await owner.close();
    const error = await caughtAsync(() =>
      createIdService({ machineId: 74, populator: 'atomic', sharedState }),
    );
    expect(error.code).toBe('SERVICE_CLOSED');
  });

  it('joins under the options of its owner', async () => {
    const sharedState = createSharedIdState();
    const owner = await service({ machineId: 72, populator: 'atomic', sharedState });
    const member = await service({ machineId: 72, populator: 'atomic', sharedState });
    const ids = [await owner.genId(), await member.genId(), await owner.genId()];
    expect(new Set(ids).size).toBe(3);
  });
});

describe('a clock that does not read Unix ms', () => {
  it.each([
    ['NaN', () => Number.NaN],
    ['undefined (a clock without return)', (() => undefined) as unknown as () => number],
    ['a fraction', () => 1.5e12 + 0.5],
  ])('is refused at start with INVALID_OPTIONS: %s', async (_name, clock) => {
    const error = await caughtAsync(() => createIdService({ machineId: 73, clock }));
    expect(error.code).toBe('INVALID_OPTIONS');
  });
});
