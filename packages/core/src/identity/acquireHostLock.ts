import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { unlinkSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VestaError } from '../errors/VestaError.js';

/** A host-wide lock, held until released or until the process dies. */
export interface HostLock {
  readonly name: string;
  release(): Promise<void>;
}

const SUN_PATH_BYTES = 108; // Linux's sun_path

const ON_BUN = 'Bun' in globalThis;

/**
 * Whether the other runtime (Bun, or Node/Deno for Bun) holds lock `name`, as `/proc/net/unix`
 * lists it. Each side binds, then looks: of two starting at once, one sees the other.
 */
async function heldByOtherRuntime(name: string): Promise<boolean> {
  const bytes = ON_BUN ? SUN_PATH_BYTES : SUN_PATH_BYTES - 1;
  const other = lockAddress(name, bytes).replaceAll('\0', '@');
  const listed = await readFile('/proc/net/unix', 'latin1').catch(() => '');
  return listed.split('\n').some((line) => line.endsWith(` ${other}`));
}

/**
 * Where a lock lives: on Linux an abstract socket (freed when the process dies), padded to the
 * whole `sun_path` as Node passes it (one NUL shorter on Bun, which refuses that); on Windows a
 * named pipe; elsewhere a socket file, taken over when no process answers on it.
 */
function lockAddress(name: string, bytes = ON_BUN ? SUN_PATH_BYTES - 1 : SUN_PATH_BYTES): string {
  const digest = createHash('sha256').update(name).digest('hex').slice(0, 32);
  if (process.platform === 'linux') return `\0vesta-lock-${digest}`.padEnd(bytes, '\0');
  if (process.platform === 'win32') return `\\\\?\\pipe\\vesta-lock-${digest}`;
  return join(tmpdir(), `vesta-lock-${digest}.sock`);
}

function listen(server: Server, address: string): Promise<NodeJS.ErrnoException | undefined> {
  // exclusive: in a node:cluster worker a plain listen is shared through the primary.
  server.listen({ path: address, exclusive: true });
  const failed = (error: NodeJS.ErrnoException): NodeJS.ErrnoException => error;
  return once(server, 'listening').then(() => undefined, failed);
}

async function answers(address: string): Promise<boolean> {
  const socket = connect(address);
  const answered = await once(socket, 'connect')
    .then(() => true)
    .catch(() => false);
  socket.destroy();
  return answered;
}

function inUse(name: string, holder: string, which: string): VestaError {
  return new VestaError(
    'MACHINE_ID_IN_USE',
    `another live instance on this host${which} already issues ids as ${holder}; ` +
      'two instances on one machine id would issue the same ids. Give each instance its own machine id.',
    { details: { lock: name } },
  );
}

/** Takes the host-wide lock `name`, or MACHINE_ID_IN_USE when a live process holds it. */
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
    if (error.code === 'EADDRINUSE') throw inUse(name, holder, '');
    throw new VestaError('INTERNAL_ERROR', `cannot take the host lock ${name}: ${error.message}`, {
      cause: error,
    });
  }
  const release = (): Promise<void> => new Promise((resolve) => server.close(() => resolve()));
  if (process.platform === 'linux' && (await heldByOtherRuntime(name))) {
    await release();
    throw inUse(name, holder, ON_BUN ? ' (under Node or Deno)' : ' (under Bun)');
  }
  server.unref();
  return { name, release };
}
