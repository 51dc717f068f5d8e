/**
 * One close of parts that stop in turn: each close runs once the one before it has settled, also
 * when that one failed, and the last failure is the one thrown (as `finally` has it). A close
 * may answer undefined for a part never started.
 */
export function closeInOrder(
  ...closes: readonly (() => Promise<unknown> | undefined)[]
): () => Promise<void> {
  return async () => {
    const [first, ...rest] = closes;
    if (first === undefined) return;
    try {
      await first();
    } finally {
      await closeInOrder(...rest)();
    }
  };
}
