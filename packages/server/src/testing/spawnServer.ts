import { spawn, type ChildProcess } from 'node:child_process';
import { compiledFixture, FIXTURE_EXEC_ARGV } from '@vesta/testkit';

const SCRIPT = new URL('./runServer.ts', import.meta.url);

/** An id server in a child process. */
export interface ServerProcess {
  readonly child: ChildProcess;
  readonly port: number;
  /** Resolves with the exit signal or code once the process is gone. */
  readonly exited: Promise<string>;
}

/** Test helper: starts `runServer.ts` (compiled) with these options and waits for READY. */
export async function spawnServer(options: Record<string, unknown>): Promise<ServerProcess> {
  const script = await compiledFixture(SCRIPT);
  const child = spawn(process.execPath, [...FIXTURE_EXEC_ARGV, script, JSON.stringify(options)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<string>((resolve) =>
    child.once('exit', (code, signal) => resolve(signal ?? String(code))),
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(
      () => reject(new Error(`server did not start in 30 s: ${stderr}`)),
      30_000,
    );
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /READY (\d+)/.exec(out);
      if (match !== null) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    void exited.then((how) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${how}) before it was ready: ${stderr}`));
    });
  });
  return { child, port, exited };
}
