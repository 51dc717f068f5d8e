import type { VestaError } from '@vesta/core';

/** Events of an {@link IdClient}. */
export interface IdClientEvents {
  /** A server completed its handshake and takes requests. */
  serverUp: [event: { server: string; machine: number }];
  /** A server stopped answering (or is shutting down); it is probed back with backoff. */
  serverDown: [event: { server: string; error: VestaError }];
  /** A server answered with another layout, epoch or a machine id already in use; it is not used. */
  serverRefused: [event: { server: string; error: VestaError }];
  /** No server answered: ids now come from the local fallback (genMethod 0). */
  fallback: [event: { error: VestaError | undefined }];
  /** A server answered again after a spell in fallback. */
  recovered: [event: { server: string }];
}
