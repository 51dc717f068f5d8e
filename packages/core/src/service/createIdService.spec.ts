import 'reflect-metadata';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PopulatorKind } from '../populator/IdPopulator.js';
import { DEFAULT_EPOCH_MS } from '../time/parseEpoch.js';
import { createIdService } from './createIdService.js';
import type { DefaultIdService } from './DefaultIdService.js';
import type { IdServiceOptions } from './IdServiceOptions.js';
import { idAt } from '../testing/idAt.js';
import { simulateCrash } from '../testing/simulateCrash.js';
import { capturingLogger, caughtAsync } from '@vesta/testkit';

const EPOCH = DEFAULT_EPOCH_MS;
/** Some time well after the epoch, half-way through a second. */
const T = EPOCH + 1_000_000_500;

/** A clock that starts at `startMs` and moves `stepMs` forward on every read. */
function steppingClock(startMs: number, stepMs: number): () => number {
  let now = startMs - stepMs;
  return () => (now += stepMs);
}

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'vesta-state-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** The mark file of a machine id and type (one per identity; the tests vary nothing else). */
function markFile(machineId = 7, type = 0): string {
  const prefix = `time-mark-g0-t${type}-m${machineId}-`;
  const name = readdirSync(dir).find((file) => file.startsWith(prefix));
  return join(dir, name ?? `${prefix}none.json`);
}

function readMark(machineId = 7): number {
  return (JSON.parse(readFileSync(markFile(machineId), 'utf8')) as { markMs: number }).markMs;
}

function build(options: Partial<IdServiceOptions>): Promise<DefaultIdService> {
  return createIdService<DefaultIdService>({
    machineId: 7,
    stateDir: dir,
    logger: capturingLogger(),
    ...options,
  });
}

/** The Unix ms at which the unit after an id's unit starts: the mark must be at or past it. */
function unitEndMs(service: DefaultIdService, id: bigint): number {
  return service.transTime(service.expId(id).time + 1).getTime();
}

