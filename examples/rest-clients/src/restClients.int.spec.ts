import { silentLogger } from '@vesta/core';
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { startRestServer, type RestServer } from '@vesta/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const HERE = resolve(import.meta.dirname, '..');
const TOKEN = 'example-token-0123';

let server: RestServer;
beforeAll(async () => {
  server = await startRestServer({
    stateDir: false,
    logger: silentLogger,
    machineId: 1020,
    port: 0,
    authToken: TOKEN,
  });
});
afterAll(async () => {
  await server.close();
});

/** The three lines every client prints: genid, genids, expid of the first id. */
function checkOutput(stdout: string): void {
  const lines = stdout.trim().split('\n');
  expect(lines).toHaveLength(3);
  const id = /"id": ?"([0-9]+)"/.exec(lines[0] ?? '')?.[1] ?? '';
  expect(id).not.toBe('');
  expect([...(lines[1] ?? '').matchAll(/"[0-9]+"/g)]).toHaveLength(3);
  const decoded = JSON.parse(lines[2] ?? '') as Record<string, unknown>;
  expect(decoded).toMatchObject({ id, machine: 1020, genMethod: 2 });
  expect(server.service.expId(id).machine).toBe(1020);
}

describe('the REST client examples', () => {
  it.each([
    ['curl', 'sh', ['curl.sh']],
    ['Python 3', 'python3', ['client.py']],
  ])('get, batch and decode ids from %s', async (_name, command, args) => {
    const { stdout } = await run(command, args, {
      cwd: HERE,
      env: { ...process.env, VESTA_URL: server.url, VESTA_AUTH_TOKEN: TOKEN },
    });
    checkOutput(stdout);
  });

  it('fail with the coded error when the token is wrong', async () => {
    await expect(
      run('python3', ['client.py'], {
        cwd: HERE,
        env: { ...process.env, VESTA_URL: server.url, VESTA_AUTH_TOKEN: 'wrong' },
      }),
    ).rejects.toMatchObject({ stderr: expect.stringContaining('401 UNAUTHORIZED') });
  });
});
