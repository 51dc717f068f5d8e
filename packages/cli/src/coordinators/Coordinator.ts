import type { Logger } from '@vesta/core';
import type { ContainerModule } from 'inversify';

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

/** What `vesta machine-ids init` did (every coordinator's admin answers these). */
export interface StoreInitRow {
  /** The token of the allocation era it created open. */
  readonly era: string;
  /** The store and where in it, e.g. `ZooKeeper under /vesta`. */
  readonly where: string;
}

/** One holder's time on a machine id, from the store's lease journal (`@vesta/lease`'s tenure). */
export interface TenureRow {
  readonly machineId: number;
  /** The holder's key (the owner `list` shows). */
  readonly holder: string;
  /** The start's instance token. */
  readonly instance: string;
  /** From the claim (Unix ms). */
  readonly fromMs: number;
  /** The claim's floor mark: the highest time its previous holder published (0 or absent: none). */
  readonly floorMarkMs?: number;
  /** Up to its final mark, the next claim's floor mark, or the read's time while held (Unix ms). */
  readonly toMs: number;
  /** Released cleanly, closed by the next claim of the id (its holder died), or still held. */
  readonly ended: 'released' | 'reclaimed' | 'held';
}

/** A store's lease journal as `vesta machine-ids history` and `vesta audit --coordinator` read it. */
export interface LeaseHistoryRows {
  readonly tenures: readonly TenureRow[];
  /** The window the journal covers: its oldest entry kept (undefined: empty) to the read. */
  readonly covered: { readonly fromMs: number | undefined; readonly toMs: number };
}

/**
 * The operators' side of a coordinator: list the allocations, release one by hand, declare a
 * store new (its era created open when it holds no history; COORDINATOR_NOT_NEW otherwise), read
 * its lease journal's tenures.
 */
export interface MachineIdAdmin {
  list(): Promise<readonly AllocationRow[]>;
  release(machineId: number, options: { force?: boolean }): Promise<AllocationRow>;
  init(): Promise<StoreInitRow>;
  history(filter?: { machineId?: number; sinceMs?: number }): Promise<LeaseHistoryRows>;
}

/**
 * A coordinator's machine-id module for one start, built on first use: the command line imports
 * a coordinator's package (and its client: ioredis, pg, etcd3 with gRPC...) only when a
 * `--coordinator` URL names it, so every other start stays quick.
 */
export interface LazyMachineIdModule {
  /**
   * Imports the package (PACKAGE_MISSING when it is not installed) and builds the module, which
   * binds `TOKENS.MachineIdProvider` to the coordinator's provider: INVALID_OPTIONS for bad
   * options; connects to nothing. Built once.
   */
  load(): Promise<ContainerModule>;
}

/** What a server start gives a coordinator's provider besides the URL. */
export interface ProviderContext {
  /** The instance key: `--coordinator-key`, else `host:port`. */
  readonly key: string;
  /**
   * Whether `--coordinator-key` set the key: then a `?key=` in the URL that says otherwise is
   * INVALID_OPTIONS, where the default `host:port` gives way to it. @default false
   */
  readonly keyGiven?: boolean;
  /** `--state-dir`, when the server keeps one. */
  readonly stateDir: string | undefined;
  readonly logger: Logger | undefined;
}

/**
 * A machine-id coordinator the CLI can use through `--coordinator <scheme>://...`: how to build
 * its machine-id module and its admin from the URL, importing its package only then. See `coordinators.ts` for the registry.
 */
export interface Coordinator {
  /** The URL schemes it answers to, without the colon (`redis`, `rediss`). */
  readonly schemes: readonly string[];
  /** The URL form, for help and errors. */
  readonly form: string;
  /** One URL of this form, for help. */
  readonly example: string;
  /** Its machine-id module: the URL is read now, the package loaded and the module built on `load()`. */
  machineIdModule(url: string, context: ProviderContext): LazyMachineIdModule;
  /** Its admin: the URL is read now, the package loaded on the first call. */
  admin(url: string): MachineIdAdmin;
}
