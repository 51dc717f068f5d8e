import type { IdServiceHealth } from '@vesta/core';

/**
 * The messages between the primary of a REST cluster and its workers (over node:cluster's IPC
 * channel), each tagged `vesta` so that they never meet prom-client's own.
 */
export type ClusterMessage =
  /** worker -> primary: it serves, issuing under `machineId`. */
  | { readonly vesta: 'ready'; readonly machineId: number }
  /** worker -> primary: it could not start (it exits next). */
  | { readonly vesta: 'failed'; readonly code: string; readonly message: string }
  /** worker -> primary: the cluster-wide answer of `/health` or `/metrics`, please. */
  | { readonly vesta: 'ask'; readonly id: number; readonly what: 'health' | 'metrics' }
  /** primary -> worker: the answer to its `ask`. */
  | {
      readonly vesta: 'answer';
      readonly id: number;
      readonly status: number;
      readonly contentType: string;
      readonly body: string;
    }
  /** primary -> worker: its own service's health, please. */
  | { readonly vesta: 'health?'; readonly id: number }
  /** worker -> primary: its own service's health. */
  | { readonly vesta: 'health!'; readonly id: number; readonly health: IdServiceHealth }
  /** primary -> worker: drain and exit. */
  | { readonly vesta: 'stop' }
  /** primary -> worker: serve the client connection sent with this message (the handle). */
  | { readonly vesta: 'connection'; readonly id: number }
  /** worker -> primary: it took connection `id` (the primary's copy may close). */
  | { readonly vesta: 'took'; readonly id: number };

/** Whether an IPC message is one of ours. */
export function isClusterMessage(message: unknown): message is ClusterMessage {
  return (
    typeof message === 'object' &&
    message !== null &&
    typeof (message as { vesta?: unknown }).vesta === 'string'
  );
}

/** The environment variable that tells a worker process its index. */
export const WORKER_INDEX_ENV = 'VESTA_REST_WORKER';

/** The environment variable that tells a worker the address the primary listens on (JSON). */
export const WORKER_ADDRESS_ENV = 'VESTA_REST_ADDRESS';
