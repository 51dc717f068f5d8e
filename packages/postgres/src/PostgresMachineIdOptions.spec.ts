import { join } from 'node:path';
import { codeOf, optionsTableMismatches } from '@vesta/testkit';
import { describe, expect, it } from 'vitest';
import {
  postgresMachineIdOptions,
  resolvePostgresMachineIdOptions,
  type PostgresMachineIdOptions,
} from './PostgresMachineIdOptions.js';

const URL = 'postgres://vesta@db:5432/app';

describe('PostgresMachineIdOptions', () => {
  it('fills the defaults and freezes the result', () => {
    const o = resolvePostgresMachineIdOptions({ url: URL });
    expect(o).toMatchObject({
      url: URL,
      schema: 'vesta',
      table: 'machine_ids',
      fenceAfterMs: 8_000,
      eraWaitMs: 8_000 + 2 * 1_000 + 1_000,
    });
    expect(Object.isFrozen(o)).toBe(true);
  });

  it.each([
    ['a URL of another scheme', { url: 'mysql://db:3306/app' }],
    ['a schema PostgreSQL keeps for itself', { url: URL, schema: 'pg_catalog' }],
    ['a quoted or upper-case identifier', { url: URL, table: 'Ids"; DROP TABLE x; --' }],
    ['inconsistent timings', { url: URL, refreshIntervalMs: 5_000, fenceAfterMs: 8_000 }],
    ['an unknown option', { url: URL, prefix: 'x' }],
  ])('refuses %s with INVALID_OPTIONS', (_, input) => {
    expect(
      codeOf(() => resolvePostgresMachineIdOptions(input as unknown as PostgresMachineIdOptions)),
    ).toBe('INVALID_OPTIONS');
  });
});

describe('the README', () => {
  it('says in its options table what the declaration says: every option, the required ones, each literal default', () => {
    expect(
      optionsTableMismatches(join(import.meta.dirname, '../README.md'), postgresMachineIdOptions),
    ).toEqual([]);
  });
});
