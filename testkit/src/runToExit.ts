import { spawn } from 'node:child_process';

/** What a process printed, and how it ended. */
export interface ProcessResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `command args` in `cwd` to its exit (bounded by the test's timeout) and collects its output. */
export function runToExit(
  command: string,
  args: readonly string[],
  cwd: string,
): Promise<ProcessResult> {
  const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((done) =>
    child.once('close', (code, signal) => done({ code, signal, stdout, stderr })),
  );
}
