import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import {
  compiledFixture,
  runtimeCommand,
  runToExit,
  tempDir,
  type OtherRuntime,
} from '@vesta/testkit';
import { afterAll, describe, expect, it } from 'vitest';

const SMOKE = new URL('./__fixtures__/runtimeSmoke.ts', import.meta.url);

interface SmokeOutput {
  runtime: string;
  machine: number;
  threads: string[][];
}

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

/**
 * Runs the smoke fixture under `runtime` with `run` (see the fixture) and the environment
 * `env` added; its JSON line, or the code of the VestaError that stopped it.
 */
async function smoke(
  runtime: OtherRuntime,
  run: object,
  env: Record<string, string> = {},
): Promise<SmokeOutput | { code: string }> {
  const { command, args, env: own } = runtimeCommand(runtime);
  const result = await runToExit(
    command,
    [...args, await compiledFixture(SMOKE), JSON.stringify(run)],
    process.cwd(),
    undefined,
    { ...own, ...env },
  );
  expect([0, 2], result.stderr).toContain(result.code);
  return JSON.parse(result.stdout) as SmokeOutput | { code: string };
}

function issued(output: SmokeOutput | { code: string }): SmokeOutput {
  if ('code' in output) throw new Error(`the run failed with ${output.code}`);
  return output;
}

// Machine ids apart for each run: a process closing a machine id leaves a host mark that the
// next start on it waits out (as it should), which would only slow the suite.
describe.each([
  { runtime: 'bun' as const, machine: 600 },
  { runtime: 'deno' as const, machine: 620 },
])('the embedded service on $runtime', ({ runtime, machine }) => {
  it.each([
    { populator: 'sync', workers: 0, offset: 0, threads: 'the main thread' },
    { populator: 'lock', workers: 0, offset: 1, threads: 'concurrent calls' },
    { populator: 'atomic', workers: 3, offset: 2, threads: 'the main thread and 3 workers' },
  ])(
    'issues unique ids, increasing in each thread, with the $populator populator from $threads',
    async ({ populator, workers, offset }) => {
      const out = issued(
        await smoke(runtime, { machineId: machine + offset, populator, workers, count: 2000 }),
      );
      expect(out.runtime).toBe(runtime);
      expect(out.machine).toBe(machine + offset);
      expect(out.threads).toHaveLength(workers + 1);
      const all = new Set<string>();
      for (const thread of out.threads) {
        expect(thread).toHaveLength(2000);
        const ids = thread.map(BigInt);
        expect(ids.every((id, i) => i === 0 || id > (ids[i - 1] ?? id))).toBe(true);
        for (const id of thread) all.add(id);
      }
      expect(all.size).toBe(2000 * (workers + 1));
    },
  );

  it('keeps the time mark of its state dir across a restart, with the clock stepped back between them', async () => {
    const stateDir = tempDir('vesta-runtime-state-');
    dirs.push(stateDir);
    const run = { machineId: machine + 10, populator: 'sync', count: 100, stateDir };
    const first = issued(await smoke(runtime, run));
    // A scope of its own: no host mark of the first run helps the second, only the state dir.
    const second = issued(
      await smoke(
        runtime,
        { ...run, clockOffsetMs: -1500 },
        { VESTA_HOST_LOCK_SCOPE: `runtime-restart-${randomUUID()}` },
      ),
    );
    const last = BigInt(first.threads[0]?.at(-1) ?? '0');
    const next = BigInt(second.threads[0]?.[0] ?? '0');
    expect(next > last).toBe(true);
  });
});
