/**
 * One instance for the crash test (ZooKeeperCrash.int.spec.ts), run in its own process with
 * plain `node` (compiled by testkit's compiledFixture) so that a SIGKILL kills the process that
 * holds the ZooKeeper session.
 *
 * Protocol, one line each on stdout:
 * - `ready` once loaded; it then waits for `go [clockOffsetMs]` on stdin (the test times start-ups
 *   to the millisecond without paying the ~1 s module load at that moment, and may set this
 *   instance's clock behind or ahead of the host's);
 * - `lease <id> <how>` once the id is leased (how: fresh, reused, reclaimed or fromCache), then
 *   `machine <id>` once the service is up (past the id's carried-over time mark), or
 *   `refused <code>` (exit code 3) when no id was leased;
 * - then batches of issued ids, one decimal id a line, each written synchronously before the
 *   next batch is issued, until the process is killed;
 * - `lost` (exit code 4) when the id turned out to belong to someone else.
 *
 * Options (argv): --connect, --root, --key (a new one per start: a container with a new address),
 * --ids (the range is 0 .. ids - 1), --session-ms, --refresh-ms, --fence-ms, --reclaim-ms,
 * --max-skew-ms, --era-wait-ms, --mark-window-ms, --batch, --pace-ms.
 */
import { writeSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { VestaError, type Logger } from '@vesta/core';
import { sleep } from '@vesta/core/kit';
import { createEmbeddedIdService } from '@vesta/embedded';
import { ZooKeeperMachineIdProvider } from '../ZooKeeperMachineIdProvider.js';
import type { ZooKeeperMachineIdLease } from '../index.js';

const { values } = parseArgs({
  options: {
    connect: { type: 'string' },
    root: { type: 'string' },
    key: { type: 'string' },
    ids: { type: 'string', default: '3' },
    'session-ms': { type: 'string', default: '1200' },
    'refresh-ms': { type: 'string', default: '150' },
    'fence-ms': { type: 'string', default: '600' },
    'reclaim-ms': { type: 'string', default: '2400' },
    'max-skew-ms': { type: 'string', default: '1000' },
    'era-wait-ms': { type: 'string', default: '600' },
    'mark-window-ms': { type: 'string', default: '250' },
    batch: { type: 'string', default: '10' },
    'pace-ms': { type: 'string', default: '5' },
  },
  strict: true,
});

function whole(name: keyof typeof values): number {
  const n = Number(values[name]);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} must be a whole number`);
  return n;
}

function say(line: string): void {
  writeSync(1, `${line}\n`);
}

const stderrLogger: Logger = {
  info() {},
  warn: (fields, message) => void writeSync(2, `warn ${message} ${JSON.stringify(fields)}\n`),
  error: (fields, message) => void writeSync(2, `error ${message} ${JSON.stringify(fields)}\n`),
};

const connect = values.connect;
const root = values.root;
const key = values.key;
if (connect === undefined || root === undefined || key === undefined) {
  throw new Error('--connect, --root and --key are required');
}
const batch = whole('batch');
const paceMs = whole('pace-ms');

say('ready');
const offsetMs = await new Promise<number>((resolve) => {
  const lines = createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    const [word, offset = '0'] = line.trim().split(/\s+/);
    if (word === 'go' && Number.isInteger(Number(offset))) {
      lines.close();
      resolve(Number(offset));
    }
  });
});
const clock = (): number => Date.now() + offsetMs;

const provider = new ZooKeeperMachineIdProvider({
  connect,
  root,
  key,
  sessionTimeoutMs: whole('session-ms'),
  refreshIntervalMs: whole('refresh-ms'),
  fenceAfterMs: whole('fence-ms'),
  reclaimAfterMs: whole('reclaim-ms'),
  maxClockSkewMs: whole('max-skew-ms'),
  eraWaitMs: whole('era-wait-ms'),
  clock,
  logger: stderrLogger,
});
let lease: ZooKeeperMachineIdLease | undefined;
let service: Awaited<ReturnType<typeof createEmbeddedIdService>>;
try {
  service = await createEmbeddedIdService({
    machineIdProvider: {
      acquire: async (request) => {
        lease = await provider.acquire(request);
        const how = Object.entries(provider.stats).find(([, count]) => count > 0)?.[0];
        say(`lease ${lease.machineId} ${how ?? 'unknown'}`);
        return lease;
      },
    },
    serverMachineIdStart: whole('ids'),
    type: 'min-granularity',
    markWindowMs: whole('mark-window-ms'),
    clock,
    logger: stderrLogger,
  });
} catch (error) {
  say(`refused ${VestaError.is(error) ? error.code : 'UNKNOWN'}`);
  writeSync(2, `${String(error)}\n`);
  process.exit(3);
}
say(`machine ${service.info().machine}`);

for (;;) {
  try {
    const ids = await service.genIds(batch);
    say(ids.join('\n'));
  } catch (error) {
    if (!VestaError.is(error, 'MACHINE_ID_LEASE_LOST')) throw error;
    if (lease?.lost === true) {
      say('lost');
      process.exit(4);
    }
    // Fenced (lease not confirmed in time, e.g. a stalled event loop): resumes on its own.
  }
  await sleep(paceMs);
}
