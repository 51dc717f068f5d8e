import type { Logger } from '@vesta/core';
import { afterEach, describe, expect, it } from 'vitest';
import type { RestServer } from '../RestServer.js';
import { startRestServer } from '../startRestServer.js';

type Line = { level: string; fields: Record<string, unknown>; message: string };

/** A logger that keeps its lines, with debug lines on or off as pino's level would say. */
function keepingLogger(debugOn: boolean): Logger & { lines: Line[] } {
  const lines: Line[] = [];
  const keep =
    (level: string) =>
    (fields: Record<string, unknown>, message: string): void => {
      lines.push({ level, fields, message });
    };
  return {
    lines,
    info: keep('info'),
    warn: keep('warn'),
    error: keep('error'),
    debug: keep('debug'),
    isLevelEnabled: (level) => level !== 'debug' || debugOn,
  };
}

let server: RestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('the access log', () => {
  it('writes one debug line per request, with method, route, status, duration and ids issued', async () => {
    const logger = keepingLogger(true);
    server = await startRestServer({ port: 0, machineId: 1003, stateDir: false, logger });
    await fetch(`${server.url}/genids?count=3`);
    await fetch(`${server.url}/genid`, { method: 'HEAD' });
    await fetch(`${server.url}/nope`);
    await fetch(`${server.url}/genids?count=0`);
    const access = logger.lines.filter((l) => l.level === 'debug' && l.message === 'request');
    expect(access.map((l) => ({ ...l.fields, ms: typeof l.fields['ms'] }))).toEqual([
      { method: 'GET', route: '/genids', status: 200, ms: 'number', ids: 3 },
      { method: 'HEAD', route: '/genid', status: 200, ms: 'number', ids: 0 },
      { method: 'GET', route: 'unmatched', status: 404, ms: 'number', ids: 0 },
      { method: 'GET', route: '/genids', status: 400, ms: 'number', ids: 0 },
    ]);
  });

  it('writes nothing while debug lines are off (the default level)', async () => {
    const logger = keepingLogger(false);
    server = await startRestServer({ port: 0, machineId: 1003, stateDir: false, logger });
    expect((await fetch(`${server.url}/genid`)).status).toBe(200);
    expect(logger.lines.filter((l) => l.level === 'debug')).toEqual([]);
  });
});
