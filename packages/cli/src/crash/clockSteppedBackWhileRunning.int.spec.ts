import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNoRepeatedIds } from '../testing/expectNoRepeatedIds.js';
import { connectLoad } from '../testing/connectLoad.js';
import { FakeWallClock, findLibfaketime } from '../testing/FakeWallClock.js';
import { spawnVesta, type VestaProcess } from '../testing/spawnVesta.js';
import { startIdLoad, type IdLoad } from '../testing/startIdLoad.js';

const library = findLibfaketime();

/** Answers (ids or errors) to requests sent at or after `since`. */
function answeredSince(load: IdLoad, since: number): { ids: number; errors: number } {
  let ids = 0;
  let errors = 0;
  // Both lists are in the order answers arrived: only their tails can hold such answers.
  for (let i = load.batches.length - 1; i >= 0; i--) {
    const batch = load.batches[i];
    if (batch === undefined || batch.receivedAt < since) break;
    if (batch.sentAt >= since) ids += batch.ids.length;
  }
  for (let i = load.failures.length - 1; i >= 0; i--) {
    const failure = load.failures[i];
    if (failure === undefined || failure.receivedAt < since) break;
    if (failure.sentAt >= since) errors++;
  }
  return { ids, errors };
}

describe.each(['rest', 'server'] as const)(
  'vesta %s with the wall clock stepped back while it runs',
  (command) => {
    const backwards = command === 'rest' ? '503 CLOCK_MOVED_BACKWARDS' : 'CLOCK_MOVED_BACKWARDS';

    // One server (and its clock) per type for the three steps: each test steps the clock back
    // from the real time and ends with it put forward again and 1,000 ids issued after that, as
    // a server of its own would start; a process start costs more CPU than a test's load.
    describe.each(['max-peak', 'min-granularity'] as const)('%s', (type) => {
      let clock: FakeWallClock;
      let stateDir: string;
      let server: VestaProcess;
      beforeAll(async () => {
        if (library === undefined) {
          throw new Error('libfaketime is missing: run scripts/ensure-faketime.sh');
        }
        clock = await FakeWallClock.create(library);
        stateDir = await mkdtemp(join(tmpdir(), 'vesta-clock-running-'));
        server = spawnVesta(
          command,
          [
            ...['--port', '0', '--machine-id', '1006', '--state-dir', stateDir, '--type', type],
            // A restart after the clock is put right waits at most this for the mark.
            ...['--mark-window-ms', '500'],
          ],
          clock.spawnOptions,
        );
        await server.listening;
      });
      afterAll(async () => {
        await server?.stop('SIGKILL');
        await clock?.remove();
        if (stateDir !== undefined) await rm(stateDir, { recursive: true, force: true });
      });

      // 2 s is beyond the 1 s tolerance only until the clock is within 1 s of the last unit
      // used: the server answers CLOCK_MOVED_BACKWARDS for at most a second, then issues from
      // that unit on (milliseconds: its sequence used up, it waits for the next unit), without
      // the clock being put forward.
      it.each([
        { stepS: 2, mustRefuse: false },
        { stepS: 30, mustRefuse: true },
        { stepS: 3600, mustRefuse: true },
      ])(
        'answers only ids or CLOCK_MOVED_BACKWARDS when stepped $stepS s back, resumes when the clock is put forward, and never repeats an id',
        async ({ stepS, mustRefuse }) => {
          const connection = await connectLoad(command, await server.listening);
          const load = startIdLoad({ clients: 2, issue: connection.issue });
          try {
            await load.until('1000 ids received', () => load.received() >= 1000);

            await clock.set(-stepS);
            const steppedAt = performance.now();
            await load.until(
              mustRefuse ? `${backwards} after the step` : '1000 ids after the step',
              () => {
                const since = answeredSince(load, steppedAt);
                return mustRefuse ? since.errors > 0 : since.ids >= 1000;
              },
            );
            if (mustRefuse) {
              // Every request the server handled while the clock was behind was refused.
              const issuedWhileBehind = load.batches.filter(
                (batch) => batch.sentAt >= steppedAt && batch.receivedAt < performance.now(),
              );
              expect(issuedWhileBehind).toEqual([]);
            }

            await clock.set(0);
            const forwardAt = performance.now();
            await load.until(
              '1000 ids after the clock was put forward',
              () => answeredSince(load, forwardAt).ids >= 1000,
            );
          } finally {
            await load.stop();
            await connection.close();
            // The next test of this server starts from the real time, whatever this one did.
            await clock.set(0);
          }

          expect([...load.errors.keys()].filter((code) => code !== backwards)).toEqual([]);
          if (mustRefuse) expect(load.errors.get(backwards)).toBeGreaterThan(0);
          expectNoRepeatedIds(load.batches);
        },
        90_000,
      );
    });
  },
);
