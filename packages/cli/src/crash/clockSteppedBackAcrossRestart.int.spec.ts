import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNoRepeatedIds } from '../testing/expectNoRepeatedIds.js';
import { FakeWallClock, findLibfaketime } from '../testing/FakeWallClock.js';
import { connectLoad } from '../testing/connectLoad.js';
import { spawnVesta, type VestaProcess } from '../testing/spawnVesta.js';
import { startIdLoad, type IssuedBatch } from '../testing/startIdLoad.js';

const IDS_PER_RUN = 2000;
/** How far ahead the servers write their mark: what a restart after SIGKILL waits at most. */
const MARK_WINDOW_MS = 500;
/**
 * The servers wait up to 10 s (maxStartupWaitMs) for the clock to pass their mark: 2 s behind
 * (plus at most the MARK_WINDOW_MS the mark runs ahead after a SIGKILL) is waited out, 30 s is
 * refused. In this order: a 2 s case needs the mark of a server that just ran on the real time
 * (the first run, or the start a refusal ended with).
 */
const CASES = [
  { stepS: 2, stop: 'SIGKILL', outcome: 'starts (waiting for the clock to pass its mark)' },
  { stepS: 30, stop: 'SIGKILL', outcome: 'refuses to start' },
  { stepS: 3600, stop: 'SIGKILL', outcome: 'refuses to start' },
  { stepS: 2, stop: 'SIGTERM', outcome: 'starts (waiting for the clock to pass its mark)' },
  { stepS: 30, stop: 'SIGTERM', outcome: 'refuses to start' },
  { stepS: 3600, stop: 'SIGTERM', outcome: 'refuses to start' },
] as const;

const library = findLibfaketime();

/** A server that issued ids, to be stopped by the next test. */
interface IssuingServer {
  readonly server: VestaProcess;
  readonly batches: readonly IssuedBatch[];
}

/** Issues ids from a server of `command` on `port` until IDS_PER_RUN arrived. */
async function issueSome(command: 'rest' | 'server', port: number): Promise<IssuedBatch[]> {
  const connection = await connectLoad(command, port);
  const load = startIdLoad({ clients: 2, issue: connection.issue });
  try {
    await load.until(`${IDS_PER_RUN} ids received`, () => load.received() >= IDS_PER_RUN);
  } finally {
    await load.stop();
    await connection.close();
  }
  expect([...load.errors]).toEqual([]);
  return [...load.batches];
}

describe.each(['rest', 'server'] as const)(
  'vesta %s restarted on its state dir with the wall clock stepped back',
  (command) => {
    // One state dir and clock for the six cases in turn: each test stops the server the test
    // before left issuing on the state dir (the first test starts one), as a first run of its
    // own would have, so that a server start is not paid twice (a start costs more CPU than the
    // rest of a test).
    describe('in turn on one state dir', () => {
      let clock: FakeWallClock;
      let stateDir: string;
      const running = new Set<VestaProcess>();
      let issuing: IssuingServer | undefined;
      const flags = (): string[] => [
        ...['--port', '0', '--machine-id', '1007', '--state-dir', stateDir],
        ...['--mark-window-ms', String(MARK_WINDOW_MS)],
      ];
      const start = (): VestaProcess => {
        const server = spawnVesta(command, flags(), clock.spawnOptions);
        running.add(server);
        return server;
      };
      beforeAll(async () => {
        if (library === undefined) {
          throw new Error('libfaketime is missing: run scripts/ensure-faketime.sh');
        }
        clock = await FakeWallClock.create(library);
        stateDir = await mkdtemp(join(tmpdir(), 'vesta-clock-restart-'));
      });
      afterAll(async () => {
        await Promise.all([...running].map((server) => server.stop('SIGKILL')));
        await clock?.remove();
        if (stateDir !== undefined) await rm(stateDir, { recursive: true, force: true });
      });

      it.each(CASES)(
        '$outcome when stopped by $stop and restarted $stepS s behind, and never repeats an id',
        async ({ stepS, stop, outcome }) => {
          let handedOver = false;
          try {
            await clock.set(0);
            let first = issuing;
            issuing = undefined;
            if (first === undefined) {
              const server = start();
              first = { server, batches: await issueSome(command, await server.listening) };
            }
            const batches = [...first.batches];
            const firstExit = await first.server.stop(stop);
            expect(firstExit).toEqual(
              stop === 'SIGTERM' ? { code: 0, signal: null } : { code: null, signal: 'SIGKILL' },
            );

            await clock.set(-stepS);
            const second = start();
            let last: IssuingServer;
            if (outcome === 'refuses to start') {
              const refusal = await Promise.race([
                second.exited,
                second.listening.then((port) => ({ listeningOn: port })),
              ]);
              expect(refusal).toMatchObject({ code: expect.any(Number), signal: null });
              expect(refusal).not.toMatchObject({ code: 0 });
              // The operator is told why, by its stable code (not only a message).
              expect(second.stderr()).toMatch(/CLOCK_BEHIND_HIGH_WATER_MARK/);
              // Once the clock is right again, the server starts and continues above the mark.
              await clock.set(0);
              const third = start();
              last = { server: third, batches: await issueSome(command, await third.listening) };
            } else {
              last = { server: second, batches: await issueSome(command, await second.listening) };
            }
            batches.push(...last.batches);

            const audit = expectNoRepeatedIds(batches);
            expect(audit.total).toBeGreaterThanOrEqual(2 * IDS_PER_RUN);
            issuing = last;
            handedOver = true;
          } finally {
            // A failed test leaves nothing running: the next one starts from a first run.
            if (!handedOver) {
              await Promise.all([...running].map((server) => server.stop('SIGKILL')));
            }
          }
        },
        90_000,
      );
    });
  },
);
