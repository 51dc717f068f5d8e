import { spawn } from 'node:child_process';
import { freePort, VESTA_CLI } from '@vesta/testkit';
import { describe, expect, it } from 'vitest';

/** How long `vesta segment` may take to give up on a store that is down (start-up included). */
const EXIT_DEADLINE_MS = 20_000;

describe('vesta segment on a Redis that is down (attack11)', () => {
  it('reports COORDINATOR_UNAVAILABLE and exits 1', async () => {
    const port = await freePort();
    const child = spawn(
      process.execPath,
      [...VESTA_CLI, 'segment', 'keys', '--store', `redis://127.0.0.1:${port}`],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const bound = setTimeout(() => child.kill('SIGKILL'), EXIT_DEADLINE_MS);
    const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
      child.once('close', (code, signal) => done({ code, signal })),
    );
    clearTimeout(bound);
    expect(stderr).toMatch(/^vesta segment: COORDINATOR_UNAVAILABLE: /m);
    expect(exit).toEqual({ code: 1, signal: null });
  }, 60_000);
});
