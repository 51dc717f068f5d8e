import { spawnVesta } from './spawnVesta.js';
import { startIdLoad, type Issue, type IssuedBatch } from './startIdLoad.js';

/** Load clients connected to one server process. */
export interface LoadConnection {
  readonly issue: Issue;
  close(): Promise<void> | void;
}

/** Options of {@link killUnderLoad}. */
export interface KillUnderLoadOptions {
  readonly command: 'rest' | 'server';
  /** Flags of every start (the same state dir and machine id each time); `--port 0` is added. */
  readonly args: readonly string[];
  readonly cycles: number;
  /** Each cycle kills the server once its clients received this many ids. */
  readonly idsPerCycle: number;
  /** Clients issuing at once. */
  readonly clients: number;
  /** Connects load clients to the server listening on `port`. */
  connect(port: number): Promise<LoadConnection>;
}

/** What the clients received over every cycle. */
export interface KillUnderLoadResult {
  readonly batches: readonly IssuedBatch[];
  /** Ids received in each cycle. */
  readonly perCycle: readonly number[];
  /** Requests in flight when each cycle's SIGKILL was sent. */
  readonly inFlightAtKill: readonly number[];
  /** How each cycle's process ended. */
  readonly exits: readonly string[];
  /** Failed requests over every cycle, by code. */
  readonly errors: ReadonlyMap<string, number>;
}

/**
 * Test helper: starts the real `vesta <command>` process, drives load against it until
 * `idsPerCycle` ids arrived, SIGKILLs it with requests in flight, and starts it again on the
 * same flags, `cycles` times. Each step waits for an event (listening line, ids received,
 * exit), each with a deadline.
 */
export async function killUnderLoad(options: KillUnderLoadOptions): Promise<KillUnderLoadResult> {
  const batches: IssuedBatch[] = [];
  const perCycle: number[] = [];
  const inFlightAtKill: number[] = [];
  const exits: string[] = [];
  const errors = new Map<string, number>();
  for (let cycle = 0; cycle < options.cycles; cycle++) {
    const server = spawnVesta(options.command, ['--port', '0', ...options.args]);
    try {
      const connection = await options.connect(await server.listening);
      const load = startIdLoad({ clients: options.clients, issue: connection.issue });
      try {
        await load.until(
          `${options.idsPerCycle} ids received in cycle ${cycle}`,
          () => load.received() >= options.idsPerCycle,
        );
        inFlightAtKill.push(load.inFlight());
        server.child.kill('SIGKILL');
        const exit = await server.exited;
        exits.push(exit.signal ?? String(exit.code));
      } finally {
        await load.stop();
        await connection.close();
      }
      batches.push(...load.batches);
      perCycle.push(load.received());
      for (const [code, count] of load.errors) errors.set(code, (errors.get(code) ?? 0) + count);
    } finally {
      await server.stop('SIGKILL');
    }
  }
  return { batches, perCycle, inFlightAtKill, exits, errors };
}
