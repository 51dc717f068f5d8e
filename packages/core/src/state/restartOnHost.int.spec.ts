import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compiledFixture, FIXTURE_EXEC_ARGV } from '@vesta/testkit';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';

const FIXTURE = new URL('../__fixtures__/issueThenStop.ts', import.meta.url);
/** The fixture, compiled for plain Node. */
let fixture: string;
beforeAll(async () => {
  fixture = await compiledFixture(FIXTURE);
});
const dirs: string[] = [];
const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function stateDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'vesta-restart-host-'));
  dirs.push(dir);
  return dir;
}

/** A booted process that starts its service when told to; resolves its ids (or its exit). */
function boot(machineId: number, dir: string | undefined, ending: 'close' | 'crash') {
  const child = spawn(
    process.execPath,
    [...FIXTURE_EXEC_ARGV, fixture, String(machineId), dir ?? '-', ending],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  children.push(child);
  let out = '';
  child.stdout?.setEncoding('utf8');
  child.stdout?.on('data', (chunk: string) => (out += chunk));
  const exited = once(child, 'exit');
  return {
    go: (): void => void child.stdin?.write('go\n'),
    ids: async (): Promise<string[]> => {
      await exited;
      return JSON.parse(out.trim() || '[]') as string[];
    },
  };
}

describe('a process restarted on one machine id right after the last one stopped', () => {
  it.each([
    ['without a state dir, after a clean close', false, 'close'],
    ['without a state dir, after SIGKILL', false, 'crash'],
    ['on another state dir, after SIGKILL', true, 'crash'],
  ] as const)(
    'repeats none of its ids %s (the host keeps the mark of the system clock)',
    async (_name, ownDirs, ending) => {
      // The successor is booted before the first one runs, so that it starts within the same
      // second (a crash loop, a rolling deploy), where ids would repeat without a mark.
      const first = boot(81, ownDirs ? stateDir() : undefined, ending);
      const second = boot(81, ownDirs ? stateDir() : undefined, 'close');
      first.go();
      const before = await first.ids();
      second.go();
      const after = await second.ids();
      expect(before).toHaveLength(1000);
      expect(after).toHaveLength(1000);
      expect(new Set([...before, ...after]).size).toBe(2000);
      // Above, not merely apart: without the host mark a start in the same second begins its
      // sequence again, at or below the last id.
      const last = before.map(BigInt).reduce((a, b) => (a > b ? a : b));
      expect(after.map(BigInt).every((id) => id > last)).toBe(true);
    },
  );
});
