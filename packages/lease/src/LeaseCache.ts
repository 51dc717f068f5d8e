import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { VestaError } from '@vesta/core';
import { writeFileDurably } from '@vesta/core/kit';

/** The last lease confirmed by a coordinator, as kept in the state directory. */
export interface CachedLease {
  readonly root: string;
  readonly key: string;
  readonly machineId: number;
  /** The mark last published (Unix ms): nothing was issued at or after it. */
  readonly markMs: number;
  /** When the coordinator last confirmed the lease (Unix ms, this host's clock). */
  readonly confirmedAtMs: number;
  /** The allocation era the lease was confirmed under (absent in caches of older versions). */
  readonly era?: string;
}

/**
 * A coordinator provider's files in the state directory: the instance key (`<coordinator>-key`,
 * e.g. `zookeeper-key`) and the last confirmed lease per root (`<coordinator>-lease<root>.json`),
 * written atomically and fsynced. Each coordinator keeps its own files, so switching coordinators
 * never mixes their leases.
 */
export class LeaseCache {
  readonly #dir: string;
  readonly #leasePath: string;
  readonly #keyPath: string;

  /** `coordinator` names the files (`zookeeper`, `redis`, ...); `root` is the lease namespace. */
  constructor(dir: string, coordinator: string, root: string) {
    this.#dir = dir;
    this.#keyPath = join(dir, `${coordinator}-key`);
    this.#leasePath = join(dir, `${coordinator}-lease${root.replaceAll('/', '_')}.json`);
  }

  /** The key kept here, created on first use. */
  key(): string {
    const path = this.#keyPath;
    try {
      const existing = readFileSync(path, 'utf8').trim();
      if (existing !== '') return existing;
    } catch (cause) {
      if ((cause as NodeJS.ErrnoException).code !== 'ENOENT') throw this.#unavailable(path, cause);
    }
    const key = `${hostname()}/${randomUUID()}`;
    this.#write(path, `${key}\n`);
    return key;
  }

  read(): CachedLease | undefined {
    let text: string;
    try {
      text = readFileSync(this.#leasePath, 'utf8');
    } catch (cause) {
      if ((cause as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw this.#unavailable(this.#leasePath, cause);
    }
    try {
      const v = JSON.parse(text) as Partial<CachedLease>;
      if (
        typeof v.root === 'string' &&
        typeof v.key === 'string' &&
        Number.isInteger(v.machineId) &&
        Number.isSafeInteger(v.markMs) &&
        Number.isSafeInteger(v.confirmedAtMs) &&
        (v.era === undefined || typeof v.era === 'string')
      ) {
        return v as CachedLease;
      }
    } catch {
      // fall through: a torn or foreign file is no cache
    }
    return undefined;
  }

  write(lease: CachedLease): void {
    this.#write(
      this.#leasePath,
      `${JSON.stringify({ ...lease, mark: new Date(lease.markMs).toISOString() })}\n`,
    );
  }

  #write(path: string, body: string): void {
    try {
      mkdirSync(this.#dir, { recursive: true, mode: 0o700 });
      writeFileDurably(path, body);
    } catch (cause) {
      throw this.#unavailable(path, cause);
    }
  }

  #unavailable(path: string, cause: unknown): VestaError {
    return new VestaError('STATE_DIR_UNAVAILABLE', `cannot use ${path}: ${String(cause)}`, {
      cause,
    });
  }
}
