import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync } from 'node:fs';
import { readdirSync, readFileSync, unlinkSync, type Stats } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import type { VestaErrorCode } from '../errors/errorCodes.js';
import { invalidOptions, VestaError } from '../errors/VestaError.js';
import { checkStoredMark, identityDigest, identityOf, layoutOf } from '../identity/IdIdentity.js';
import type { IdIdentity, StoredMark } from '../identity/IdIdentity.js';
import type { IdMeta, IdMetaWidths } from '../layout/IdMeta.js';
import type { LegacyMarkAdoption } from '../service/IdServiceOptions.js';
import type { Logger } from '../logging/Logger.js';
import { standardLayout, vestaLayout } from '../layout/layoutPresets.js';
import type { TimeMarkStore } from './TimeMarkStore.js';
import { writeFileDurably } from './writeFileDurably.js';

const MARK_FILE = /^time-mark-.*\.json$/;
const READ_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

interface FileMark extends StoredMark {
  readonly legacy: boolean;
}

export interface FileTimeMarkStoreOptions {
  /** `false`: no fsync (the mark survives the process, not the host). */
  durable?: boolean;
  /** `true` refuses (STATE_DIR_UNSAFE) another user's mark file. */
  ownedOnly?: boolean;
  /** The identity first-release files were written under. */
  adoptLegacy?: LegacyMarkAdoption;
  /** `false` for a directory the first release never wrote (host marks). */
  stateDir?: boolean;
}

/** Marks in JSON files with their {@link IdIdentity}; `read` gives the largest bounding this instance. */
export class FileTimeMarkStore implements TimeMarkStore {
  readonly durable: boolean;
  readonly path: string;

  constructor(
    private readonly dir: string,
    private readonly identity: IdIdentity,
    private readonly options: FileTimeMarkStoreOptions = {},
  ) {
    this.durable = options.durable ?? true;
    this.path = join(dir, markFileName(identity));
    io('create', dir, () => mkdirSync(dir, { recursive: true, mode: 0o700 }));
  }

  read(): number | undefined {
    const names = io('list', this.dir, () => readdirSync(this.dir));
    let markMs: number | undefined;
    for (const name of names.filter((n) => MARK_FILE.test(n)).sort()) {
      const path = join(this.dir, name);
      const read = this.#readFile(path);
      if (read === undefined) continue;
      const ours = read.identity.machine === this.identity.machine;
      const stored = read.legacy && ours ? this.#adopted(read) : read;
      if (!this.#bounds(stored)) continue;
      if (read.legacy && !stored.legacy) this.#rewrite(stored, path);
      markMs = Math.max(markMs ?? 0, stored.markMs);
    }
    return markMs;
  }

  write(markMs: number): void {
    this.#writeMark(this.path, markMs, this.identity);
  }

  #writeMark(path: string, markMs: number, identity: IdIdentity): void {
    const body = JSON.stringify({ markMs, mark: new Date(markMs).toISOString(), identity }) + '\n';
    io('write', path, () => writeFileDurably(path, body, this.durable));
  }

  /** {@link checkStoredMark}, naming `adoptLegacyMark` when a first-release file is refused. */
  #bounds(stored: FileMark): boolean {
    try {
      return checkStoredMark(stored, this.identity);
    } catch (error) {
      const legacy = stored.legacy && this.options.stateDir !== false;
      if (!legacy || !VestaError.is(error, 'STATE_MISMATCH')) throw error;
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

  #adopted(stored: FileMark): FileMark {
    const adopt = this.options.adoptLegacy;
    if (adopt === undefined) return stored;
    const type = stored.identity.type === 1 ? 1 : 0;
    let layout: IdMeta;
    try {
      layout = vestaLayout(type, adopt.layout as Partial<IdMetaWidths>);
    } catch (cause) {
      throw invalidOptions(
        `adoptLegacyMark.layout is no layout for ${stored.source} (type ${type}): ` +
          (cause instanceof Error ? cause.message : String(cause)),
        cause,
      );
    }
    const fixed = { ...stored.identity, version: adopt.version };
    const identity = identityOf(layout, adopt.epoch, fixed);
    return { ...stored, legacy: false, identity };
  }

