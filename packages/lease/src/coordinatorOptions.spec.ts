import { codeOf } from '@vesta/testkit';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkOption } from '@vesta/core/kit';
import { defineAdminOptions } from './LeaseOptions.js';
import { coordinatorPathOption } from './LeaseOptions.js';
import { coordinatorUrlOption } from './LeaseOptions.js';

describe('coordinatorUrlOption', () => {
  const url = coordinatorUrlOption(['redis', 'rediss'], 'redis://host:6379');

  it.each(['redis://127.0.0.1:6379', 'rediss://u:p@cache.local:6380/2'])('takes %s', (value) => {
    expect(checkOption(url, 'url', value)).toBe(value);
  });

  it.each(['127.0.0.1:6379', 'http://127.0.0.1:6379', 'redis://:6379', 'redis:', 42])(
    'refuses %j, saying what it wants',
    (value) => {
      expect(() => checkOption(url, 'url', value)).toThrow(
        'url must be a URL like redis://host:6379',
      );
    },
  );
});

describe('coordinatorPathOption', () => {
  const root = coordinatorPathOption('a key prefix');

  it.each(['/vesta', '/fleets/a', '/a.b/c-d_e'])('takes %s', (value) => {
    expect(checkOption(root, 'root', value)).toBe(value);
  });

  it.each(['vesta', '/', '/vesta/', '//a', '/a/../b', '/a/.', '/a b'])('refuses %j', (value) => {
    expect(() => checkOption(root, 'root', value)).toThrow(
      'root must be a key prefix like /vesta or /fleets/a',
    );
  });
});

describe('defineAdminOptions', () => {
  const provider = z.object({
    endpoints: z.string(),
    root: coordinatorPathOption('a key prefix').default('/vesta'),
  });
  const admin = defineAdminOptions('etcd', provider, ['root']);

  it('adds timeoutMs to the connection: 5000 when not given, else what is given', () => {
    expect(admin.resolve({})).toEqual({ root: '/vesta', timeoutMs: 5_000 });
    expect(admin.resolve({ timeoutMs: 1 }).timeoutMs).toBe(1);
    expect(admin.resolve({ timeoutMs: 600_000 }).timeoutMs).toBe(600_000);
  });

  it.each([0, -1, 1.5, 600_001, '5000', null])(
    'refuses a timeoutMs of %j with INVALID_OPTIONS',
    (timeoutMs) => {
      expect(codeOf(() => admin.resolve({ timeoutMs }))).toBe('INVALID_OPTIONS');
    },
  );

  it('refuses unknown options, naming the admin', () => {
    expect(() => admin.resolve({ prefix: 'x' })).toThrow('unknown etcd admin option "prefix"');
  });
});
