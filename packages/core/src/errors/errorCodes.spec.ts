import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, isVestaErrorCode } from './errorCodes.js';

const readme = readFileSync(
  fileURLToPath(new URL('../../../../README.md', import.meta.url)),
  'utf8',
);

describe('ERROR_CODES', () => {
  it('gives every code a distinct wire number', () => {
    const wires = Object.values(ERROR_CODES).map((entry) => entry.wire);
    expect(new Set(wires).size).toBe(wires.length);
  });

  it.each(Object.entries(ERROR_CODES))(
    'lists %s in the README with its status and wire number',
    (code, entry) => {
      expect(readme).toContain(`| \`${code}\` | ${entry.status} | ${entry.wire} |`);
    },
  );

  it('tells codes from other strings', () => {
    expect(isVestaErrorCode('TIME_OVERFLOW')).toBe(true);
    expect(isVestaErrorCode('toString')).toBe(false);
    expect(isVestaErrorCode(8)).toBe(false);
  });
});
