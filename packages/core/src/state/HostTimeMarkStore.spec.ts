import 'reflect-metadata';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { caught, capturingLogger } from '@vesta/testkit';
import { identityOf } from '../identity/IdIdentity.js';
import { MAX_PEAK_LAYOUT } from '../layout/layoutPresets.js';
import { silentLogger } from '../logging/Logger.js';
import { HostTimeMarkStore, hostMarksDir } from './FileTimeMarkStore.js';
import { createIdService } from '../service/createIdService.js';

let dir: string;
let saved: string | undefined;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'vesta-host-store-'));
  saved = process.env['VESTA_HOST_MARKS_DIR'];
});

afterEach(() => {
  if (saved === undefined) delete process.env['VESTA_HOST_MARKS_DIR'];
  else process.env['VESTA_HOST_MARKS_DIR'] = saved;
  rmSync(dir, { recursive: true, force: true });
});

describe('the host mark', () => {
  it('is best effort: a service whose host marks cannot be kept starts, issues and warns once', async () => {
    // A file where a parent directory should be: as on a read-only file system, mkdir fails.
    // (A file at the marks directory's own name is refused instead: STATE_DIR_UNSAFE.)
    const blocked = join(dir, 'not-a-dir');
    writeFileSync(blocked, '');
    process.env['VESTA_HOST_MARKS_DIR'] = join(blocked, 'marks');
    const logger = capturingLogger();
    const service = await createIdService({ machineId: 95, logger });
    const ids = await service.genIds(10);
    expect(new Set(ids).size).toBe(10);
    await service.close();
    const warnings = logger.warnings.filter((w) => w.message.includes('host mark'));
    expect(warnings).toHaveLength(1);
  });

  it('still refuses a start that a readable host mark proves unsafe (STATE_MISMATCH)', async () => {
    process.env['VESTA_HOST_MARKS_DIR'] = dir;
    const first = await createIdService({ machineId: 96, epoch: '2025-01-01T00:00:00Z' });
    await first.genIds(10);
    await first.close();
    await expect(
      createIdService({ machineId: 96, epoch: '2025-06-01T00:00:00Z' }),
    ).rejects.toMatchObject({ code: 'STATE_MISMATCH' });
  });

  it('refuses a first-release mark file among the host marks without pointing to adoptLegacyMark, which adopts state dir files only', () => {
    const identity = identityOf(MAX_PEAK_LAYOUT, Date.UTC(2025, 0, 1), {
      machine: 97,
      genMethod: 0,
      version: 0,
    });
    const store = new HostTimeMarkStore(dir, 'scope', identity, silentLogger);
    writeFileSync(
      join(hostMarksDir(dir, 'scope'), 'time-mark-g0-t0-m97.json'),
      JSON.stringify({ markMs: Date.UTC(2026, 0, 1), genMethod: 0, type: 0, machineId: 97 }),
      { mode: 0o600 },
    );
    const error = caught(() => store.read());
    expect(error.code).toBe('STATE_MISMATCH');
    expect(error.message).not.toContain('adoptLegacyMark');
  });
});
