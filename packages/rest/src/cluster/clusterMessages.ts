import type { IdServiceHealth } from '@vesta/core';

/** The IPC messages of a REST cluster, tagged `vesta` apart from prom-client's own. */
export type ClusterMessage =
  // worker -> primary: serving; could not start (exits next); cluster-wide `/health` or `/metrics`?
  | { readonly vesta: 'ready'; readonly machineId: number }
  | { readonly vesta: 'failed'; readonly code: string; readonly message: string }
  | { readonly vesta: 'ask'; readonly id: number; readonly what: 'health' | 'metrics' }
  // primary -> worker: the answer to `ask`; its own health?; drain and exit; a connection (handle).
  | {
      readonly vesta: 'answer';
      readonly id: number;
      readonly status: number;
      readonly contentType: string;
      readonly body: string;
    }
  | { readonly vesta: 'health?'; readonly id: number }
  | { readonly vesta: 'stop' }
  | { readonly vesta: 'connection'; readonly id: number }
  // worker -> primary: its own health; it took connection `id` (the primary's copy may close).
  | { readonly vesta: 'health!'; readonly id: number; readonly health: IdServiceHealth }
  | { readonly vesta: 'took'; readonly id: number };

export function isClusterMessage(message: unknown): message is ClusterMessage {
  return typeof (message as { vesta?: unknown } | null)?.vesta === 'string';
}

/** Tell a worker its index, and the address the primary listens on (JSON). */
export const WORKER_INDEX_ENV = 'VESTA_REST_WORKER';
export const WORKER_ADDRESS_ENV = 'VESTA_REST_ADDRESS';
