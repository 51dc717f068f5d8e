import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

/** A server of a benchmark, in a process of its own. */
export interface BenchProcess {
  readonly child: ChildProcess;
  readonly port: number;
}

/**
 * Starts a benchmark server script with tsx in its own process (`env` added to this process's
 * environment); the script prints one JSON line `{"port":N}` once it listens, with `"pids"` the
 * processes it serves from besides its own (cluster workers), if any.
 */
export async function startBenchProcess(
  script: string,
  env: Readonly<Record<string, string>> = {},
): Promise<
  BenchProcess & { readonly pids: readonly number[]; readonly line: Record<string, unknown> }
> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise<{ port: number; pids?: number[] }>((resolve, reject) => {
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).once('line', (text) =>
      resolve(JSON.parse(text) as { port: number; pids?: number[] }),
    );
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return { child, port: line.port, pids: line.pids ?? [], line };
}

/** Stops a benchmark server: SIGTERM, then SIGKILL if it has not exited after `graceMs`. */
export async function stopBenchProcess({ child }: BenchProcess, graceMs = 15_000): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/** The CPU time (user + system, all threads) of a process in ms, from /proc; NaN elsewhere. */
export function cpuMs(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) * 10; // clock ticks of 10 ms
  } catch {
    return Number.NaN;
  }
}
