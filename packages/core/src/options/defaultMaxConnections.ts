import { readFileSync } from 'node:fs';

/** This process's soft RLIMIT_NOFILE from `/proc/self/limits`; undefined when unknown or unlimited. */
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
 * The servers' default connection cap: 90% of the soft open-files limit and 64 below it (left to
 * state files, logs, coordinators), 16 to 65,536; 90% of 1024 when unknown. Without a cap a
 * flood of connections ends in EMFILE, which also fails the state-file writes.
 *
 * @example
 * defaultMaxConnections(); // 921 under `ulimit -n 1024`
 */
export function defaultMaxConnections(limitsText?: string): number {
  const soft = softOpenFilesLimit(limitsText) ?? 1024;
  return Math.max(16, Math.min(65_536, Math.floor(soft * 0.9), soft - 64));
}
