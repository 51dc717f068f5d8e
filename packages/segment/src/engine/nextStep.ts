/** What the dynamic step is computed from. */
export interface StepInputs {
  /** The step of the last fresh claim. */
  readonly step: number;
  /** The key's stored step: the smallest step. */
  readonly keyStep: number;
  /** The largest step. */
  readonly maxStep: number;
  /** Monotonic ms since the last claim. */
  readonly elapsedMs: number;
  /** How long a segment should last. */
  readonly targetMs: number;
}

/**
 * Leaf's dynamic step: the last segment went in less than `targetMs`, so the next is twice the
 * size (at most `maxStep`); in `targetMs` to twice that, the same; slower, half (at least the
 * key's step). The key's step wins over `maxStep` when it is larger.
 */
export function nextStep(s: StepInputs): number {
  const step =
    s.elapsedMs < s.targetMs
      ? Math.min(s.step * 2, s.maxStep)
      : s.elapsedMs < 2 * s.targetMs
        ? s.step
        : Math.floor(s.step / 2);
  return Math.max(step, s.keyStep);
}
