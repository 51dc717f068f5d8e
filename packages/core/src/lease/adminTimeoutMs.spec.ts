import { codeOf } from '@vesta/testkit';
import { describe, expect, it } from 'vitest';
import { adminTimeoutMs } from './adminTimeoutMs.js';

describe('adminTimeoutMs', () => {
  it('is 5000 when not given, else what is given', () => {
    expect(adminTimeoutMs(undefined)).toBe(5_000);
    expect(adminTimeoutMs(1)).toBe(1);
    expect(adminTimeoutMs(600_000)).toBe(600_000);
  });

  it.each([0, -1, 1.5, 600_001, '5000', null])('refuses %j with INVALID_OPTIONS', (value) => {
    expect(codeOf(() => adminTimeoutMs(value))).toBe('INVALID_OPTIONS');
  });
});
