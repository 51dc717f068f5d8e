import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectNoRepeatedIds } from '../testing/expectNoRepeatedIds.js';
import { connectLoad } from '../testing/connectLoad.js';
import { FakeWallClock, findLibfaketime } from '../testing/FakeWallClock.js';
import { spawnVesta } from '../testing/spawnVesta.js';
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

    // 2 s is beyond the 1 s tolerance only until the clock is within 1 s of the last unit used:
    // the server answers CLOCK_MOVED_BACKWARDS for at most a second, then issues from that unit
    // on (milliseconds: its sequence used up, it waits for the next unit), without the clock
    // being put forward.
    it.each([
      { type: 'max-peak', stepS: 2, mustRefuse: false },
      { type: 'max-peak', stepS: 30, mustRefuse: true },
      { type: 'max-peak', stepS: 3600, mustRefuse: true },
      { type: 'min-granularity', stepS: 2, mustRefuse: false },
      { type: 'min-granularity', stepS: 30, mustRefuse: true },
      { type: 'min-granularity', stepS: 3600, mustRefuse: true },
    ])(
      '$type: answers only ids or CLOCK_MOVED_BACKWARDS when stepped $stepS s back, resumes when the clock is put forward, and never repeats an id',
      async ({ type, stepS, mustRefuse }) => {
        if (library === undefined) {
          throw new Error('libfaketime is missing: run scripts/ensure-faketime.sh');
        }
        const clock = await FakeWallClock.create(library);
        const stateDir = await mkdtemp(join(tmpdir(), 'vesta-clock-running-'));
        const server = spawnVesta(
          command,
          [
            ...['--port', '0', '--machine-id', '1006', '--state-dir', stateDir, '--type', type],
            // A restart after the clock is put right waits at most this for the mark.
            ...['--mark-window-ms', '500'],
          ],
          clock.spawnOptions,
        );
        try {
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
          }

          expect([...load.errors.keys()].filter((code) => code !== backwards)).toEqual([]);
          if (mustRefuse) expect(load.errors.get(backwards)).toBeGreaterThan(0);
          expectNoRepeatedIds(load.batches);
        } finally {
          await server.stop('SIGKILL');
          await clock.remove();
          await rm(stateDir, { recursive: true, force: true });
        }
      },
      90_000,
    );
  },
);
