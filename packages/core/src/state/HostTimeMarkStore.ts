import { VestaError } from '../errors/VestaError.js';
import type { IdIdentity } from '../identity/IdIdentity.js';
import type { Logger } from '../logging/Logger.js';
import { ensurePrivateDir } from './ensurePrivateDir.js';
import { FileTimeMarkStore } from './FileTimeMarkStore.js';
import { hostMarksDir } from './hostMarksDir.js';
import type { TimeMarkStore } from './TimeMarkStore.js';

const HINT = "set VESTA_HOST_MARKS_DIR to a directory of this user's alone (mode 0700)";

/**
 * The host mark of a service on the system clock (see `hostMarksRoot`): a file store written
 * without fsync, kept on a best-effort basis. Where the directory cannot be made, read or
 * written (a read-only file system, no permission), the service runs as before, on its state
 * dir or memory alone, with one warning. Two things still refuse the start: a directory or
 * mark file that another user could have planted or replaced (STATE_DIR_UNSAFE: a symbolic
 * link, not a regular file, another owner, a mode open to others), and a mark it can read that
 * could make ids repeat (STATE_MISMATCH).
 */
export class HostTimeMarkStore implements TimeMarkStore {
  readonly durable = false;
  readonly #files: FileTimeMarkStore | undefined;
  readonly #logger: Logger;
  #failed = false;

  /**
   * @param root the directory of this user's host marks (`hostMarksRoot()`)
   * @param scope the host-lock scope: its marks go to a directory of its own under `root`
   */
  constructor(root: string, scope: string, identity: IdIdentity, logger: Logger) {
    this.#logger = logger;
    try {
      const dir = hostMarksDir(root, scope);
      ensurePrivateDir(root, HINT);
      ensurePrivateDir(dir, HINT);
      this.#files = new FileTimeMarkStore(dir, identity, {
        durable: false,
        ownedOnly: true,
        stateDir: false,
      });
    } catch (error) {
      if (VestaError.is(error, 'STATE_DIR_UNSAFE')) throw error;
      this.#fail(error);
    }
  }

  read(): number | undefined {
    if (this.#files === undefined || this.#failed) return undefined;
    try {
      return this.#files.read();
    } catch (error) {
      if (VestaError.is(error, 'STATE_MISMATCH') || VestaError.is(error, 'STATE_DIR_UNSAFE')) {
        throw error;
      }
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
