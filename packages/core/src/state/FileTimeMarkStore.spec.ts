import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileTimeMarkStore } from './FileTimeMarkStore.js';

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'vesta-mark-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('FileTimeMarkStore', () => {
  it('reads nothing before the first write, then the last mark written', () => {
    const store = new FileTimeMarkStore(dir, { genMethod: 0, type: 1, machineId: 12 });
    expect(store.read()).toBeUndefined();
    store.write(1_700_000_000_000);
    store.write(1_700_000_003_000);
    expect(store.read()).toBe(1_700_000_003_000);
    expect(new FileTimeMarkStore(dir, { genMethod: 0, type: 1, machineId: 12 }).read()).toBe(
      1_700_000_003_000,
    );
  });

  it('writes a readable JSON file per identity and leaves no temporary file behind', () => {
    const store = new FileTimeMarkStore(join(dir, 'nested', 'state'), {
      genMethod: 2,
      type: 0,
      machineId: 1000,
    });
    store.write(Date.UTC(2030, 0, 1));
    expect(JSON.parse(readFileSync(store.path, 'utf8'))).toEqual({
      markMs: Date.UTC(2030, 0, 1),
      mark: '2030-01-01T00:00:00.000Z',
      genMethod: 2,
      type: 0,
      machineId: 1000,
    });
    expect(readdirSync(join(dir, 'nested', 'state'))).toEqual(['time-mark-g2-t0-m1000.json']);
  });
});
