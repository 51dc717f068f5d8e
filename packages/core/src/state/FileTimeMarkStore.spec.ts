import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { IdIdentity } from '../identity/IdIdentity.js';
import { MAX_PEAK_LAYOUT } from '../layout/layoutPresets.js';
import { FileTimeMarkStore } from './FileTimeMarkStore.js';
import { caught } from '@vesta/testkit';

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'vesta-mark-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const BASE: IdIdentity = {
  layout: MAX_PEAK_LAYOUT.widths,
  epochMs: Date.UTC(2025, 0, 1),
  unitMs: 1000,
  machine: 12,
  genMethod: 0,
  type: 0,
  version: 0,
};

function written(identity: IdIdentity, markMs: number): FileTimeMarkStore {
  const store = new FileTimeMarkStore(dir, identity);
  store.write(markMs);
  return store;
}

describe('FileTimeMarkStore', () => {
  it('reads nothing before the first write, then the last mark written', () => {
    const store = new FileTimeMarkStore(dir, BASE);
    expect(store.read()).toBeUndefined();
    store.write(1_700_000_000_000);
    store.write(1_700_000_003_000);
    expect(store.read()).toBe(1_700_000_003_000);
    expect(new FileTimeMarkStore(dir, BASE).read()).toBe(1_700_000_003_000);
  });

  it('writes a readable JSON file per identity and leaves no temporary file behind', () => {
    const identity = { ...BASE, genMethod: 2, machine: 1000 };
    const store = new FileTimeMarkStore(join(dir, 'nested', 'state'), identity);
    store.write(Date.UTC(2030, 0, 1));
    expect(JSON.parse(readFileSync(store.path, 'utf8'))).toEqual({
      markMs: Date.UTC(2030, 0, 1),
      mark: '2030-01-01T00:00:00.000Z',
      identity: { ...identity, layout: { ...identity.layout } },
    });
    expect(readdirSync(join(dir, 'nested', 'state'))).toEqual([
      expect.stringMatching(/^time-mark-g2-t0-m1000-[0-9a-f]{12}\.json$/),
    ]);
  });

  it.each([
    ['a later epoch', { epochMs: Date.UTC(2026, 0, 1) }, 'epoch'],
    ['another layout', { layout: { ...BASE.layout, seqBits: 19, timeBits: 31 } }, 'layout'],
    ['another time unit', { unitMs: 1 }, 'unitMs'],
  ])('refuses with STATE_MISMATCH a mark written under %s', (_name, change, named) => {
    written(BASE, Date.UTC(2026, 5, 1));
    const error = caught(() => new FileTimeMarkStore(dir, { ...BASE, ...change }).read());
    expect(error.code).toBe('STATE_MISMATCH');
    expect(error.message).toContain(named);
    expect(error.message).toContain('Restart with the previous options or another machine id');
  });

  it('keeps one file per identity, so that services of other versions on one state dir never overwrite each other', () => {
    written(BASE, Date.UTC(2026, 5, 1));
    written({ ...BASE, version: 1 }, Date.UTC(2020, 0, 1));
    expect(readdirSync(dir)).toHaveLength(2);
    expect(new FileTimeMarkStore(dir, BASE).read()).toBe(Date.UTC(2026, 5, 1));
  });

  it('honours a mark written under a later epoch of the same layout: new times lie above it', () => {
    written(BASE, Date.UTC(2026, 5, 1));
    const earlier = new FileTimeMarkStore(dir, { ...BASE, epochMs: Date.UTC(2024, 0, 1) });
    expect(earlier.read()).toBe(Date.UTC(2026, 5, 1));
  });

  it('ignores marks of identities whose ids cannot meet ours (another machine id, genMethod, type)', () => {
    written({ ...BASE, machine: 13, epochMs: Date.UTC(2020, 0, 1) }, Date.UTC(2027, 0, 1));
    written({ ...BASE, genMethod: 1, epochMs: Date.UTC(2020, 0, 1) }, Date.UTC(2027, 0, 1));
    written({ ...BASE, type: 1, unitMs: 1 }, Date.UTC(2027, 0, 1));
    expect(new FileTimeMarkStore(dir, BASE).read()).toBeUndefined();
  });

  it('honours a mark of another file name whose ids could meet ours (a custom layout on the same bits)', () => {
    // Type bit dropped: the file is named t1 but its ids share every fixed bit with ours.
    written(
      { ...BASE, type: 1, layout: { ...BASE.layout, typeBits: 0, versionBits: 2 } },
      Date.UTC(2027, 0, 1),
    );
    expect(new FileTimeMarkStore(dir, BASE).read()).toBe(Date.UTC(2027, 0, 1));
    expect(
      caught(() => new FileTimeMarkStore(dir, { ...BASE, epochMs: Date.UTC(2025, 6, 1) }).read())
        .code,
    ).toBe('STATE_MISMATCH');
  });

  it('treats a mark file of the first release (no identity, epoch unknown) as a possible collision', () => {
    writeFileSync(
      join(dir, 'time-mark-g0-t0-m12.json'),
      JSON.stringify({ markMs: Date.UTC(2026, 0, 1), genMethod: 0, type: 0, machineId: 12 }),
    );
    expect(caught(() => new FileTimeMarkStore(dir, BASE).read()).code).toBe('STATE_MISMATCH');
    expect(new FileTimeMarkStore(dir, { ...BASE, machine: 14 }).read()).toBeUndefined();
  });

  it('names the adoptLegacyMark option when it refuses a mark file of the first release', () => {
    writeFileSync(
      join(dir, 'time-mark-g0-t0-m12.json'),
      JSON.stringify({ markMs: Date.UTC(2026, 0, 1), genMethod: 0, type: 0, machineId: 12 }),
    );
    const error = caught(() => new FileTimeMarkStore(dir, BASE).read());
    expect(error.code).toBe('STATE_MISMATCH');
    expect(error.message).toContain('first release');
    expect(error.message).toContain('adoptLegacyMark');
    expect(error.message).toContain('--adopt-legacy-mark');
  });

  describe('with adoptLegacy (the identity a first-release file was written under)', () => {
    const LEGACY = 'time-mark-g0-t0-m12.json';
    const ADOPT = { epoch: BASE.epochMs, layout: {}, version: 0 };

    function legacyFile(markMs: number, fields: object = {}): void {
      writeFileSync(
        join(dir, LEGACY),
        JSON.stringify({ markMs, genMethod: 0, type: 0, machineId: 12, ...fields }),
      );
    }

    it('reads such a file as written under it and rewrites it in the current format', () => {
      legacyFile(Date.UTC(2026, 0, 1));
      const store = new FileTimeMarkStore(dir, BASE, { adoptLegacy: ADOPT });
      expect(store.read()).toBe(Date.UTC(2026, 0, 1));
      expect(readdirSync(dir)).toEqual([store.path.slice(dir.length + 1)]);
      expect(JSON.parse(readFileSync(store.path, 'utf8'))).toEqual({
        markMs: Date.UTC(2026, 0, 1),
        mark: '2026-01-01T00:00:00.000Z',
        identity: { ...BASE, layout: { ...BASE.layout } },
      });
      // Rewritten: a start without the option now reads it like any other mark.
      expect(new FileTimeMarkStore(dir, BASE).read()).toBe(Date.UTC(2026, 0, 1));
    });

    it('keeps the higher mark when a current file of the same identity exists', () => {
      written(BASE, Date.UTC(2026, 6, 1));
      legacyFile(Date.UTC(2026, 0, 1));
      const store = new FileTimeMarkStore(dir, BASE, { adoptLegacy: ADOPT });
      expect(store.read()).toBe(Date.UTC(2026, 6, 1));
      expect(readdirSync(dir)).toEqual([store.path.slice(dir.length + 1)]);
      expect(new FileTimeMarkStore(dir, BASE).read()).toBe(Date.UTC(2026, 6, 1));
    });

    it("applies the stated field widths over the type's standard layout", () => {
      const custom = { ...BASE, layout: { ...BASE.layout, seqBits: 19, timeBits: 31 } };
      legacyFile(Date.UTC(2026, 0, 1));
      const store = new FileTimeMarkStore(dir, custom, {
        adoptLegacy: { ...ADOPT, layout: { seqBits: 19, timeBits: 31 } },
      });
      expect(store.read()).toBe(Date.UTC(2026, 0, 1));
    });

    it('still refuses, naming the change, a file whose stated identity differs from ours', () => {
      legacyFile(Date.UTC(2026, 0, 1));
      const error = caught(() =>
        new FileTimeMarkStore(dir, BASE, {
          adoptLegacy: { ...ADOPT, epoch: Date.UTC(2024, 0, 1) },
        }).read(),
      );
      expect(error.code).toBe('STATE_MISMATCH');
      expect(error.message).toContain('epoch 2024-01-01T00:00:00.000Z -> 2025-01-01T00:00:00.000Z');
      expect(readdirSync(dir)).toEqual([LEGACY]);
    });

    it('leaves the first-release file of another machine id alone', () => {
      legacyFile(Date.UTC(2026, 0, 1), { machineId: 13 });
      expect(new FileTimeMarkStore(dir, BASE, { adoptLegacy: ADOPT }).read()).toBeUndefined();
      expect(readdirSync(dir)).toEqual([LEGACY]);
    });

    it("refuses stated widths that make no layout of the file's type with INVALID_OPTIONS", () => {
      legacyFile(Date.UTC(2026, 0, 1));
      const error = caught(() =>
        new FileTimeMarkStore(dir, BASE, {
          adoptLegacy: { ...ADOPT, layout: { seqBits: 40 } },
        }).read(),
      );
      expect(error.code).toBe('INVALID_OPTIONS');
      expect(error.message).toContain('adoptLegacyMark.layout');
    });
  });

  it('refuses a corrupt mark file with STATE_DIR_UNAVAILABLE rather than guessing', () => {
    writeFileSync(join(dir, 'time-mark-g0-t0-m12.json'), '{"markMs": "soon"}');
    expect(caught(() => new FileTimeMarkStore(dir, BASE).read()).code).toBe(
      'STATE_DIR_UNAVAILABLE',
    );
  });

  it('quotes nothing of a mark file that is not JSON', () => {
    writeFileSync(join(dir, 'time-mark-g0-t0-m12.json'), 'root:x:0:0:SECRET-LINE');
    const error = caught(() => new FileTimeMarkStore(dir, BASE).read());
    expect(error.code).toBe('STATE_DIR_UNAVAILABLE');
    expect(JSON.stringify({ message: error.message, cause: String(error.cause) })).not.toContain(
      'SECRET',
    );
  });

  it('refuses a mark file that is a symbolic link (STATE_DIR_UNSAFE), never reading its target', () => {
    const target = join(dir, 'target.json');
    writeFileSync(target, JSON.stringify({ markMs: Date.UTC(2026, 0, 1), SECRET: 1 }));
    symlinkSync(target, join(dir, 'time-mark-g0-t0-m12.json'));
    const error = caught(() => new FileTimeMarkStore(dir, BASE).read());
    expect(error.code).toBe('STATE_DIR_UNSAFE');
    expect(error.message).toContain('is a symbolic link');
    expect(error.message).not.toContain('SECRET');
  });

  it('replaces a symbolic link at its own file name instead of writing through it', () => {
    const target = join(dir, 'target');
    writeFileSync(target, 'untouched');
    const store = new FileTimeMarkStore(dir, BASE);
    symlinkSync(target, store.path);
    store.write(Date.UTC(2026, 0, 1));
    expect(readFileSync(target, 'utf8')).toBe('untouched');
    expect(store.read()).toBe(Date.UTC(2026, 0, 1));
  });

  it('keeps its files private: the directory it creates 0700, mark files 0600', () => {
    const store = new FileTimeMarkStore(join(dir, 'state'), BASE);
    store.write(Date.UTC(2026, 0, 1));
    expect(statSync(join(dir, 'state')).mode & 0o777).toBe(0o700);
    expect(statSync(store.path).mode & 0o777).toBe(0o600);
  });

  it('leaves no temporary file behind however many writes fail', () => {
    const store = new FileTimeMarkStore(dir, BASE);
    // A directory at the mark's name: every rename over it fails, after the temporary file is written.
    mkdirSync(join(store.path, 'blocker'), { recursive: true });
    for (let i = 0; i < 200; i++) {
      expect(caught(() => store.write(Date.UTC(2026, 0, 1) + i)).code).toBe(
        'STATE_DIR_UNAVAILABLE',
      );
    }
    expect(readdirSync(dir)).toEqual([store.path.slice(dir.length + 1)]);
  });
});
