import { codeOf } from '@vesta/testkit';
import { describe, expect, it } from 'vitest';
import { checkSegmentKey, MAX_SEGMENT_KEY_LENGTH } from './segments.js';

describe('checkSegmentKey', () => {
  const EMOJI = '\u{1F600}';

  it.each([
    ['a plain key', 'order'],
    ['200 code points of ASCII', 'k'.repeat(MAX_SEGMENT_KEY_LENGTH)],
    ['200 emoji (400 UTF-16 units)', EMOJI.repeat(MAX_SEGMENT_KEY_LENGTH)],
    ['a leading U+FEFF', '\uFEFForder'],
    ['Cyrillic', 'заказ'],
    ['U+00A0, the first code point after the C1 controls', 'a\u00A0b'],
    ['a plane-16 private-use character', 'a\u{10FFFD}'],
  ])('takes %s', (_what, key) => {
    expect(checkSegmentKey(key)).toBe(key);
  });

  it.each([
    ['an empty key', ''],
    ['201 code points', 'k'.repeat(MAX_SEGMENT_KEY_LENGTH + 1)],
    ['201 emoji', EMOJI.repeat(MAX_SEGMENT_KEY_LENGTH + 1)],
    ['NUL', 'a\u0000b'],
    ['a C0 control', 'a\u001Fb'],
    ['DEL', 'a\u007Fb'],
    ['U+0080, the first C1 control', 'a\u0080b'],
    ['U+0085 (NEL), a C1 control', 'a\u0085b'],
    ['U+009F, the last C1 control', 'a\u009Fb'],
    ['a lone high surrogate', 'a\uD83Db'],
    ['a lone low surrogate', 'a\uDE00'],
    ['the noncharacter U+FFFE', 'a\uFFFE'],
    ['the noncharacter U+FDD0', 'a\uFDD0'],
    ['the noncharacter U+10FFFF', 'a\u{10FFFF}'],
    ['a number', 7],
  ])('refuses %s with INVALID_ARGUMENT', (_what, key) => {
    expect(codeOf(() => checkSegmentKey(key))).toBe('INVALID_ARGUMENT');
  });
});
