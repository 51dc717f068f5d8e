import { describe, expect, it } from 'vitest';
import { Timer } from './Timer.js';
import { codeOf } from '@vesta/testkit';

const EPOCH = Date.UTC(2025, 0, 1);

describe('Timer', () => {
  it.each([
    ['seconds', 1000, EPOCH + 5_999, 5],
    ['seconds', 1000, EPOCH + 6_000, 6],
    ['milliseconds', 1, EPOCH + 5_999, 5_999],
    ['seconds, before the epoch', 1000, EPOCH - 1, -1],
  ])('counts time units in %s since the epoch', (_name, unitMs, nowMs, expected) => {
    const timer = new Timer(EPOCH, unitMs, 30, () => nowMs);
    expect(timer.now()).toBe(expected);
    expect(timer.fromUnixMs(nowMs)).toBe(expected);
    expect(timer.toUnixMs(expected)).toBe(EPOCH + expected * unitMs);
  });

  it.each([
    ['max-peak', 1000, 30, '2059-01-10T13:37:04.000Z'],
    ['min-granularity', 1, 40, '2059-11-04T19:53:47.776Z'],
  ])(
    'dates the expiry of a %s field at the first unit it cannot hold',
    (_name, unitMs, bits, expiry) => {
      const timer = new Timer(EPOCH, unitMs, bits, Date.now);
      expect(timer.maxTime).toBe(2 ** bits - 1);
      expect(timer.expiryDate.toISOString()).toBe(expiry);
    },
  );

  it.each([
    [0, undefined],
    [1023, undefined],
    [1024, 'TIME_OVERFLOW'],
    [-1, 'CLOCK_BEFORE_EPOCH'],
  ])('checks time %i against a 10-bit field: %s', (time, code) => {
    const timer = new Timer(EPOCH, 1, 10, () => EPOCH);
    expect(codeOf(() => timer.check(time))).toBe(code);
  });

  it('counts the milliseconds left until a unit starts, never below zero', () => {
    const timer = new Timer(EPOCH, 1000, 30, () => EPOCH + 2_400);
    expect(timer.msUntil(3)).toBe(600);
    expect(timer.msUntil(2)).toBe(0);
  });
});
