import { readFileSync } from 'node:fs';

/** File descriptors left for everything but client connections (state files, logs, metrics, ZooKeeper). */
const RESERVED_FDS = 256;
/** The default where the fd limit cannot be read (not Linux). */
const FALLBACK = 1000;

/**
 * The default `maxConnections`: the soft limit on open files (RLIMIT_NOFILE, read from
 * `/proc/self/limits` on Linux) less {@link RESERVED_FDS}, at least 16; {@link FALLBACK} where
 * the limit cannot be read or is unlimited. Without such a cap a flood of connections would
 * end in EMFILE, which also fails the state-file writes and the metrics listener.
 *
 * @param limits the text of `/proc/self/limits`, read when not given.
 */
export function defaultMaxConnections(limits?: string): number {
  let text = limits;
  if (text === undefined) {
    try {
      text = readFileSync('/proc/self/limits', 'utf8');
    } catch {
      return FALLBACK;
    }
  }
  const match = /^Max open files\s+(\d+|unlimited)\s/m.exec(text);
  if (match === null || match[1] === 'unlimited') return FALLBACK;
  return Math.max(16, Number(match[1]) - RESERVED_FDS);
}
