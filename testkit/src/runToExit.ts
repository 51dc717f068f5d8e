import { spawn } from 'node:child_process';

/** What a process printed, and how it ended. */
export interface ProcessResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `command args` in `cwd` to its exit (bounded by the test's timeout) and collects its
 * output; `stdin`, when given, is piped in (otherwise stdin is /dev/null); `env` is added to
 * this process's environment.
 */
export function runToExit(
  command: string,
  args: readonly string[],
  cwd: string,
  stdin?: string,
  env: Readonly<Record<string, string>> = {},
): Promise<ProcessResult> {
  const options = { cwd, env: { ...process.env, ...env } };
  const child =
    stdin === undefined
      ? spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn(command, args, { ...options, stdio: ['pipe', 'pipe', 'pipe'] });
  // A process that exits without reading its input closes the pipe: not the test's failure.
  child.stdin?.on('error', () => undefined);
  child.stdin?.end(stdin);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((done) =>
    child.once('close', (code, signal) => done({ code, signal, stdout, stderr })),
  );
}
