import { VestaError } from '../errors/VestaError.js';
import type { IdIdentity } from '../identity/IdIdentity.js';
import type { Logger } from '../logging/Logger.js';
import { FileTimeMarkStore } from './FileTimeMarkStore.js';
import type { TimeMarkStore } from './TimeMarkStore.js';

/**
 * The host mark of a service on the system clock (see `hostMarksDir`): a file store written
 * without fsync, kept on a best-effort basis. Where the directory cannot be made, read or
 * written (a read-only file system, another user's directory), the service runs as before,
 * on its state dir or memory alone, with one warning. A mark it can read that could make ids
 * repeat (STATE_MISMATCH) still refuses the start.
 */
export class HostTimeMarkStore implements TimeMarkStore {
  readonly durable = false;
  readonly #files: FileTimeMarkStore | undefined;
  readonly #logger: Logger;
  #failed = false;

  constructor(dir: string, identity: IdIdentity, logger: Logger) {
    this.#logger = logger;
    try {
      this.#files = new FileTimeMarkStore(dir, identity, { durable: false, dirMode: 0o700 });
    } catch (error) {
      this.#fail(error);
    }
  }

  read(): number | undefined {
    if (this.#files === undefined || this.#failed) return undefined;
    try {
      return this.#files.read();
    } catch (error) {
      if (VestaError.is(error, 'STATE_MISMATCH')) throw error;
      this.#fail(error);
      return undefined;
    }
  }

  write(markMs: number): void {
    if (this.#files === undefined || this.#failed) return;
    try {
      this.#files.write(markMs);
    } catch (error) {
      this.#fail(error);
    }
  }

  #fail(error: unknown): void {
    this.#failed = true;
    this.#logger.warn(
      { err: error instanceof Error ? error.message : String(error) },
      'the host mark cannot be kept: a restart within the same time unit is covered by the state dir only',
    );
  }
}
