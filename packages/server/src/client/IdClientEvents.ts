import type { VestaError } from '@vesta/core';

/** Events of an {@link IdClient}. */
export interface IdClientEvents {
  serverUp: [event: { server: string; machine: number }];
  /** A server stopped answering or is shutting down; it is probed back with backoff. */
  serverDown: [event: { server: string; error: VestaError }];
  /** A server answered with another layout or epoch, or a machine id in use; it is not used. */
  serverRefused: [event: { server: string; error: VestaError }];
  fallback: [event: { error: VestaError | undefined }];
  recovered: [event: { server: string }];
}
