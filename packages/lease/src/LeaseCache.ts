import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { VestaError, type MachineIdRange } from '@vesta/core';
import { writeFileDurably } from '@vesta/core/kit';
import { z } from 'zod';
import type { ResolvedLeaseOptions } from './LeaseOptions.js';

const cachedLeaseSchema = z.object({
  root: z.string(),
  key: z.string(),
  machineId: z.int(),
  markMs: z.int(),
  confirmedAtMs: z.int(),
  /** Absent in caches of older versions. */
  era: z.string().exactOptional(),
});

/** The last lease a coordinator confirmed (this host's clock), as kept in the state directory. */
export type CachedLease = Readonly<z.output<typeof cachedLeaseSchema>>;

/** The instance key (`<files>-key`) and the last lease per root, written atomically and fsynced. */
export class LeaseCache {
  readonly #dir: string;
  readonly #leasePath: string;
  readonly #keyPath: string;

  constructor(dir: string, coordinator: string, root: string) {
    this.#dir = dir;
    this.#keyPath = join(dir, `${coordinator}-key`);
    this.#leasePath = join(dir, `${coordinator}-lease${root.replaceAll('/', '_')}.json`);
  }

  key(): string {
    const existing = readText(this.#keyPath)?.trim();
    if (existing !== undefined && existing !== '') return existing;
    const key = `${hostname()}/${randomUUID()}`;
    this.#write(this.#keyPath, `${key}\n`);
    return key;
  }

  read(): CachedLease | undefined {
    const text = readText(this.#leasePath);
    if (text === undefined) return undefined;
    try {
      const read = cachedLeaseSchema.safeParse(JSON.parse(text));
      return read.success ? read.data : undefined;
    } catch {
      return undefined; // a torn or foreign file is no cache
    }
  }

  write(lease: CachedLease): void {
    const body = { ...lease, mark: new Date(lease.markMs).toISOString() };
    this.#write(this.#leasePath, `${JSON.stringify(body)}\n`);
  }

  #write(path: string, body: string): void {
    try {
      mkdirSync(this.#dir, { recursive: true, mode: 0o700 });
      writeFileDurably(path, body);
    } catch (cause) {
      throw unavailable(path, cause);
    }
  }
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw unavailable(path, cause);
  }
}

function unavailable(path: string, cause: unknown): VestaError {
  return new VestaError('STATE_DIR_UNAVAILABLE', `cannot use ${path}: ${String(cause)}`, { cause });
}

type Limits = 'reclaimAfterMs' | 'fenceAfterMs' | 'maxClockSkewMs' | 'maxClockWaitMs';

export interface CachedLeaseFallbackInput extends Pick<ResolvedLeaseOptions, Limits> {
  readonly fallbackToCache: boolean;
  readonly cache: { read(): CachedLease | undefined } | undefined;
  readonly key: string;
  readonly root: string;
  readonly range: MachineIdRange;
  readonly nowMs: number;
  /** One time unit of the requested id type (ms). */
  readonly unitMs: number;
}

/**
 * Start on the cached lease (valid until `validUntilMs`), or refuse (why, or the clock): only while
 * nobody can have reclaimed it, as a reclaim needs the mark (up to `fenceAfterMs` past the
 * confirmation) to have aged `reclaimAfterMs` on the coordinator's clock.
 */
export function cachedLeaseFallback(input: CachedLeaseFallbackInput) {
  const refuse = (why: string) => ({ use: false as const, why });
  if (!input.fallbackToCache) return refuse('fallbackToCache is off');
  if (input.cache === undefined) return refuse('no stateDir holds a cached lease');
  const cached = input.cache.read();
  if (cached === undefined || cached.key !== input.key || cached.root !== input.root)
    return refuse('the state dir holds no lease for this key');
  const { min, max } = input.range;
  if (cached.machineId < min || cached.machineId > max)
    return refuse(`the cached machine id ${cached.machineId} is outside ${min}-${max}`);
  const validUntilMs =
    cached.confirmedAtMs + input.reclaimAfterMs - input.fenceAfterMs - input.maxClockSkewMs;
  if (input.nowMs >= validUntilMs) {
    return refuse(
      `the cached lease (confirmed ${new Date(cached.confirmedAtMs).toISOString()}) is too old to be safe: the id may have been reclaimed`,
    );
  }
  const notBeforeMs = cached.markMs + input.unitMs;
  const gapMs = notBeforeMs - input.nowMs;
  if (gapMs > input.maxClockWaitMs) return { use: false as const, clockBehind: { gapMs, cached } };
  return { use: true as const, cached, validUntilMs, notBeforeMs };
}
