import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readIdLines } from './idLines.js';

async function lines(chunks: readonly string[]): Promise<[string, number][]> {
  const seen: [string, number][] = [];
  await readIdLines(Readable.from(chunks), (text, line) => seen.push([text, line]));
  return seen;
}

describe('readIdLines', () => {
  it('hands over trimmed lines with their numbers, blank ones skipped but counted', async () => {
    expect(await lines(['12\r\n\n  34 \r\n', '\n56'])).toEqual([
      ['12', 1],
      ['34', 3],
      ['56', 5],
    ]);
  });

  it('joins a line cut between chunks', async () => {
    expect(await lines(['1234', '5678\n9', '0\n'])).toEqual([
      ['12345678', 1],
      ['90', 2],
    ]);
  });

  it('cuts a line longer than any id, holding a bounded part of it', async () => {
    const seen = await lines([...Array.from({ length: 100 }, () => 'x'.repeat(1000)), '\n7\n']);
    expect(seen.map(([text, line]) => [text.length < 3000, line])).toEqual([
      [true, 1],
      [true, 2],
    ]);
    expect(seen[1]).toEqual(['7', 2]);
  });
});
