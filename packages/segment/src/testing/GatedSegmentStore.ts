import { MemorySegmentStore } from '../store/MemorySegmentStore.js';
import type { SegmentClaim, SegmentClaimRequest } from '../store/SegmentStore.js';

interface PendingClaim {
  readonly key: string;
  readonly request: SegmentClaimRequest;
  readonly release: () => void;
}

/**
 * For tests: a {@link MemorySegmentStore} whose claims wait until the test lets them through
 * (`open()`, `letOne()`), or fail (`failing`), so a test sees when a claim starts and decides
 * when and how it ends.
 */
export class GatedSegmentStore extends MemorySegmentStore {
  /** Claims started, in order (each with its request). */
  readonly requests: SegmentClaimRequest[] = [];
  /** While true, every claim fails with a plain Error (a store that does not answer). */
  failing = false;
  #gated = false;
  #pending: PendingClaim[] = [];

  /** From now on claims wait for `letOne()` / `open()`. */
  gate(): void {
    this.#gated = true;
  }

  /** Claims pass at once again, the waiting ones too. */
  open(): void {
    this.#gated = false;
    for (const p of this.#pending.splice(0)) p.release();
  }

  /** Lets the oldest waiting claim through; false when none waits. */
  letOne(): boolean {
    const p = this.#pending.shift();
    p?.release();
    return p !== undefined;
  }

  /** Claims waiting at the gate. */
  get waiting(): number {
    return this.#pending.length;
  }

  override async claim(key: string, request: SegmentClaimRequest = {}): Promise<SegmentClaim> {
    this.requests.push(request);
    if (this.#gated) {
      await new Promise<void>((release) => this.#pending.push({ key, request, release }));
    }
    if (this.failing) throw new Error('connection refused');
    return super.claim(key, request);
  }
}
