import { describe, expect, it } from 'vitest';
import { defaultMaxConnections } from './serverOptions.js';

const limits = (soft: string, hard: string): string =>
  'Limit                     Soft Limit           Hard Limit           Units     \n' +
  'Max processes             95833                95833                processes \n' +
  `Max open files            ${soft.padEnd(20)} ${hard.padEnd(20)} files     \n`;

describe('defaultMaxConnections', () => {
  it.each([
    ['1024', '1024', 921],
    ['1024', '4096', 921],
    ['20000', '20000', 18_000],
    ['400', '400', 336],
    ['16', '16', 16],
    ['1048576', '1048576', 65_536],
    ['unlimited', 'unlimited', 921],
  ])(
    'is 90%% of a soft limit of %s (hard %s), 64 below it at least, 16 to 65536: %i',
    (soft, hard, expected) => {
      expect(defaultMaxConnections(limits(soft, hard))).toBe(expected);
    },
  );

  it('falls back to 90% of 1024 when the limits cannot be read', () => {
    expect(defaultMaxConnections('no such line')).toBe(921);
  });
});
