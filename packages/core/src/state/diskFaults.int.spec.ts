import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readdirSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { IdIdentity } from '../identity/IdIdentity.js';
import { MAX_PEAK_LAYOUT } from '../layout/layoutPresets.js';
import { FileTimeMarkStore } from './FileTimeMarkStore.js';
import { caught } from '@vesta/testkit';

/** A real small tmpfs, filled up or remounted read-only: mounting needs root, as in CI. */
const asRoot = process.getuid?.() === 0;
const FAILED_WRITES = 3000;

const IDENTITY: IdIdentity = {
  layout: MAX_PEAK_LAYOUT.widths,
  epochMs: Date.UTC(2025, 0, 1),
  unitMs: 1000,
  machine: 12,
  genMethod: 0,
  type: 0,
  version: 0,
};

let mountPoint: string;

function run(command: string, ...args: string[]): void {
  const result = spawnSync(command, args, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')}: ${result.stderr}`);
}

beforeEach(() => {
  mountPoint = mkdtempSync(join(tmpdir(), 'vesta-disk-'));
  run('mount', '-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', mountPoint);
});

afterEach(() => {
  spawnSync('umount', [mountPoint]);
  rmSync(mountPoint, { recursive: true, force: true });
});

/** Writes into `path` until the file system is full. */
function fill(path: string): void {
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(4096, 1);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    closeSync(fd);
  }
}

describe.runIf(asRoot)('a state dir whose disk fails', () => {
  it(`leaves no stray file after ${FAILED_WRITES} mark writes that fail on a full disk (ENOSPC)`, () => {
    const store = new FileTimeMarkStore(join(mountPoint, 'state'), IDENTITY);
    store.write(Date.UTC(2026, 0, 1));
    fill(join(mountPoint, 'filler'));
    for (let i = 1; i <= FAILED_WRITES; i++) {
      const error = caught(() => store.write(Date.UTC(2026, 0, 1) + i * 1000));
      expect(error.code).toBe('STATE_DIR_UNAVAILABLE');
    }
    expect(readdirSync(join(mountPoint, 'state'))).toEqual([store.path.split('/').at(-1)]);
    expect(store.read()).toBe(Date.UTC(2026, 0, 1));
    rmSync(join(mountPoint, 'filler'));
    store.write(Date.UTC(2026, 0, 2));
    expect(store.read()).toBe(Date.UTC(2026, 0, 2));
  });

  it(`leaves no stray file after ${FAILED_WRITES} mark writes that fail on a read-only disk (EROFS)`, () => {
    const store = new FileTimeMarkStore(join(mountPoint, 'state'), IDENTITY);
    store.write(Date.UTC(2026, 0, 1));
    run('mount', '-o', 'remount,ro', mountPoint);
    for (let i = 1; i <= FAILED_WRITES; i++) {
      const error = caught(() => store.write(Date.UTC(2026, 0, 1) + i * 1000));
      expect(error.code).toBe('STATE_DIR_UNAVAILABLE');
      if (i === 1) expect(error.message).toContain('EROFS');
    }
    expect(readdirSync(join(mountPoint, 'state'))).toEqual([store.path.split('/').at(-1)]);
    expect(store.read()).toBe(Date.UTC(2026, 0, 1));
    run('mount', '-o', 'remount,rw', mountPoint);
    store.write(Date.UTC(2026, 0, 2));
    expect(store.read()).toBe(Date.UTC(2026, 0, 2));
  });
});
