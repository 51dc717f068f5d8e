import { checkSegmentKey } from '@vesta/core/kit';
import {
  MAX_SEGMENT_NUMBER,
  checkNewKey,
  checkStep,
  segmentKeyRanOut,
  unknownSegmentKey,
  type SegmentClaim,
  type SegmentClaimRequest,
  type SegmentKeyInfo,
  type SegmentKeyOptions,
  type SegmentRange,
  type SegmentStore,
} from './SegmentStore.js';

type MemoryKey = { max: bigint; step: number; free: SegmentRange[] };

/** A {@link SegmentStore} in memory, for tests and single-process tools (numbers start over with the process). */
export class MemorySegmentStore implements SegmentStore {
  readonly #keys = new Map<string, MemoryKey>();

  async claim(key: string, request: SegmentClaimRequest = {}): Promise<SegmentClaim> {
    const k = this.#key(key);
    const minStart = request.minStart ?? 0n;
    const i = k.free.findIndex((r) => r.start >= minStart);
    if (i >= 0) {
      const [range] = k.free.splice(i, 1) as [SegmentRange];
      return { ...range, keyStep: k.step, handedBack: true };
    }
    const step = request.step === undefined ? k.step : checkStep(request.step);
    const start = k.max;
    if (start + BigInt(step) > MAX_SEGMENT_NUMBER) throw segmentKeyRanOut(key);
    k.max += BigInt(step);
    return { start, end: k.max, keyStep: k.step, handedBack: false };
  }

  async handBack(key: string, range: SegmentRange): Promise<void> {
    const { free } = this.#key(key);
    if (range.end <= range.start) return;
    free.push({ start: range.start, end: range.end });
    free.sort((a, b) => (a.start < b.start ? -1 : 1));
  }

  async createKey(key: string, options: SegmentKeyOptions): Promise<boolean> {
    const { step, start } = checkNewKey(key, options);
    if (this.#keys.has(key)) return false;
    this.#keys.set(key, { max: start, step, free: [] });
    return true;
  }

  async setStep(key: string, step: number): Promise<void> {
    this.#key(key).step = checkStep(step);
  }

  async keys(): Promise<SegmentKeyInfo[]> {
    return [...this.#keys.entries()]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([key, k]) => ({ key, max: k.max, step: k.step }));
  }

  async close(): Promise<void> {}

  #key(key: string): MemoryKey {
    const k = this.#keys.get(checkSegmentKey(key));
    if (k === undefined) throw unknownSegmentKey(key);
    return k;
  }
}
