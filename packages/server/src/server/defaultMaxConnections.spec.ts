import { describe, expect, it } from 'vitest';
import { defaultMaxConnections } from './defaultMaxConnections.js';

const limits = (soft: string, hard: string): string =>
  [
    'Limit                     Soft Limit           Hard Limit           Units     ',
    'Max cpu time              unlimited            unlimited            seconds   ',
    `Max open files            ${soft.padEnd(21)}${hard.padEnd(21)}files     `,
    'Max locked memory         8388608              8388608              bytes     ',
  ].join('\n');

describe('defaultMaxConnections', () => {
  it.each([
    ['a soft limit of 20000', limits('20000', '1048576'), 19_744],
    ['a soft limit of 1024', limits('1024', '4096'), 768],
    ['a soft limit below the reserve', limits('100', '100'), 16],
    ['an unlimited soft limit', limits('unlimited', 'unlimited'), 1000],
    ['no open-files line', 'Limit Soft Limit Hard Limit Units\n', 1000],
  ])('leaves 256 descriptors below the fd limit, with %s', (_name, text, expected) => {
    expect(defaultMaxConnections(text)).toBe(expected);
  });
});
