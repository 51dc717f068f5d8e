import type { LayoutPresetName } from '@vesta/core';

/** An original's id formula: the id it issues at Unix ms `ms` as `machine` with sequence `seq`. */
export type OriginalIdFormula = (ms: number, machine: number, seq: number) => bigint;

const snowflake =
  (epochMs: number): OriginalIdFormula =>
  (ms, machine, seq) =>
    (BigInt(ms - epochMs) << 22n) | (BigInt(machine) << 12n) | BigInt(seq);

/**
 * Each non-Vesta preset's id as its original computes it, written from the original's source
 * (not from our layouts): what every mode must issue bit for bit under that preset.
 */
export const ORIGINAL_ID_FORMULAS: Readonly<
  Record<Exclude<LayoutPresetName, 'vesta-max-peak' | 'vesta-min-granularity'>, OriginalIdFormula>
> = Object.freeze({
  // Twitter / Leaf SnowflakeIDGenImpl: (timestamp - twepoch) << 22 | workerId << 12 | sequence
  twitter: snowflake(1288834974657),
  leaf: snowflake(1288834974657),
  // Nacos SnowFlowerIdGenerator: (currentMillis - 1533429240000) << 22 | workerId << 12 | sequence
  nacos: snowflake(1533429240000),
  // uid-generator BitsAllocator.allocate: deltaSeconds << 35 | workerId << 13 | sequence
  'uid-generator': (ms, machine, seq) =>
    (BigInt(Math.floor(ms / 1000) - 1463673600) << 35n) | (BigInt(machine) << 13n) | BigInt(seq),
  // sonyflake toID: elapsed 10 ms units << (8 + 16) | sequence << 16 | machineID
  sonyflake: (ms, machine, seq) =>
    (BigInt(Math.floor((ms - Date.UTC(2014, 8, 1)) / 10)) << 24n) |
    (BigInt(seq) << 16n) |
    BigInt(machine),
  // Discord: (ms - 1420070400000) << 22 | worker << 17 | process << 12 | increment
  discord: snowflake(1420070400000),
  // js-safe (README): seconds since 2025-01-01 << 22 | machine << 14 | sequence
  'js-safe': (ms, machine, seq) =>
    (BigInt(Math.floor((ms - Date.UTC(2025, 0, 1)) / 1000)) << 22n) |
    (BigInt(machine) << 14n) |
    BigInt(seq),
});

/**
 * An instant each preset can still issue at (uid-generator's default 28 bits of seconds ran
 * out on 2024-11-20): 2026-03-04T05:06:07.891Z, or 2020 for uid-generator.
 */
export function issuableInstant(preset: keyof typeof ORIGINAL_ID_FORMULAS): number {
  return preset === 'uid-generator'
    ? Date.UTC(2020, 2, 4, 5, 6, 7, 891)
    : Date.UTC(2026, 2, 4, 5, 6, 7, 891);
}
