import { checkSegmentKey } from '@vesta/core/kit';
import { checkStart } from './checkStart.js';
import { checkStep } from './checkStep.js';
import type { SegmentKeyOptions } from './SegmentStore.js';

/** Checks what `createKey` is given (INVALID_ARGUMENT); the step and the start, filled. */
export function checkNewKey(
  key: string,
  options: SegmentKeyOptions,
): { readonly step: number; readonly start: bigint } {
  checkSegmentKey(key);
  return { step: checkStep(options.step), start: checkStart(options.start ?? 0n) };
}
