import { describe, expect, it } from 'vitest';
import { closeAfterFailedStart } from './closeAfterFailedStart.js';

describe('closeAfterFailedStart', () => {
  it('closes, then throws the start error', async () => {
    const closed: string[] = [];
    const start = new Error('port in use');
    await expect(
      closeAfterFailedStart(async () => {
        closed.push('server');
      }, start),
    ).rejects.toBe(start);
    expect(closed).toEqual(['server']);
  });

  it('throws the start error when the close rejects or throws, not the close error', async () => {
    const start = new Error('port in use');
    await expect(
      closeAfterFailedStart(() => Promise.reject(new Error('close failed')), start),
    ).rejects.toBe(start);
    await expect(
      closeAfterFailedStart(() => {
        throw new Error('close threw');
      }, start),
    ).rejects.toBe(start);
  });

  it('throws the start error when there was nothing to close', async () => {
    const start = new Error('port in use');
    await expect(closeAfterFailedStart(() => undefined, start)).rejects.toBe(start);
  });
});
