import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  unlinkSync,
  type Stats,
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
import { standardLayout, vestaUnitMs } from '../layout/layoutPresets.js';
import { ownerProblem } from './ensurePrivateDir.js';
import type { TimeMarkStore } from './TimeMarkStore.js';
import { writeFileAtomically, writeFileDurably } from './writeFileDurably.js';

const MARK_FILE = /^time-mark-.*\.json$/;

/**
 * What an operator states about the mark files of the first release, which recorded only
 * genMethod, type and machine id: the epoch, field widths and version they were written under.
 * The file's type gives the time unit and the standard layout the widths replace.
 */
export interface LegacyMarkAdoption {
  /** The first release's epoch, Unix ms. */
  readonly epochMs: number;
  /** Its field widths over the file's type's standard layout (empty: the standard layout). */
  readonly layout: Partial<IdMetaWidths>;
  readonly version: number;
}

/** A mark read from a file; `legacy` for a file of the first release (no identity recorded). */
interface FileMark extends StoredMark {
  readonly legacy: boolean;
}

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
  readonly #adoptLegacy: LegacyMarkAdoption | undefined;
  readonly #stateDir: boolean;

  /**
   * @param options.durable `false` writes without fsync: the mark then survives the process
   *   (a crash, SIGKILL) but not the host (a power loss). @default true
   * @param options.ownedOnly `true` refuses (STATE_DIR_UNSAFE) a mark file owned by another
   *   user, for a directory that only this user's services write. @default false
   * @param options.adoptLegacy the identity the first release's mark files were written under:
   *   such a file is then read as written under it and rewritten in the current format.
   *   @default undefined (such a file is STATE_MISMATCH for this machine id)
   * @param options.stateDir `false` for a directory the first release never wrote (the host
   *   marks): a file of its form there is refused without pointing to `adoptLegacyMark`.
   *   @default true
   */
  constructor(
    dir: string,
    identity: IdIdentity,
    options: {
      durable?: boolean;
      ownedOnly?: boolean;
      adoptLegacy?: LegacyMarkAdoption;
      stateDir?: boolean;
    } = {},
  ) {
    this.#dir = dir;
    this.#identity = identity;
    this.durable = options.durable ?? true;
    this.#ownedOnly = options.ownedOnly ?? false;
    this.#adoptLegacy = options.adoptLegacy;
    this.#stateDir = options.stateDir ?? true;
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
      const path = join(this.#dir, name);
      const read = this.#readFile(path);
      if (read === undefined) continue;
      // Another machine id's file is another instance's (checkStoredMark clears it): left as is.
      const ours = read.identity.machine === this.#identity.machine;
      const stored = read.legacy && ours ? this.#adopted(read) : read;
      if (!this.#bounds(stored)) continue;
      if (read.legacy && !stored.legacy) this.#rewrite(stored, path);
      markMs = Math.max(markMs ?? 0, stored.markMs);
    }
    return markMs;
  }

  write(markMs: number): void {
    this.#writeMark(this.path, markMs, this.#identity);
  }

  #writeMark(path: string, markMs: number, identity: IdIdentity): void {
    const body = JSON.stringify({ markMs, mark: new Date(markMs).toISOString(), identity }) + '\n';
    try {
      if (this.durable) writeFileDurably(path, body);
      else writeFileAtomically(path, body);
    } catch (cause) {
      throw this.#unavailable('write', path, cause);
    }
  }

  /** {@link checkStoredMark}, naming `adoptLegacyMark` when a first-release file is refused. */
  #bounds(stored: FileMark): boolean {
    try {
      return checkStoredMark(stored, this.#identity);
    } catch (error) {
      if (!stored.legacy || !this.#stateDir || !VestaError.is(error, 'STATE_MISMATCH')) throw error;
      throw new VestaError(
        'STATE_MISMATCH',
        `${stored.source} is a time mark of the first release, which did not record its epoch ` +
          'or layout, under which ids up to ' +
          `${new Date(stored.markMs).toISOString()} were issued. If you know them, state them ` +
          'with the option adoptLegacyMark ({ epoch, layout, version }; CLI: --adopt-legacy-mark ' +
          '<epoch>): the file is then read as written under them and rewritten in the current ' +
          `format. Otherwise restart on another machine id, or remove ${stored.source} only ` +
          'once no id issued under the old options can meet the new ones.',
        { details: { source: stored.source, markMs: stored.markMs }, cause: error },
      );
    }
  }

  /** A first-release mark read under the identity the operator stated, when they did. */
  #adopted(stored: FileMark): FileMark {
    const adopt = this.#adoptLegacy;
    if (adopt === undefined) return stored;
    const type = stored.identity.type === 1 ? 1 : 0;
    let layout: IdMeta;
    try {
      layout = createIdMeta(
        vestaLayoutSpec(
          { ...standardLayout(type).widths, ...adopt.layout },
          type,
          vestaUnitMs(type),
        ),
      );
    } catch (cause) {
      throw new VestaError(
        'INVALID_OPTIONS',
        `adoptLegacyMark.layout is no layout for ${stored.source} (type ${type}): ` +
          (cause instanceof Error ? cause.message : String(cause)),
        { cause },
      );
    }
    return {
      source: stored.source,
      markMs: stored.markMs,
      legacy: false,
      identity: {
        layout: layout.widths,
        epochMs: adopt.epochMs,
        unitMs: vestaUnitMs(type),
        machine: stored.identity.machine,
        genMethod: stored.identity.genMethod,
        type,
        version: adopt.version,
      },
    };
  }

  /**
   * Writes an adopted first-release mark in the current format (the file of its identity keeps
   * the higher mark), then removes the old file: the next start reads it like any other.
   */
  #rewrite(stored: StoredMark, legacyPath: string): void {
    const path = join(this.#dir, markFileName(stored.identity));
    const current = this.#readFile(path);
    if (current === undefined || current.markMs < stored.markMs) {
      this.#writeMark(path, stored.markMs, stored.identity);
    }
    try {
      unlinkSync(legacyPath);
    } catch (cause) {
      throw this.#unavailable('remove', legacyPath, cause);
    }
  }

  #readFile(path: string): FileMark | undefined {
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
    const legacy = typeof body['identity'] !== 'object' || body['identity'] === null;
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
    return { source: path, markMs, identity, legacy };
  }

  /**
   * A mark file's text, read without following a link (a link or anything but a regular file
   * is STATE_DIR_UNSAFE, its target never opened), or `undefined` once it is gone. Opened
   * non-blocking: a FIFO planted at a mark's name would hold the open until a writer came.
   */
  #readText(path: string): string | undefined {
    let fd: number;
    try {
      fd = openSync(
        path,
        constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0),
      );
    } catch (cause) {
      const code = (cause as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return undefined;
      if (code === 'ELOOP') throw unsafe(path, 'is a symbolic link');
      // Another user's file this one cannot open is refused as theirs, not as a failing disk.
      const problem = code === 'EACCES' || code === 'EPERM' ? this.#entryProblem(path) : undefined;
      if (problem !== undefined) throw unsafe(path, problem);
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

  /** Why an entry this user could not open is refused, by its `lstat`; `undefined` if it is not. */
  #entryProblem(path: string): string | undefined {
    let stats: Stats;
    try {
      stats = lstatSync(path);
    } catch {
      return undefined;
    }
    if (!stats.isFile()) return 'is not a regular file';
    return this.#ownedOnly ? ownerProblem(stats) : undefined;
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
 * unknown (NaN), so only other fixed bits can clear them, unless the operator states the
 * identity they were written under (`adoptLegacy`).
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
