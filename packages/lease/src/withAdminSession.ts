import type { VestaErrorCode } from '@vesta/core';
import { VestaError } from '@vesta/core';

/** How an admin reaches its coordinator for one call (see {@link withAdminSession}). */
export interface AdminSession<C> {
  /** The coordinator's name in errors: `etcd`, `PostgreSQL`. */
  readonly store: string;
  /** The code of a failure that is not already a VestaError. @default 'COORDINATOR_UNAVAILABLE' */
  readonly code?: VestaErrorCode;
  /** Opens the connection (without waiting for it: `work` does, so a failed start is closed too). */
  open(): C;
  close(connection: C): unknown;
}

/**
 * One admin call on its own connection: opened, worked on, closed whatever happens. A failure
 * reaches the operator as a VestaError: one thrown as it is, anything else (a socket or driver
 * error) as `session.code` ("`store` request failed: ..."), the error kept as its cause.
 */
export async function withAdminSession<C, T>(
  session: AdminSession<C>,
  work: (connection: C) => Promise<T>,
): Promise<T> {
  const connection = session.open();
  try {
    return await work(connection);
  } catch (error) {
    if (VestaError.is(error)) throw error;
    throw new VestaError(
      session.code ?? 'COORDINATOR_UNAVAILABLE',
      `${session.store} request failed: ${String(error)}`,
      { cause: error },
    );
  } finally {
    await session.close(connection);
  }
}
