import { readdirSync, readFileSync } from 'node:fs';
import type { TestServer } from './TestServer.js';

/** The ids of `pid`'s live children, read from /proc (Linux). */
function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(entry)) continue;
    try {
      // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so read after the last ')'.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) children.push(Number(entry));
    } catch {
      // Gone since the listing.
    }
  }
  return children;
}

/**
 * Sends `signal` to a test server's process and every process under it, parent first: SIGSTOP
 * silences a PostgreSQL whole (its backends are child processes that a signal to the postmaster
 * alone leaves running), SIGCONT lets it run again. Linux only (/proc).
 */
export function signalServerTree(server: TestServer, signal: NodeJS.Signals): void {
  const visit = (pid: number, depth: number): void => {
    try {
      process.kill(pid, signal);
    } catch {
      return;
    }
    if (depth < 8) for (const child of childrenOf(pid)) visit(child, depth + 1);
  };
  if (server.pid !== undefined) visit(server.pid, 0);
}
