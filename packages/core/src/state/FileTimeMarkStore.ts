import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { VestaError } from '../errors/VestaError.js';
import type { TimeMarkStore } from './TimeMarkStore.js';
import { writeFileDurably } from './writeFileDurably.js';

/**
 * A mark in a small JSON file of the state directory, written durably: to a temporary file,
 * fsynced, renamed over the old one, and the directory fsynced. One file per identity
 * (genMethod, type, machine id), so instances with different ids never share a mark.
 */
export class FileTimeMarkStore implements TimeMarkStore {
  readonly durable = true;
  readonly path: string;
  readonly #identity: Readonly<Record<string, number>>;

  constructor(dir: string, identity: { genMethod: number; type: number; machineId: number }) {
    this.#identity = { ...identity };
    this.path = join(
      dir,
      `time-mark-g${identity.genMethod}-t${identity.type}-m${identity.machineId}.json`,
    );
    try {
      mkdirSync(dir, { recursive: true });
    } catch (cause) {
      throw this.#unavailable('create', cause);
    }
  }

  read(): number | undefined {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (cause) {
      if ((cause as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw this.#unavailable('read', cause);
    }
    let markMs: unknown;
    try {
      markMs = (JSON.parse(text) as { markMs?: unknown }).markMs;
    } catch (cause) {
      throw this.#unavailable('parse', cause);
    }
    if (typeof markMs !== 'number' || !Number.isSafeInteger(markMs) || markMs < 0) {
      throw new VestaError(
        'STATE_DIR_UNAVAILABLE',
        `${this.path} holds no valid markMs; refusing to guess`,
      );
    }
    return markMs;
  }

  write(markMs: number): void {
    const body =
      JSON.stringify({ markMs, mark: new Date(markMs).toISOString(), ...this.#identity }) + '\n';
    try {
      writeFileDurably(this.path, body);
    } catch (cause) {
      throw this.#unavailable('write', cause);
    }
  }

  #unavailable(action: string, cause: unknown): VestaError {
    return new VestaError(
      'STATE_DIR_UNAVAILABLE',
      `cannot ${action} the time mark at ${this.path}: ${String(cause)}`,
      {
        cause,
      },
    );
  }
}
