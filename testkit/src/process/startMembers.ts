import { rmSync } from 'node:fs';
import type { TestServer } from './TestServer.js';

/** The members of a multi-member test coordinator, and the faults every one takes. */
export interface Members {
  readonly members: readonly TestServer[];
  /** Makes a member silent (SIGSTOP): it keeps its connections and answers nothing. */
  pause(member: TestServer): void;
  /** Lets a silent member run again (SIGCONT). */
  resume(member: TestServer): void;
  /** Stops every member and deletes `dir`. */
  dispose(): Promise<void>;
}

/** Sends `signal` to a test server's process while it runs. */
export function signalServer(server: TestServer, signal: NodeJS.Signals): void {
  if (server.pid !== undefined) process.kill(server.pid, signal);
}

/**
 * Waits for members started together (a quorum forms only once several run), all or none: when
 * one fails to start, the others are disposed and its error thrown.
 */
export async function startMembers(
  starting: readonly Promise<TestServer>[],
  dir: string,
): Promise<Members> {
  const started = await Promise.allSettled(starting);
  const members = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const dispose = async (): Promise<void> => {
    await Promise.all(members.map((m) => m.dispose().catch(() => undefined)));
    rmSync(dir, { recursive: true, force: true });
  };
  const failed = started.find((s) => s.status === 'rejected');
  if (failed !== undefined) {
    await dispose();
    throw failed.reason;
  }
  return {
    members,
    pause: (member) => signalServer(member, 'SIGSTOP'),
    resume: (member) => signalServer(member, 'SIGCONT'),
    dispose,
  };
}
