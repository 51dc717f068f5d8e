import { describe, expect, it } from 'vitest';
import { splitOptions } from './defineOptions.js';

describe('splitOptions', () => {
  const keys = new Set(['host', 'port']);

  it('parts the named keys from the rest', () => {
    expect(splitOptions(keys, { host: 'h', port: 1, stateDir: '/s', port2: 2 })).toEqual({
      own: { host: 'h', port: 1 },
      rest: { stateDir: '/s', port2: 2 },
    });
  });

  it.each([undefined, null, 'host', 42])(
    'passes %j on as it is, for its resolver to refuse',
    (value) => {
      expect(splitOptions(keys, value)).toEqual({ own: value, rest: {} });
    },
  );
});
