import { join } from 'node:path';
import { codeOf, optionsTableMismatches } from '@vesta/testkit';
import { describe, expect, it } from 'vitest';
import {
  postgresMachineIdOptions,
  postgresOptions,
  type PostgresMachineIdOptions,
} from './PostgresMachineIdOptions.js';

const URL = 'postgres://vesta@db:5432/app';

describe('PostgresMachineIdOptions', () => {
  it('fills the defaults and freezes the result', () => {
    const o = postgresOptions.resolve({ url: URL });
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
    ['an unknown URL parameter', { url: `${URL}?prefix=x` }],
    ['a bad identifier in the URL', { url: `${URL}?schema=Bad-Name` }],
    ['another target_session_attrs', { url: `${URL}?target_session_attrs=read-only` }],
    ['an empty host in a list', { url: 'postgres://vesta@db1:5432,/app' }],
    ['a host list with a bad port', { url: 'postgres://vesta@db1:5432,db2:x/app' }],
    ['a repeated client parameter', { url: `${URL}?sslmode=require&sslmode=disable` }],
    [
      'a repeated target_session_attrs',
      { url: 'postgres://h1,h2/app?target_session_attrs=any&target_session_attrs=read-write' },
    ],
  ])('refuses %s with INVALID_OPTIONS', (_, input) => {
    expect(
      codeOf(() => postgresOptions.resolve(input as unknown as PostgresMachineIdOptions)),
    ).toBe('INVALID_OPTIONS');
  });
});

describe('PostgreSQL URLs', () => {
  it('reads one host as node-postgres does, with the options of its query', () => {
    const o = postgresOptions.resolve({ url: `${URL}?schema=ids&fenceAfterMs=6000` });
    expect(o).toMatchObject({ schema: 'ids', fenceAfterMs: 6000 });
    expect(o.target).toEqual({ hosts: [URL], where: 'db:5432', readWrite: false });
  });

  it('keeps a raw @ of a password in the password of every host', () => {
    expect(
      postgresOptions.resolve({ url: 'postgres://u:hunter@2@db1:5432,db2:5432/app' }).target,
    ).toEqual({
      hosts: ['postgres://u:hunter%402@db1:5432/app', 'postgres://u:hunter%402@db2:5432/app'],
      where: 'db1:5432,db2:5432',
      readWrite: true,
    });
  });

  it('reads libpq’s host list, the primary serving by default, any host with target_session_attrs=any', () => {
    const list = 'postgres://vesta:pw@db1:5432,[::1]:5433,db3/app';
    expect(postgresOptions.resolve({ url: list }).target).toEqual({
      hosts: [
        'postgres://vesta:pw@db1:5432/app',
        'postgres://vesta:pw@[::1]:5433/app',
        'postgres://vesta:pw@db3/app',
      ],
      where: 'db1:5432,[::1]:5433,db3',
      readWrite: true,
    });
    const any = postgresOptions.resolve({
      url: `${list}?target_session_attrs=any&table=t`,
    });
    expect(any).toMatchObject({ table: 't', target: { readWrite: false } });
    expect(
      postgresOptions.resolve({ url: `${URL}?target_session_attrs=read-write` }).target.readWrite,
    ).toBe(true);
  });
});

describe('the README', () => {
  it('says in its options table what the declaration says: every option, the required ones, each literal default', () => {
    expect(
      optionsTableMismatches(join(import.meta.dirname, '../README.md'), postgresMachineIdOptions),
    ).toEqual([]);
  });
});
