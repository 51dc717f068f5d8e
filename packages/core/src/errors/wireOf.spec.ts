import { describe, expect, it } from 'vitest';
import { ERROR_CODES, type VestaErrorCode, statusOf, codeOfWire, wireOf } from './errorCodes.js';

const CODES = Object.keys(ERROR_CODES) as VestaErrorCode[];

describe('wireOf and codeOfWire', () => {
  it.each(CODES)('reads %s back from its wire number', (code) => {
    expect(wireOf(code)).toBe(ERROR_CODES[code].wire);
    expect(codeOfWire(wireOf(code))).toBe(code);
  });

  it.each([0, 36, 39, 43, 65_535])('knows no code for the wire number %i', (wire) => {
    expect(codeOfWire(wire)).toBeUndefined();
  });
});

describe('statusOf', () => {
  it.each(CODES)("answers %s with its row's status", (code) => {
    expect(statusOf(code)).toBe(ERROR_CODES[code].status);
  });
});
