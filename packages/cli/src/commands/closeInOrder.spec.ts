import { describe, expect, it } from 'vitest';
import { closeInOrder } from './closeInOrder.js';

describe('closeInOrder', () => {
  it('closes each part once the one before it has settled', async () => {
    const closed: string[] = [];
    const part = (name: string) => async () => {
      await Promise.resolve();
      closed.push(name);
    };
    await closeInOrder(part('grpc'), part('server'), part('segments'))();
    expect(closed).toEqual(['grpc', 'server', 'segments']);
  });

  it('still closes the later parts when one fails, and throws that failure', async () => {
    const closed: string[] = [];
    const close = closeInOrder(
      () => Promise.reject(new Error('server')),
      async () => {
        closed.push('segments');
      },
    );
    await expect(close()).rejects.toThrow('server');
    expect(closed).toEqual(['segments']);
  });

  it('throws the last failure when several parts fail, as nested finally blocks do', async () => {
    const close = closeInOrder(
      () => Promise.reject(new Error('first')),
      () => Promise.reject(new Error('second')),
    );
    await expect(close()).rejects.toThrow('second');
  });

  it('passes over a part never started', async () => {
    const closed: string[] = [];
    const missing: { close(): Promise<void> } | undefined = undefined as
      { close(): Promise<void> } | undefined;
    await closeInOrder(
      () => missing?.close(),
      async () => {
        closed.push('server');
      },
    )();
    expect(closed).toEqual(['server']);
  });
});
