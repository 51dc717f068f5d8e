import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseEpoch } from '../time/parseEpoch.js';
import { defineOptions, withoutSecrets } from './defineOptions.js';
import {
  authTokenOption,
  hostOption,
  objectWith,
  parsedOption,
  wholeNumber,
} from './optionTypes.js';
import { caught } from '@vesta/testkit';

const listener = defineOptions('listener', {
  host: hostOption.default('127.0.0.1'),
  port: wholeNumber(0, 65_535).default(8080),
  token: authTokenOption.optional(),
  epoch: parsedOption((v) => parseEpoch(v as string | undefined)),
  limits: z.strictObject({ max: wholeNumber(1, 10) }).default({ max: 5 }),
  logger: objectWith<{ warn(): void }>('a Logger', 'warn').optional(),
});

describe('defineOptions', () => {
  it('fills defaults and freezes what it built', () => {
    const resolved = listener.resolve({ port: 0 });
    expect(resolved).toMatchObject({ host: '127.0.0.1', port: 0, limits: { max: 5 } });
    expect(Object.isFrozen(resolved)).toBe(true);
    expect(Object.isFrozen(resolved.limits)).toBe(true);
  });

  it("passes the caller's objects through unfrozen (a logger stays the caller's)", () => {
    const logger = { warn: () => undefined };
    expect(listener.resolve({ logger }).logger).toBe(logger);
    expect(Object.isFrozen(logger)).toBe(false);
  });

  it.each<[string, unknown, string]>([
    ['an unknown key', { prot: 1 }, 'unknown listener option "prot"'],
    [
      'a port out of range',
      { port: 70_000 },
      'port must be a whole number from 0 to 65535, got 70000',
    ],
    ['a fractional port', { port: 1.5 }, 'port must be a whole number from 0 to 65535, got 1.5'],
    ['a host with a space', { host: 'a b' }, 'host must be an address or host name, got "a b"'],
    [
      'a nested unknown key',
      { limits: { max: 2, min: 1 } },
      'unknown listener option in limits: "min"',
    ],
    [
      'a nested bad value',
      { limits: { max: 0 } },
      'limits.max must be a whole number from 1 to 10, got 0',
    ],
    ['a token with a space', { token: 'a b' }, 'token must be 1 to 1024 visible ASCII characters'],
    ['a logger without warn', { logger: {} }, 'logger must be a Logger'],
    ['options that are no object', 5, 'listener options must be an object'],
  ])('refuses %s with INVALID_OPTIONS and one clear sentence', (_name, input, message) => {
    const error = caught(() => listener.resolve(input));
    expect(error.code).toBe('INVALID_OPTIONS');
    expect(error.message).toContain(message);
  });

  it('shows a rejected URL without its credentials', () => {
    const store = defineOptions('store', {
      url: z.url({ protocol: /^redis$/, error: 'must be a redis URL' }),
    });
    const error = caught(() => store.resolve({ url: 'http://admin:hunter2@db.internal:6379' }));
    expect(error.message).toBe('url must be a redis URL, got "http://***@db.internal:6379"');
    expect(error.message).not.toContain('hunter2');
  });

  it.each([
    ['redis://:pa/ss@h:6379', 'redis://***@h:6379'],
    ['redis://:p@ss@h:6379/abc', 'redis://***@h:6379/abc'],
    ['postgres://u:pw@h/db?sslpassword=SSLSECRET', 'postgres://***@h/db?…'],
    ['sentinel://h/m/x?sentinelPassword=SECRETXX', 'sentinel://h/m/x?…'],
    ['redis://:pa#ss@h:6379', 'redis://***@h:6379'],
    ['not a url', 'not a url'],
  ])('masks %j as %j', (text, masked) => {
    expect(withoutSecrets(text)).toBe(masked);
  });

  it("keeps a parser's own sentence, which names the option", () => {
    const error = caught(() => listener.resolve({ epoch: 'last tuesday' }));
    expect(error.code).toBe('INVALID_OPTIONS');
    expect(error.message).toMatch(/^epoch must be Unix ms/);
    expect(listener.resolve({ epoch: '2025-01-01' }).epoch).toBe(Date.UTC(2025, 0, 1));
  });
});
