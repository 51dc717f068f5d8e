import { spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import {
  runtimeCommand,
  runToExit,
  tempDir,
  VESTA_CLI,
  type OtherRuntime,
  type RuntimeCommand,
} from '@vesta/testkit';
import { afterAll, describe, expect, it } from 'vitest';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** How to run the `vesta` CLI (testkit's bundle of its compiled bin) under `runtime`. */
function vesta(runtime: OtherRuntime | 'node'): RuntimeCommand {
  const { command, args, env } =
    runtime === 'node' ? { command: process.execPath, args: [], env: {} } : runtimeCommand(runtime);
  return { command, args: [...args, ...VESTA_CLI], env };
}

/**
 * Starts `vesta rest` under `runtime` on 127.0.0.1 and a port the system picks, and resolves
 * once its "listening" log line names the URL; `exited` resolves with its exit code.
 */
async function startRest(
  runtime: OtherRuntime,
  args: readonly string[],
): Promise<{ url: string; stop: () => Promise<number | null> }> {
  const { command, args: leading, env } = vesta(runtime);
  const child = spawn(
    command,
    [...leading, 'rest', '--host', '127.0.0.1', '--port', '0', ...args],
    {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const url = await new Promise<string>((done, fail) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      const entry = JSON.parse(line) as { url?: unknown; msg?: unknown };
      if (typeof entry.url === 'string' && String(entry.msg).includes('listening')) done(entry.url);
    });
    void exited.then((code) => fail(new Error(`vesta rest exited with ${code}: ${stderr}`)));
  });
  return {
    url,
    stop: () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

describe.each([
  // Bun binds a lock address one byte shorter than Node's and Deno's (see acquireHostLock): each
  // side finds the other's in /proc/net/unix, so every pair of runtimes is kept apart.
  { runtime: 'bun' as const, machine: 1000, refused: ['bun', 'node', 'deno'] as const },
  { runtime: 'deno' as const, machine: 1001, refused: ['deno', 'node', 'bun'] as const },
])('vesta rest on $runtime', ({ runtime, machine, refused }) => {
  it('answers /genid with a decimal string, holds the host lock against a second instance, and stops on SIGTERM', async () => {
    const stateDir = tempDir('vesta-runtime-cli-');
    dirs.push(stateDir);
    const args = ['--machine-id', String(machine), '--state-dir', stateDir];
    const server = await startRest(runtime, args);
    try {
      const body = (await (await fetch(`${server.url}/genid`)).json()) as { id: unknown };
      expect(body.id).toMatch(/^[1-9][0-9]*$/);
      for (const other of refused) {
        const { command, args: leading, env } = vesta(other);
        const second = await runToExit(
          command,
          [...leading, 'rest', '--host', '127.0.0.1', '--port', '0', ...args],
          process.cwd(),
          undefined,
          env,
        );
        expect(second.code).not.toBe(0);
        expect(second.stderr + second.stdout).toContain('MACHINE_ID_IN_USE');
      }
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });
});
