import { codeOf } from '@vesta/testkit';
import { describe, expect, it } from 'vitest';
import { machineIdFromFlags } from './machineIdOptions.js';

describe('--machine-id', () => {
  it("takes machine ids past 1023, as sonyflake's and uid-generator's server ranges need", () => {
    expect(machineIdFromFlags({ machineId: '58983' }, 1023, () => undefined)).toEqual({
      machineId: 58_983,
    });
    expect(machineIdFromFlags({ machineId: '4194303' }, 1023, () => undefined)).toEqual({
      machineId: 4_194_303,
    });
  });

  it.each(['1234567890123456', '-1', '1e3', ''])('refuses %j with INVALID_OPTIONS', (raw) => {
    expect(codeOf(() => machineIdFromFlags({ machineId: raw }, 1023, () => undefined))).toBe(
      'INVALID_OPTIONS',
    );
  });
});
