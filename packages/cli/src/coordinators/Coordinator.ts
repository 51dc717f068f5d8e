import type { Logger, MachineIdProvider } from '@vesta/core';

/** One allocation as `vesta machine-ids list` shows it (every coordinator's admin rows have these). */
export interface AllocationRow {
  readonly machineId: number;
  /** The owner's key; null when released. */
  readonly owner: string | null;
  readonly alive: boolean;
  /** The last published time mark (Unix ms). */
  readonly markMs: number;
  /** Milliseconds since the mark was last raised (the coordinator's clock). */
  readonly ageMs: number;
}

/** The operators' side of a coordinator: list the allocations, release one by hand. */
export interface MachineIdAdmin {
  list(): Promise<readonly AllocationRow[]>;
  release(machineId: number, options: { force?: boolean }): Promise<AllocationRow>;
}

/** What a server start gives a coordinator's provider besides the URL. */
export interface ProviderContext {
  /** The instance key: `--coordinator-key`, else `host:port`. */
  readonly key: string;
  /** `--state-dir`, when the server keeps one. */
  readonly stateDir: string | undefined;
  readonly logger: Logger | undefined;
}

/**
 * A machine-id coordinator the CLI can use through `--coordinator <scheme>://...`: how to build
 * its provider and its admin from the URL. See `coordinators.ts` for the registry.
 */
export interface Coordinator {
  /** The URL schemes it answers to, without the colon (`redis`, `rediss`). */
  readonly schemes: readonly string[];
  /** The URL form, for help and errors. */
  readonly form: string;
  /** One URL of this form, for help. */
  readonly example: string;
  provider(url: string, context: ProviderContext): MachineIdProvider;
  admin(url: string): MachineIdAdmin;
}