describe('createIdService with a state directory', () => {
  it.each<PopulatorKind>(['sync', 'lock', 'atomic'])(
    'writes the time mark past every id before returning it (%s)',
    async (populator) => {
      let now = T;
      const service = await build({ populator, clock: () => now });
      const marks = new Set<number>();
      for (let step = 0; step < 20; step++) {
        now += 700;
        const ids =
          populator === 'lock'
            ? await service.genIds(50)
            : [service.genIdSync(), await service.genId()];
        const markMs = readMark();
        marks.add(markMs);
        for (const id of ids) expect(unitEndMs(service, id)).toBeLessThanOrEqual(markMs);
      }
      // Written once a window (3 s) ahead of use, not once an id.
      expect(marks.size).toBeGreaterThan(2);
      expect(marks.size).toBeLessThan(10);
      await service.close();
    },
  );

  it('keeps the mark file to one identity: machine id, type and genMethod', async () => {
    const a = await build({ clock: () => T });
    const b = await build({ clock: () => T, machineId: 8, type: 'min-granularity' });
    a.genIdSync();
    b.genIdSync();
    expect(readMark(7)).toBeGreaterThan(T);
    expect(JSON.parse(readFileSync(markFile(8, 1), 'utf8'))).toMatchObject({
      identity: { genMethod: 0, type: 1, machine: 8, unitMs: 1 },
    });
    await a.close();
    await b.close();
  });

  it('waits at restart for a clock that is behind the mark by less than maxStartupWaitMs', async () => {
    const first = await build({ clock: () => T });
    const before = [first.genIdSync(), first.genIdSync()];
    const markMs = readMark();
    // A crash: no close, so the mark stays a window ahead. The clock is stepped back while down.
    await simulateCrash(first);
    const logger = capturingLogger();
    const second = await build({
      clock: steppingClock(T - 2000, 1000),
      logger,
      maxStartupWaitMs: 10_000,
    });
    expect(logger.warnings.find((w) => w.message.includes('behind'))?.fields).toMatchObject({
      gapMs: markMs - (T - 2000),
    });
    const after = second.genIdSync();
    expect(after).toBeGreaterThan(idAt(before, 1));
    expect(second.transTime(second.expId(after).time).getTime()).toBeGreaterThanOrEqual(markMs);
    await second.close();
  });

  it('refuses to start with CLOCK_BEHIND_HIGH_WATER_MARK when the clock is further behind than maxStartupWaitMs', async () => {
    const first = await build({ clock: () => T });
    first.genIdSync();
    const markMs = readMark();
    await simulateCrash(first);
    const error = await caughtAsync(() =>
      build({ clock: () => T - 20_000, maxStartupWaitMs: 10_000 }),
    );
    expect(error.code).toBe('CLOCK_BEHIND_HIGH_WATER_MARK');
    expect(error.details).toMatchObject({ gapMs: markMs - (T - 20_000), markMs });
    expect((await caughtAsync(() => build({ clock: () => T, maxStartupWaitMs: 0 }))).code).toBe(
      'CLOCK_BEHIND_HIGH_WATER_MARK',
    );
  });

  it('lowers the mark to just past the last unit used at a clean close', async () => {
    const first = await build({ clock: () => T });
    const last = first.genIdSync();
    const raised = readMark();
    expect(raised).toBeGreaterThanOrEqual(T + 3000);
    await first.close();
    const lowered = readMark();
    expect(lowered).toBe(unitEndMs(first, last));
    expect(lowered).toBeLessThan(raised);

    // A prompt restart in the next unit needs no wait and issues above the last id.
    const logger = capturingLogger();
    const second = await build({ clock: () => lowered, logger, maxStartupWaitMs: 0 });
    expect(logger.warnings).toEqual([]);
    expect(second.genIdSync()).toBeGreaterThan(last);
    await second.close();
  });

  it('does not reuse the unit of the last id after a clean close, even within the same second', async () => {
    const first = await build({ clock: () => T });
    const last = first.genIdSync();
    await first.close();
    const error = await caughtAsync(() => build({ clock: () => T, maxStartupWaitMs: 0 }));
    expect(error.code).toBe('CLOCK_BEHIND_HIGH_WATER_MARK');
    const second = await build({ clock: steppingClock(T, 300) });
    expect(second.genIdSync()).toBeGreaterThan(last);
    await second.close();
  });

  it.each<PopulatorKind>(['sync', 'lock', 'atomic'])(
    'stays above the units used before a restart when the clock then steps back within the tolerance (%s)',
    async (populator) => {
      const first = await build({ populator, clock: () => T });
      const last = await first.genId();
      await first.close();
      const markMs = readMark();
      let now = markMs;
      let waited = 0;
      const second = await build({
        populator,
        clock: () => now,
        observer: {
          onSequenceExhausted: () => {
            waited++;
            now = markMs;
          },
        },
      });
      now = markMs - 500; // NTP steps the clock back 500 ms, within the tolerance, right after the restart.
      const next = await second.genId();
      expect(next).toBeGreaterThan(last);
      expect(second.transTime(second.expId(next).time).getTime()).toBeGreaterThanOrEqual(markMs);
      expect(waited).toBe(1);
      now = markMs - 1500;
      expect((await caughtAsync(() => second.genId())).code).toBe('CLOCK_MOVED_BACKWARDS');
      await second.close();
    },
  );

  it('refuses a mark file it cannot read with STATE_DIR_UNAVAILABLE, never guessing', async () => {
    writeFileSync(markFile(), '{"markMs": "soon"}\n');
    expect((await caughtAsync(() => build({ clock: () => T }))).code).toBe('STATE_DIR_UNAVAILABLE');
    writeFileSync(markFile(), 'not json');
    expect((await caughtAsync(() => build({ clock: () => T }))).code).toBe('STATE_DIR_UNAVAILABLE');
  });

  it('refuses a state directory that is a file with STATE_DIR_UNAVAILABLE', async () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, '');
    expect((await caughtAsync(() => build({ clock: () => T, stateDir: file }))).code).toBe(
      'STATE_DIR_UNAVAILABLE',
    );
  });
});