  #rewrite(stored: StoredMark, legacyPath: string): void {
    const path = join(this.dir, markFileName(stored.identity));
    const current = this.#readFile(path);
    if (current === undefined || current.markMs < stored.markMs) {
      this.#writeMark(path, stored.markMs, stored.identity);
    }
    io('remove', legacyPath, () => unlinkSync(legacyPath));
  }

  #readFile(path: string): FileMark | undefined {
    const text = this.#readText(path);
    if (text === undefined) return undefined;
    const refused = (problem: string): VestaError =>
      new VestaError('STATE_DIR_UNAVAILABLE', `${path} ${problem}; refusing to guess`);
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      // Neither the parser's message nor the cause: both quote the file.
      throw refused('is not a time mark (not JSON)');
    }
    const markMs = body['markMs'];
    const identity = parseIdentity(body);
    const legacy = typeof body['identity'] !== 'object' || body['identity'] === null;
    if (!isWhole(markMs) || identity === undefined)
      throw refused('holds no valid markMs and identity');
    return { source: path, markMs, identity, legacy };
  }

  /** A mark file's text, or `undefined` once gone; non-blocking, as a planted FIFO would hang. */
  #readText(path: string): string | undefined {
    let fd: number;
    try {
      fd = openSync(path, READ_FLAGS);
    } catch (cause) {
      const code = (cause as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return undefined;
      if (code === 'ELOOP') throw unsafe(path, 'is a symbolic link');
      // Another user's file this one cannot open is refused as theirs, not as a failing disk.
      const problem = code === 'EACCES' || code === 'EPERM' ? this.#entryProblem(path) : undefined;
      if (problem !== undefined) throw unsafe(path, problem);
      throw unavailable('read', path, cause);
    }
    try {
      const problem = this.#fileProblem(io('read', path, () => fstatSync(fd)));
      if (problem !== undefined) throw unsafe(path, problem);
      return io('read', path, () => readFileSync(fd, 'utf8'));
    } finally {
      closeSync(fd);
    }
  }

  #entryProblem(path: string): string | undefined {
    try {
      return this.#fileProblem(lstatSync(path));
    } catch {
      return undefined;
    }
  }

  #fileProblem(stats: Stats): string | undefined {
    if (!stats.isFile()) return 'is not a regular file';
    return this.options.ownedOnly === true ? ownerProblem(stats, process.getuid?.()) : undefined;
  }
}

function unavailable(action: string, path: string, cause: unknown): VestaError {
  return new VestaError(
    'STATE_DIR_UNAVAILABLE',
    `cannot ${action} the time mark at ${path}: ${String(cause)}`,
    { cause },
  );
}

/** `fn`'s result, else STATE_DIR_UNAVAILABLE: it cannot `action` the time mark at `path`. */
function io<T>(action: string, path: string, fn: () => T): T {
  try {
    return fn();
  } catch (cause) {
    throw unavailable(action, path, cause);
  }
}

function unsafe(path: string, problem: string): VestaError {
  return new VestaError(
    'STATE_DIR_UNSAFE',
    `${path} ${problem}; it is not read. Remove it: a service writes its own marks as regular files, mode 0600`,
    { details: { path } },
  );
}

/** The mark file of an identity: readable fields, and a digest of the whole identity. */
function markFileName(identity: IdIdentity): string {
  const digest = identityDigest(identity).slice(0, 12);
  return `time-mark-g${identity.genMethod}-t${identity.type}-m${identity.machine}-${digest}.json`;
}

