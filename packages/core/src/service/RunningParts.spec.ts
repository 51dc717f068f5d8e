import { describe, expect, it } from 'vitest';
import { TOKENS } from '../tokens.js';
import { composeIdService } from './createIdService.js';
import type { IdService } from './IdService.js';
import { RunningParts } from './RunningParts.js';

/** A part that records its close in `closed`, after a tick, or fails with its name. */
function part(closed: string[], name: string, fails = false) {
  return async () => ({
    async close() {
      await Promise.resolve();
      if (fails) throw new Error(name);
      closed.push(name);
    },
  });
}

describe('RunningParts', () => {
  it('closes each part once the one started after it has settled, the last started first', async () => {
    const closed: string[] = [];
    const parts = new RunningParts();
    await parts.start('segments', part(closed, 'segments'));
    await parts.start('server', part(closed, 'server'));
    await parts.start('grpc', part(closed, 'grpc'));
    await parts.close();
    expect(closed).toEqual(['grpc', 'server', 'segments']);
    // Once: a second close closes nothing again.
    await parts.close();
    expect(closed).toEqual(['grpc', 'server', 'segments']);
  });

  it('still closes the earlier parts when one fails, and throws that failure', async () => {
    const closed: string[] = [];
    const parts = new RunningParts();
    await parts.start('segments', part(closed, 'segments'));
    await parts.start('server', part(closed, 'server', true));
    await expect(parts.close()).rejects.toThrow('server');
    expect(closed).toEqual(['segments']);
  });

  it('throws the last failure when several parts fail, as nested finally blocks do', async () => {
    const parts = new RunningParts();
    await parts.start('second', part([], 'second', true));
    await parts.start('first', part([], 'first', true));
    await expect(parts.close()).rejects.toThrow('second');
  });

  it('closes what started when a later start fails, then throws the start error', async () => {
    const closed: string[] = [];
    const parts = new RunningParts();
    await parts.start('server', part(closed, 'server'));
    const start = new Error('port in use');
    await expect(parts.start('grpc', () => Promise.reject(start))).rejects.toBe(start);
    expect(closed).toEqual(['server']);
  });

  it('throws the start error when the close rejects or throws, not the close error', async () => {
    const start = new Error('port in use');
    for (const close of [
      () => Promise.reject(new Error('close failed')),
      () => {
        throw new Error('close threw');
      },
    ]) {
      const parts = new RunningParts();
      await parts.start('server', async () => ({ close }) as never);
      await expect(parts.start('grpc', () => Promise.reject(start))).rejects.toBe(start);
    }
  });

  it('throws the start error when there was nothing to close', async () => {
    const start = new Error('port in use');
    await expect(new RunningParts().start('server', () => Promise.reject(start))).rejects.toBe(
      start,
    );
  });

  it('closes the started parts when a step between them fails, and throws its error', async () => {
    const closed: string[] = [];
    const parts = new RunningParts();
    await parts.start('segments', part(closed, 'segments'));
    const failure = new Error('bad handlers');
    await expect(parts.closeOnFailure(() => Promise.reject(failure))).rejects.toBe(failure);
    expect(closed).toEqual(['segments']);
  });

  it('holds the id service it composed, as a part that closes with the others', async () => {
    const closed: string[] = [];
    const parts = new RunningParts();
    await parts.start('segments', part(closed, 'segments'));
    const service = await parts.start('service', () =>
      composeIdService(parts, { machineId: 5, clock: Date.now }),
    );
    expect(parts.get<IdService>(TOKENS.IdService)).toBe(service);
    await parts.close();
    expect(closed).toEqual(['segments']);
    await expect(service.genId()).rejects.toMatchObject({ code: 'SERVICE_CLOSED' });
  });
});
