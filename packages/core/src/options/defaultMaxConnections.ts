import { readFileSync } from 'node:fs';

/** The soft open-files limit assumed where `/proc/self/limits` cannot be read (not Linux). */
const FALLBACK_OPEN_FILES = 1024;
/** The default never exceeds this, however high the limit: each connection costs memory too. */
const MAX_DEFAULT = 65_536;
/** Descriptors always left for everything but connections, however low the limit. */
const MIN_RESERVED = 64;

/**
 * The soft limit on open files (RLIMIT_NOFILE) of this process, from `limitsText` (the text of
 * `/proc/self/limits`, read when not given); undefined when it cannot be read or is unlimited.
 * Node raises its soft limit to the hard one at start-up, so this is the limit in force.
 */
export function softOpenFilesLimit(limitsText?: string): number | undefined {
  let text = limitsText;
  if (text === undefined) {
    try {
      text = readFileSync('/proc/self/limits', 'utf8');
    } catch {
      return undefined;
    }
  }
  const soft = /^Max open files\s+(\d+)\s/m.exec(text)?.[1];
  return soft === undefined ? undefined : Number(soft);
}

/**
 * The default connection cap of both servers (REST and TCP): 90% of the soft open-files limit
 * and at least 64 below it (the rest left to the state files, the logger, ZooKeeper, the
 * metrics listener and the accept of the connection that makes room), at least 16, at most
 * 65,536; 90% of 1024 when the limit cannot be read or is unlimited. Without a cap a flood of
 * connections ends in EMFILE, which also fails the state-file writes.
 *
 * @example
 * defaultMaxConnections(); // 921 under `ulimit -n 1024`
 */
export function defaultMaxConnections(limitsText?: string): number {
  const soft = softOpenFilesLimit(limitsText) ?? FALLBACK_OPEN_FILES;
  return Math.max(16, Math.min(MAX_DEFAULT, Math.floor(soft * 0.9), soft - MIN_RESERVED));
}
