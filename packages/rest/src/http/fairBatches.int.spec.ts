import { spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import { resolve as resolvePath } from 'node:path';
import { createInterface } from 'node:readline';
import { VESTA_CLI } from '@vesta/testkit';
import { describe, expect, it } from 'vitest';

const ROOT = resolvePath(import.meta.dirname, '../../../..');

const FLOODERS = 8;
/** Each flood connection's requests, at most (the flood stops once the measure is done). */
const MAX_FLOOD_REQUESTS = 5000;
const MAX_BATCH = 10_000;
/** Batches answered before the measure starts. */
const FLOOD_ESTABLISHED_BATCHES = 100;
const MEASURED_CALLS = 200;
const P99_BOUND_MS = 100;

/** A `vesta rest` process (the server's work does not share the test's event loop). */
async function startRest(): Promise<{ port: number; stop: () => Promise<void> }> {
  const child = spawn(
    process.execPath,
    [
      ...VESTA_CLI,
      'rest',
      '--port',
      '0',
      '--no-state-dir',
      '--machine-id',
      '1003',
      '--max-batch',
      String(MAX_BATCH),
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const exited = new Promise((done) => child.once('exit', done));
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const port = await new Promise<number>((done, fail) => {
    const deadline = setTimeout(() => fail(new Error('no "listening" line in 60 s')), 60_000);
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      const entry = JSON.parse(line) as Record<string, unknown>;
      if (typeof entry.port === 'number' && String(entry.msg).includes('listening')) {
        clearTimeout(deadline);
        done(entry.port);
      }
    });
    void exited.then((code) => {
      clearTimeout(deadline);
      fail(new Error(`vesta rest exited with ${String(code)}: ${stderr}`));
    });
  });
  return {
    port,
    stop: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** GET `path` on `agent`'s connection; resolves with the status and body (kept when asked). */
function get(
  port: number,
  path: string,
  agent: Agent,
  keepBody = true,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => {
        if (keepBody) chunks.push(c);
      });
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the REST server shares its batches fairly', () => {
  it(`answers /genid within ${P99_BOUND_MS} ms (p99) while ${FLOODERS} connections ask /genids?count=${MAX_BATCH} back to back`, async () => {
    const server = await startRest();
    const agents = Array.from(
      { length: FLOODERS + 1 },
      () => new Agent({ keepAlive: true, maxSockets: 1 }),
    );
    let stop = false;
    let batches = 0;
    const floodErrors: unknown[] = [];
    const flood = agents.slice(1).map(async (agent) => {
      for (let i = 0; i < MAX_FLOOD_REQUESTS && !stop; i++) {
        try {
          const { status } = await get(server.port, `/genids?count=${MAX_BATCH}`, agent, false);
          if (status === 200) batches++;
        } catch (error) {
          floodErrors.push(error);
          return;
        }
      }
    });
    const latencies: number[] = [];
    const failures: string[] = [];
    let batchesBefore = 0;
    try {
      // Established: the flood has had a hundred batches (a million ids, about a second).
      for (let i = 0; i < 600 && batches < FLOOD_ESTABLISHED_BATCHES; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      batchesBefore = batches;
      const single = agents[0] as Agent;
      for (let i = 0; i < MEASURED_CALLS; i++) {
        const started = performance.now();
        const { status, body } = await get(server.port, '/genid', single);
        if (status === 200 && /^\{"id":"\d+"\}$/.test(body)) {
          latencies.push(performance.now() - started);
        } else {
          failures.push(`${status} ${body}`);
        }
      }
    } finally {
      stop = true;
      await Promise.all(flood);
      for (const agent of agents) agent.destroy();
      await server.stop();
    }
    latencies.sort((a, b) => a - b);
    const p99 = latencies[Math.ceil(latencies.length * 0.99) - 1] ?? Infinity;
    const p50 = latencies[Math.floor(latencies.length / 2)] ?? Infinity;
    console.info(
      `fair batches: ${latencies.length}/${MEASURED_CALLS} /genid, p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${(latencies.at(-1) ?? 0).toFixed(1)} ms; ${batchesBefore} batches before, ${batches} in all`,
    );
    expect(floodErrors).toEqual([]);
    expect(batchesBefore).toBeGreaterThanOrEqual(FLOOD_ESTABLISHED_BATCHES);
    expect(failures).toEqual([]);
    expect(p99).toBeLessThan(P99_BOUND_MS);
  });
});
