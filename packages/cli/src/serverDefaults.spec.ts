import { resolveRestServerOptions } from '@vesta/rest';
import { resolveIdServerOptions } from '@vesta/server';
import { codeOf } from '@vesta/testkit';
import { describe, expect, it } from 'vitest';

describe('every server entry point', () => {
  it('has the same safe defaults: loopback, the mark in ./.vesta-state, a connection cap, a logger', () => {
    const rest = resolveRestServerOptions({ machineId: 1000 }, '/srv/app');
    const tcp = resolveIdServerOptions({ machineId: 1000 }, '/srv/app');
    expect(rest.host).toBe('127.0.0.1');
    expect(tcp.host).toBe(rest.host);
    expect(rest.service.stateDir).toBe('/srv/app/.vesta-state');
    expect(tcp.stateDir).toBe(rest.service.stateDir);
    expect(tcp.maxConnections).toBe(rest.maxConnections);
    expect(typeof rest.logger.info).toBe('function');
  });

  it('keeps the mark in memory only when told so, on both servers', () => {
    expect(resolveRestServerOptions({ machineId: 1000, stateDir: false }).service.stateDir).toBe(
      undefined,
    );
    expect(resolveIdServerOptions({ machineId: 1000, stateDir: false }).stateDir).toBe(undefined);
  });

  it.each([
    ['a port out of range', { port: 70_000 }],
    ['an auth token with a space', { authToken: 'a b' }],
    ['a host with a space', { host: 'a b' }],
    ['an empty state dir', { stateDir: '' }],
  ])('refuses %s the same way on both servers', (_name, bad) => {
    expect(codeOf(() => resolveRestServerOptions({ machineId: 1000, ...bad }))).toBe(
      'INVALID_OPTIONS',
    );
    expect(codeOf(() => resolveIdServerOptions({ machineId: 1000, ...bad }))).toBe(
      'INVALID_OPTIONS',
    );
  });
});
