import { createHash } from 'node:crypto';
import { unlinkSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VestaError } from '../errors/VestaError.js';

/** A host-wide lock, held until released or until the process dies. */
export interface HostLock {
  /** The lock's name, for messages. */
  readonly name: string;
  release(): Promise<void>;
}

/** The size of `sun_path` on Linux, the longest address of a Unix socket. */
const SUN_PATH_BYTES = 108;

const ON_BUN = 'Bun' in globalThis;

/**
 * Whether a process of the other kind (Bun for Node and Deno, Node or Deno for Bun) holds the
 * abstract lock `name` under its own address length, as `/proc/net/unix` lists bound sockets (an
 * abstract name with its NULs shown as `@`). Each side binds its own address first and looks
 * second, so of two starting at once at least one sees the other. A list that cannot be read
 * finds nothing (the lock still keeps out its own kind).
 */
async function heldByOtherRuntime(name: string): Promise<boolean> {
  const other = lockAddress(name, ON_BUN ? SUN_PATH_BYTES : SUN_PATH_BYTES - 1).replaceAll(
    '\0',
    '@',
  );
  const listed = await readFile('/proc/net/unix', 'latin1').catch(() => '');
  return listed.split('\n').some((line) => line.endsWith(` ${other}`));
}

/**
 * Where a lock lives: on Linux an abstract Unix socket (no file; the kernel frees the name when
 * the process dies, even by SIGKILL); on Windows a named pipe; elsewhere a socket file in the
 * temp dir, taken over when no process answers on it.
 *
 * An abstract name is its bytes up to the address length the runtime passes the kernel: Node
 * (libuv) passes the whole `sun_path`, the name padded with NULs, and Deno the string as given,
 * so the name is padded here and both take the same lock. Bun refuses an address of the whole
 * `sun_path` (EINVAL), so its name is one NUL shorter, and each side looks for the other's in
 * `/proc/net/unix` once it holds its own ({@link heldByOtherRuntime}).
 */
function lockAddress(name: string, bytes = ON_BUN ? SUN_PATH_BYTES - 1 : SUN_PATH_BYTES): string {
  const digest = createHash('sha256').update(name).digest('hex').slice(0, 32);
  if (process.platform === 'linux') return `\0vesta-lock-${digest}`.padEnd(bytes, '\0');
  if (process.platform === 'win32') return `\\\\?\\pipe\\vesta-lock-${digest}`;
  return join(tmpdir(), `vesta-lock-${digest}.sock`);
}

function listen(server: Server, address: string): Promise<NodeJS.ErrnoException | undefined> {
  return new Promise((resolve) => {
    const onError = (error: NodeJS.ErrnoException): void => resolve(error);
    server.once('error', onError);
    // exclusive: in a node:cluster worker a plain listen is handed to the primary, which shares
    // one socket among every worker, so a second worker on the same machine id would "get" the
    // lock too; an exclusive listen is the worker's own.
    server.listen({ path: address, exclusive: true }, () => {
      server.off('error', onError);
      resolve(undefined);
    });
  });
}

/** Whether a process answers on a socket file (a stale one, left by a dead process, refuses). */
function answers(address: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(address);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** MACHINE_ID_IN_USE: a live instance (`which`: what it runs under, when told) holds lock `name`. */
function inUse(name: string, holder: string, which: string): VestaError {
  return new VestaError(
    'MACHINE_ID_IN_USE',
    `another live instance on this host${which} already issues ids as ${holder}; ` +
      'two instances on one machine id would issue the same ids. Give each instance its own machine id.',
    { details: { lock: name } },
  );
}

/**
 * Takes the host-wide lock `name`, or fails with MACHINE_ID_IN_USE when a live process (this
 * one included) holds it. The lock keeps no event loop alive.
 */
export async function acquireHostLock(name: string, holder: string): Promise<HostLock> {
  const address = lockAddress(name);
  const server = createServer((socket) => socket.destroy());
  let error = await listen(server, address);
  if (
    error?.code === 'EADDRINUSE' &&
    process.platform !== 'linux' &&
    process.platform !== 'win32' &&
    !(await answers(address))
  ) {
    unlinkSync(address);
    error = await listen(server, address);
  }
  if (error !== undefined) {
    if (error.code === 'EADDRINUSE') {
      throw inUse(name, holder, '');
    }
    throw new VestaError('INTERNAL_ERROR', `cannot take the host lock ${name}: ${error.message}`, {
      cause: error,
    });
  }
  if (process.platform === 'linux' && (await heldByOtherRuntime(name))) {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    throw inUse(name, holder, ON_BUN ? ' (under Node or Deno)' : ' (under Bun)');
  }
  server.unref();
  return {
    name,
    release: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
      }),
  };
}
