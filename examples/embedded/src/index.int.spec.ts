import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const cwd = fileURLToPath(new URL('..', import.meta.url));

describe('the embedded example', () => {
  it('prints five increasing ids of machine 7 and decodes the last one', async () => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'src/index.ts'], { cwd });
    const ids = [...stdout.matchAll(/^ {2}(\d+)$/gm)].map((match) => BigInt(match[1]!));
    expect(ids).toHaveLength(5);
    for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!).toBe(true);

    const last = ids[4]!;
    // Decoded here from the bits, independently of the library: machine 10 | seq 20 | time 30 | 2 | 1 | 1.
    const decoded = stdout.match(/^decoded (\d+): (\{.*\})$/m);
    expect(decoded?.[1]).toBe(last.toString());
    expect(JSON.parse(decoded![2]!)).toEqual({
      machine: 7,
      seq: Number((last >> 10n) & 0xfffffn),
      time: Number((last >> 30n) & 0x3fffffffn),
      genMethod: 0,
      type: 0,
      version: 0,
    });
    expect(Number(last & 1023n)).toBe(7);
    expect(stdout).toContain(`as JSON: {"id":"${last}"}`);
    const issuedAt = stdout.match(/^issued at (\S+)$/m)?.[1];
    expect(new Date(issuedAt!).toISOString()).toBe(issuedAt);
    const made = stdout.match(/^made from \{ time: (\d+), seq: 42 \}: (\d+)$/m);
    expect(BigInt(made![2]!)).toBe((BigInt(made![1]!) << 30n) | (42n << 10n) | 7n);
  });
});