function isWhole(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** The identity a mark file was written under; a first-release file's epoch is unknown (NaN). */
function parseIdentity(body: Record<string, unknown>): IdIdentity | undefined {
  const recorded = body['identity'] as Record<string, unknown> | null | undefined;
  if (typeof recorded !== 'object' || recorded === null) {
    const { genMethod, type, machineId } = body;
    if (!isWhole(genMethod) || (type !== 0 && type !== 1) || !isWhole(machineId)) return undefined;
    return identityOf(standardLayout(type), NaN, { machine: machineId, genMethod, version: 0 });
  }
  const { layout, fields, epochMs, unitMs, machine, genMethod, type, version } = recorded;
  const rest = { epochMs, unitMs, machine, genMethod, type, version };
  if (typeof layout !== 'object' || layout === null || !Object.values(rest).every(isWhole)) {
    return undefined;
  }
  const identity = { layout, ...(Array.isArray(fields) && { fields }), ...rest } as IdIdentity;
  try {
    const meta = layoutOf(identity);
    return {
      ...identity,
      layout: meta.widths,
      ...(identity.fields && { fields: meta.spec.fields }),
    };
  } catch {
    return undefined;
  }
}

/**
 * Makes `path` a directory of this OS user's alone (mode 0700, never through a symlink), else
 * STATE_DIR_UNSAFE: another user who created it first could plant marks or steer our writes.
 */
export function ensurePrivateDir(path: string, hint: string): void {
  mkdirSync(dirname(path), { recursive: true });
  try {
    mkdirSync(path, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const problem = dirProblem(lstatSync(path), process.getuid?.(), true);
  if (problem !== undefined) {
    throw new VestaError(
      'STATE_DIR_UNSAFE',
      `${path} ${problem}; it is not used. Remove it, or ${hint}`,
      { details: { path } },
    );
  }
}

/** Why a directory is not this user's own; `strict`: open to no other user at all (0700). */
function dirProblem(stats: Stats, uid: number | undefined, strict: boolean): string | undefined {
  if (stats.isSymbolicLink()) return 'is a symbolic link';
  if (!stats.isDirectory()) return 'is not a directory';
  const problem = ownerProblem(stats, uid);
  if (problem !== undefined || (stats.mode & (strict ? 0o077 : 0o022)) === 0) return problem;
  const mode = (stats.mode & 0o777).toString(8).padStart(3, '0');
  return strict
    ? `is open to other users (mode 0${mode}, 0700 expected)`
    : `is writable by other users (mode 0${mode})`;
}

function ownerProblem(stats: Stats, uid: number | undefined): string | undefined {
  if (uid === undefined || stats.uid === uid) return undefined;
  return `is owned by uid ${stats.uid}, not by this process's user (uid ${uid})`;
}

const HINT = "set VESTA_HOST_MARKS_DIR to a directory of this user's alone (mode 0700)";

/**
 * The host mark of a service on the system clock: without fsync, best effort (one warning),
 * yet STATE_DIR_UNSAFE for what another user planted and STATE_MISMATCH for a repeating mark.
 */
export class HostTimeMarkStore implements TimeMarkStore {
  readonly durable = false;
  /** Undefined once the host mark cannot be kept. */
  #files: FileTimeMarkStore | undefined;
  readonly #logger: Logger;

  /** @param scope the host-lock scope: its marks go to a directory of its own under `root` */
  constructor(root: string, scope: string, identity: IdIdentity, logger: Logger) {
    this.#logger = logger;
    this.#files = this.#kept(() => {
      const dir = hostMarksDir(root, scope);
      ensurePrivateDir(root, HINT);
      ensurePrivateDir(dir, HINT);
      const options = { durable: false, ownedOnly: true, stateDir: false };
      return new FileTimeMarkStore(dir, identity, options);
    }, 'STATE_DIR_UNSAFE');
  }

  read(): number | undefined {
    return this.#kept(() => this.#files?.read(), 'STATE_MISMATCH', 'STATE_DIR_UNSAFE');
  }

  write(markMs: number): void {
    this.#kept(() => this.#files?.write(markMs));
  }

  /** `fn`'s result; a failure but of the codes `thrown` gives the host mark up (one warning). */
  #kept<T>(fn: () => T, ...thrown: VestaErrorCode[]): T | undefined {
    try {
      return fn();
    } catch (error) {
      if (thrown.some((code) => VestaError.is(error, code))) throw error;
      this.#files = undefined;
      this.#logger.warn(
        { err: error instanceof Error ? error.message : String(error) },
        'the host mark cannot be kept: a restart within the same time unit is covered by the state dir only',
      );
      return undefined;
    }
  }
}

/** What decides where host marks live; `process`'s own by default. */
export interface HostMarksPlace {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The OS user id; `undefined` where the platform has none (Windows). */
  readonly uid: number | undefined;
  readonly platform: NodeJS.Platform;
  /** Why a runtime directory cannot hold this user's marks. @default by its `lstat` */
  readonly runtimeDirProblem?: (path: string, uid: number | undefined) => string | undefined;
}

/** Why `$XDG_RUNTIME_DIR` is not this user's own (after `su` without `-` it is the first user's). */
function runtimeDirProblem(path: string, uid: number | undefined): string | undefined {
  let stats;
  try {
    stats = lstatSync(path);
  } catch (error) {
    return `cannot be examined (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
  }
  return dirProblem(stats, uid, false);
}

const THIS_PROCESS: HostMarksPlace = {
  env: process.env,
  uid: process.getuid?.(),
  platform: process.platform,
};

/**
 * Where this OS user's host marks live: `$VESTA_HOST_MARKS_DIR`; `/run/vesta` for root on Linux;
 * `$XDG_RUNTIME_DIR/vesta` when this user's own; else `<temp dir>/vesta-host-marks-<uid>`.
 */
export function hostMarksRoot(place: HostMarksPlace = THIS_PROCESS, logger?: Logger): string {
  const configured = place.env['VESTA_HOST_MARKS_DIR'];
  if (configured !== undefined && configured !== '') return configured;
  if (place.uid === 0 && place.platform === 'linux') return '/run/vesta';
  const fallback = join(tmpdir(), `vesta-host-marks-${String(place.uid ?? 'user')}`);
  const runtime = place.env['XDG_RUNTIME_DIR'];
  if (runtime === undefined || !isAbsolute(runtime)) return fallback;
  const problem = (place.runtimeDirProblem ?? runtimeDirProblem)(runtime, place.uid);
  if (problem === undefined) return join(runtime, 'vesta');
  logger?.warn(
    { path: runtime, problem, hostMarksDir: fallback },
    `XDG_RUNTIME_DIR ${runtime} ${problem}: it is not used for the host marks, which go to ${fallback} (set VESTA_HOST_MARKS_DIR to choose)`,
  );
  return fallback;
}

export function hostMarksDir(root: string, scope: string): string {
  return join(root, createHash('sha256').update(scope).digest('hex').slice(0, 16));
}
