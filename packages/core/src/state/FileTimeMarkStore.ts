import {
  closeSync,
  constants,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { VestaError } from '../errors/VestaError.js';
import { checkStoredMark, type StoredMark } from '../identity/checkStoredMark.js';
import { identityDigest, type IdIdentity } from '../identity/IdIdentity.js';
import {
  createIdMeta,
  vestaLayoutSpec,
  type IdMeta,
  type IdMetaFieldSpec,
  type IdMetaWidths,
} from '../layout/IdMeta.js';
import { standardLayout, vestaUnitMs } from '../layout/standardLayouts.js';
import { ownerProblem } from './ensurePrivateDir.js';
import type { TimeMarkStore } from './TimeMarkStore.js';
import { writeFileAtomically, writeFileDurably } from './writeFileDurably.js';

const MARK_FILE = /^time-mark-.*\.json$/;

/**
 * A mark in a small JSON file of the state directory, written durably: to a temporary file,
 * fsynced, renamed over the old one, and the directory fsynced. The file records the whole
 * {@link IdIdentity} it was written under.
 *
 * Reading checks every mark file of the directory against this instance's identity
 * ({@link checkStoredMark}): the largest mark that bounds this instance's times is returned;
 * one written under options that could make ids repeat is STATE_MISMATCH.
 */
export class FileTimeMarkStore implements TimeMarkStore {
  readonly durable: boolean;
  readonly path: string;
  readonly #dir: string;
  readonly #identity: IdIdentity;
  readonly #ownedOnly: boolean;

  /**
   * @param options.durable `false` writes without fsync: the mark then survives the process
   *   (a crash, SIGKILL) but not the host (a power loss). @default true
   * @param options.ownedOnly `true` refuses (STATE_DIR_UNSAFE) a mark file owned by another
   *   user, for a directory that only this user's services write. @default false
   */
  constructor(
    dir: string,
    identity: IdIdentity,
    options: { durable?: boolean; ownedOnly?: boolean } = {},
  ) {
    this.#dir = dir;
    this.#identity = identity;
    this.durable = options.durable ?? true;
    this.#ownedOnly = options.ownedOnly ?? false;
    this.path = join(dir, markFileName(identity));
    try {
      // 0700: the marks are the service's own (files 0600, see writeFileDurably).
      mkdirSync(dir, { recursive: true, mode: 0o700 });
    } catch (cause) {
      throw this.#unavailable('create', this.#dir, cause);
    }
  }

  read(): number | undefined {
    let names: string[];
    try {
      names = readdirSync(this.#dir).filter((name) => MARK_FILE.test(name));
    } catch (cause) {
      throw this.#unavailable('list', this.#dir, cause);
    }
    let markMs: number | undefined;
    for (const name of names.sort()) {
      const stored = this.#readFile(join(this.#dir, name));
      if (stored === undefined || !checkStoredMark(stored, this.#identity)) continue;
      markMs = Math.max(markMs ?? 0, stored.markMs);
    }
    return markMs;
  }

  write(markMs: number): void {
    const body =
      JSON.stringify({ markMs, mark: new Date(markMs).toISOString(), identity: this.#identity }) +
      '\n';
    try {
      if (this.durable) writeFileDurably(this.path, body);
      else writeFileAtomically(this.path, body);
    } catch (cause) {
      throw this.#unavailable('write', this.path, cause);
    }
  }

  #readFile(path: string): StoredMark | undefined {
    const text = this.#readText(path);
    if (text === undefined) return undefined;
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      // Neither the parser's message nor the cause: both quote the file, which may be anything.
      throw new VestaError(
        'STATE_DIR_UNAVAILABLE',
        `${path} is not a time mark (not JSON); refusing to guess`,
      );
    }
    const markMs = body['markMs'];
    const identity = parseIdentity(body);
    if (
      typeof markMs !== 'number' ||
      !Number.isSafeInteger(markMs) ||
      markMs < 0 ||
      identity === undefined
    ) {
      throw new VestaError(
        'STATE_DIR_UNAVAILABLE',
        `${path} holds no valid markMs and identity; refusing to guess`,
      );
    }
    return { source: path, markMs, identity };
  }

  /**
   * A mark file's text, read without following a link (a link or anything but a regular file
   * is STATE_DIR_UNSAFE, its target never opened), or `undefined` once it is gone.
   */
  #readText(path: string): string | undefined {
    let fd: number;
    try {
      fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
    } catch (cause) {
      const code = (cause as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return undefined;
      if (code === 'ELOOP') throw unsafe(path, 'is a symbolic link');
      throw this.#unavailable('read', path, cause);
    }
    try {
      const stats = fstatSync(fd);
      if (!stats.isFile()) throw unsafe(path, 'is not a regular file');
      const owner = this.#ownedOnly ? ownerProblem(stats) : undefined;
      if (owner !== undefined) throw unsafe(path, owner);
      return readFileSync(fd, 'utf8');
    } catch (cause) {
      if (VestaError.is(cause)) throw cause;
      throw this.#unavailable('read', path, cause);
    } finally {
      closeSync(fd);
    }
  }

  #unavailable(action: string, path: string, cause: unknown): VestaError {
    return new VestaError(
      'STATE_DIR_UNAVAILABLE',
      `cannot ${action} the time mark at ${path}: ${String(cause)}`,
      { cause },
    );
  }
}

function unsafe(path: string, problem: string): VestaError {
  return new VestaError(
    'STATE_DIR_UNSAFE',
    `${path} ${problem}; it is not read. Remove it: a service writes its own marks as regular files, mode 0600`,
    { details: { path } },
  );
}

/**
 * The mark file of an identity: named by its genMethod, type and machine id for people, and a
 * digest of the whole identity, so that instances which may share a state dir (other versions,
 * layouts or epochs) never overwrite each other's marks.
 */
export function markFileName(identity: IdIdentity): string {
  const digest = identityDigest(identity).slice(0, 12);
  return `time-mark-g${identity.genMethod}-t${identity.type}-m${identity.machine}-${digest}.json`;
}

function isWhole(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/**
 * The identity a mark file was written under. Files of the first release recorded only
 * genMethod, type and machineId: their layout is the type's standard one and their epoch is
 * unknown (NaN), so only other fixed bits can clear them.
 */
function parseIdentity(body: Record<string, unknown>): IdIdentity | undefined {
  const recorded = body['identity'];
  if (typeof recorded === 'object' && recorded !== null) {
    const r = recorded as Record<string, unknown>;
    const layout = r['layout'];
    const numbers = ['epochMs', 'unitMs', 'machine', 'genMethod', 'type', 'version'];
    if (typeof layout !== 'object' || layout === null || !numbers.every((k) => isWhole(r[k]))) {
      return undefined;
    }
    let layoutOf: IdMeta;
    const fields = r['fields'];
    try {
      const type = r['type'] === 1 ? 1 : 0;
      const unitMs = Math.max(1, r['unitMs'] as number);
      layoutOf = createIdMeta(
        Array.isArray(fields)
          ? { fields: fields as IdMetaFieldSpec[], unitMs, type }
          : vestaLayoutSpec(layout as IdMetaWidths, type, unitMs),
      );
    } catch {
      return undefined;
    }
    const n = (key: string): number => r[key] as number;
    return {
      layout: layoutOf.widths,
      ...(Array.isArray(fields) ? { fields: layoutOf.spec.fields } : {}),
      epochMs: n('epochMs'),
      unitMs: n('unitMs'),
      machine: n('machine'),
      genMethod: n('genMethod'),
      type: n('type'),
      version: n('version'),
    };
  }
  const { genMethod, type, machineId } = body;
  if (!isWhole(genMethod) || (type !== 0 && type !== 1) || !isWhole(machineId)) return undefined;
  return {
    layout: standardLayout(type).widths,
    epochMs: Number.NaN,
    unitMs: vestaUnitMs(type),
    machine: machineId,
    genMethod,
    type,
    version: 0,
  };
}
