/**
 * Closes what a start had already opened once a later part of it failed, then throws the start's
 * `error`: a failure of the close is dropped, so it never replaces the error that says why the
 * start failed (the one the user is shown).
 */
export async function closeAfterFailedStart(
  close: () => Promise<unknown> | undefined,
  error: unknown,
): Promise<never> {
  await Promise.resolve()
    .then(close)
    .catch(() => undefined);
  throw error;
}
