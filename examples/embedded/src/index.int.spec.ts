import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { compiledFixture, FIXTURE_EXEC_ARGV } from '@vesta/testkit';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const cwd = fileURLToPath(new URL('..', import.meta.url));

/** The capture groups of the first line of `text` that matches, or a failure naming the pattern. */
function groups(text: string, pattern: RegExp): string[] {
  const match = text.match(pattern);
  if (match === null) throw new Error(`no line matches ${pattern}:\n${text}`);
  return match.slice(1).map((group) => group ?? '');
}

describe('the embedded example', () => {
  it('prints five increasing ids of machine 7 and decodes the last one', async () => {
    // Compiled and run by plain Node, the packages from their dist/ (as installed).
    const script = await compiledFixture(join(cwd, 'src/index.ts'));
    const { stdout } = await run(process.execPath, [...FIXTURE_EXEC_ARGV, script], { cwd });
    const ids = [...stdout.matchAll(/^ {2}(\d+)$/gm)].map((match) => BigInt(match[1] ?? ''));
    expect(ids).toHaveLength(5);
    expect([...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))).toEqual(ids);
    expect(new Set(ids).size).toBe(5);

    const last = ids[4] ?? 0n;
    const [decodedId, decodedJson] = groups(stdout, /^decoded (\d+): (\{.*\})$/m);
    expect(decodedId).toBe(last.toString());
    // Decoded here from the bits, independently of the library: machine 10 | seq 20 | time 30 | 2 | 1 | 1.
    expect(JSON.parse(decodedJson ?? '')).toEqual({
      machine: 7,
      seq: Number((last >> 10n) & 0xfffffn),
      time: Number((last >> 30n) & 0x3fffffffn),
      genMethod: 0,
      type: 0,
      version: 0,
    });
    expect(Number(last & 1023n)).toBe(7);
    expect(stdout).toContain(`as JSON: {"id":"${last}"}`);
    const [issuedAt] = groups(stdout, /^issued at (\S+)$/m);
    expect(new Date(issuedAt ?? '').toISOString()).toBe(issuedAt);
    const [time, made] = groups(stdout, /^made from \{ time: (\d+), seq: 42 \}: (\d+)$/m);
    expect(BigInt(made ?? '')).toBe((BigInt(time ?? '') << 30n) | (42n << 10n) | 7n);
  });
});
