import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compiledFixture, FIXTURE_EXEC_ARGV } from '@vesta/testkit';
import { describe, expect, it } from 'vitest';
import { FakeWallClock, findLibfaketime } from '../testing/FakeWallClock.js';

const FIXTURE = join(import.meta.dirname, '../__fixtures__/issueUuidsThenStop.ts');
const COUNT = 2000;
const library = findLibfaketime();

/** One run of the fixture on `clock`: its UUIDs, and how it ended. */
async function issue(
  clock: FakeWallClock,
  stateDir: string,
  ending: 'crash' | 'close',
): Promise<{ uuids: string[]; code: number | null; signal: string | null; stderr: string }> {
  const fixture = await compiledFixture(FIXTURE);
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      [...FIXTURE_EXEC_ARGV, fixture, stateDir, ending, String(COUNT)],
      { env: { ...process.env, ...clock.spawnOptions.env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const pid = child.pid ?? 0;
        void clock.spawnOptions.onExit?.(pid);
        const line = stdout.split('\n')[0] ?? '';
        if (line === '') {
          reject(new Error(`no UUIDs (${String(error)}): ${stderr}`));
          return;
        }
        resolve({
          uuids: JSON.parse(line) as string[],
          code: child.exitCode,
          signal: child.signalCode,
          stderr,
        });
      },
    );
  });
}

describe('UUIDv7 of an embedded service restarted on its state dir with the wall clock stepped back', () => {
  it('repeats no UUID after a SIGKILL and a restart 2 s behind: it waits for its mark and continues above', async () => {
    if (library === undefined)
      throw new Error('libfaketime is missing: run scripts/ensure-faketime.sh');
    const clock = await FakeWallClock.create(library);
    const stateDir = await mkdtemp(join(tmpdir(), 'vesta-uuid-restart-'));
    try {
      const first = await issue(clock, stateDir, 'crash');
      expect(first.signal).toBe('SIGKILL');
      await clock.set(-2);
      const second = await issue(clock, stateDir, 'close');
      expect(second.code).toBe(0);
      const all = [...first.uuids, ...second.uuids];
      expect(all).toHaveLength(2 * COUNT);
      // Strictly increasing across the two runs: the second continues above the first.
      all.forEach((uuid, i) => {
        if (i > 0) expect(uuid > (all[i - 1] ?? ''), `${all[i - 1]} then ${uuid}`).toBe(true);
      });
    } finally {
      await clock.remove();
      await rm(stateDir, { recursive: true, force: true });
    }
  }, 90_000);
});
