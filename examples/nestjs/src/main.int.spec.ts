import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { RedisAdmin } from '@vesta/redis';
import {
  compiledFixture,
  FIXTURE_EXEC_ARGV,
  startRedisServer,
  type RedisServer,
} from '@vesta/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const MAIN = new URL('./main.ts', import.meta.url);

let redis: RedisServer;

beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.stop();
});

async function json(url: string): Promise<{ status: number; text: string; body: unknown }> {
  const response = await fetch(url);
  const text = await response.text();
  return { status: response.status, text, body: JSON.parse(text) as unknown };
}

describe('the NestJS example', () => {
  it('serves ids as decimal strings and its health, and gives its Redis lease back on SIGTERM', async () => {
    const prefix = `example-nestjs-${randomUUID()}`;
    const admin = new RedisAdmin({ url: redis.url, prefix });
    // A store known to be new: the first start need not wait out the era (`vesta machine-ids init`).
    await admin.init();
    // Compiled and run by plain Node, the packages from their dist/ (as installed).
    const script = await compiledFixture(MAIN);
    const child = spawn(process.execPath, [...FIXTURE_EXEC_ARGV, script], {
      env: { ...process.env, REDIS_URL: `${redis.url}/?prefix=${prefix}`, PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = once(child, 'exit');
    try {
      const lines = createInterface({ input: child.stdout });
      const [first] = (await Promise.race([
        once(lines, 'line'),
        exited.then(() => [`exited early: ${stderr}`]),
      ])) as [string];
      const url = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(first)?.[1];
      expect(url, first).toBeDefined();

      const one = await json(`${url}/ids`);
      expect(one.text).toMatch(/^\{"id":"\d+"\}$/);
      const id = (one.body as { id: string }).id;
      const decoded = await json(`${url}/ids/${id}`);
      const machine = (decoded.body as { machine: number }).machine;
      expect(decoded.body).toMatchObject({ genMethod: 0, machine: Number(BigInt(id) & 1023n) });
      expect(await admin.list()).toMatchObject([{ machineId: machine, alive: true }]);

      const batch = await json(`${url}/ids?count=3`);
      expect(batch.text).toMatch(/^\{"ids":\["\d+","\d+","\d+"\]\}$/);
      expect(await json(`${url}/health`)).toMatchObject({
        status: 200,
        body: { status: 'ok', info: { vesta: { status: 'up' } } },
      });

      child.kill('SIGTERM');
      expect(await exited, stderr).toEqual([0, null]);
      expect(await admin.list()).toMatchObject([{ machineId: machine, alive: false, owner: null }]);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
