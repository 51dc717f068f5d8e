import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from './freePort.js';
import { askTcp } from './process/askTcp.js';
import { startServerProcess } from './process/startServerProcess.js';
import type { TestServer } from './process/TestServer.js';
import { tempDir } from './process/tempDir.js';
import { command } from './startRedisServer.js';

/** A throwaway Redis Sentinel watching one primary: `url(name)` is its `redis+sentinel://` URL. */
export interface RedisSentinel extends TestServer {
  /** `redis+sentinel://127.0.0.1:<port>/<master name>`. */
  readonly url: string;
  /** The address Sentinel gives for the master now (`127.0.0.1:<port>`), as SENTINEL asks it. */
  masterAddress(): Promise<string>;
}

/**
 * Starts Debian's `redis-sentinel` on 127.0.0.1 and a free port, alone in its quorum (1),
 * monitoring the primary on 127.0.0.1:`masterPort` as `name`: it fails over once the primary has
 * not answered for `downAfterMs`. scripts/ensure-redis.sh installs it.
 */
export async function startRedisSentinel(options: {
  masterPort: number;
  name?: string;
  /** @default 500 */
  downAfterMs?: number;
}): Promise<RedisSentinel> {
  const name = options.name ?? 'ids';
  const dir = tempDir('vesta-sentinel-');
  const port = await freePort();
  const config = join(dir, 'sentinel.conf');
  // Sentinel rewrites its configuration as it learns the replicas and the failovers.
  writeFileSync(
    config,
    [
      `port ${port}`,
      'bind 127.0.0.1',
      'daemonize no',
      'logfile ""',
      `dir ${dir}`,
      `sentinel monitor ${name} 127.0.0.1 ${options.masterPort} 1`,
      `sentinel down-after-milliseconds ${name} ${options.downAfterMs ?? 500}`,
      `sentinel failover-timeout ${name} 2000`,
      `sentinel parallel-syncs ${name} 1`,
      '',
    ].join('\n'),
  );
  const server = await startServerProcess({
    name: 'redis-sentinel',
    port,
    command: 'redis-sentinel',
    args: [config],
    ready: async () => (await command(port, 'PING')) === '+PONG',
    readyTimeoutMs: 30_000,
    probeIntervalMs: 50,
    exitHint: '; is it installed? sh scripts/ensure-redis.sh',
    wipe: () => Promise.reject(new Error('a Sentinel keeps no data to wipe')),
    dir,
  });
  return Object.assign(server, {
    url: `redis+sentinel://127.0.0.1:${port}/${name}`,
    masterAddress: async () => {
      // RESP: *2 $9 127.0.0.1 $5 6379: the 2nd and 4th lines after the array header.
      const answer = await askTcp(
        port,
        `SENTINEL get-master-addr-by-name ${name}\r\n`,
        (a) => a.split('\r\n').length >= 6,
      );
      const lines = answer.split('\r\n');
      return `${lines[2]}:${lines[4]}`;
    },
  });
}
