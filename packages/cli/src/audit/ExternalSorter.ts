import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VestaError } from '@vesta/core';

export interface ExternalSorterOptions {
  /** Width of the values: 64 (ids) or 128 (UUIDs). */
  readonly bits: 64 | 128;
  /** Values sorted in memory per run file (8 bytes each at 64 bits, ~40 at 128). @default 1000000 */
  readonly runSize?: number;
  /** Where the run files go (in a fresh directory, removed by `close`). @default os.tmpdir() */
  readonly tempDir?: string;
  /** Most run files merged at once; more are merged in passes first. @default 64 */
  readonly fanIn?: number;
}

/** Values read from, or buffered for, a run file at a time. */
const CHUNK = 8192;

const compare = (a: bigint, b: bigint): number => (a < b ? -1 : a > b ? 1 : 0);

/** The values of a run file in order, read a chunk at a time. */
class RunReader {
  current: bigint | undefined;
  readonly #fd: number;
  readonly #chunk: BigUint64Array;
  readonly #bytes: Uint8Array;
  #at = 0;
  #end = 0;

  constructor(
    path: string,
    private readonly words: 1 | 2,
  ) {
    this.#fd = openSync(path, 'r');
    this.#chunk = new BigUint64Array(CHUNK * words);
    this.#bytes = new Uint8Array(this.#chunk.buffer);
    this.advance();
  }

  /** Moves `current` to the next value; undefined (and the file closed) at the end. */
  advance(): void {
    if (this.#at === this.#end) {
      this.#end = readSync(this.#fd, this.#bytes, 0, this.#bytes.length, null) / 8;
      this.#at = 0;
      if (this.#end === 0) {
        this.current = undefined;
        closeSync(this.#fd);
        return;
      }
    }
    const chunk = this.#chunk;
    const at = this.#at;
    this.current =
      this.words === 1
        ? (chunk[at] as bigint)
        : ((chunk[at] as bigint) << 64n) | (chunk[at + 1] as bigint);
    this.#at = at + this.words;
  }
}

/** Writes values to a run file a chunk at a time (as native-endian u64 words, high word first). */
class RunWriter {
  bytes = 0;
  readonly #fd: number;
  readonly #chunk: BigUint64Array;
  #at = 0;

  constructor(
    path: string,
    private readonly words: 1 | 2,
  ) {
    this.#fd = openSync(path, 'w');
    this.#chunk = new BigUint64Array(CHUNK * words);
  }

  push(value: bigint): void {
    if (this.words === 1) this.#chunk[this.#at++] = value;
    else {
      this.#chunk[this.#at++] = value >> 64n;
      this.#chunk[this.#at++] = BigInt.asUintN(64, value);
    }
    if (this.#at === this.#chunk.length) this.#flush();
  }

  /** Writes sorted 64-bit values at once (a whole run). */
  write(values: BigUint64Array): void {
    this.#flush();
    writeSync(this.#fd, new Uint8Array(values.buffer, values.byteOffset, values.byteLength));
    this.bytes += values.byteLength;
  }

  close(): void {
    this.#flush();
    closeSync(this.#fd);
  }

  #flush(): void {
    const length = this.#at * 8;
    if (length > 0) writeSync(this.#fd, new Uint8Array(this.#chunk.buffer, 0, length));
    this.bytes += length;
    this.#at = 0;
  }
}

/** A min-heap of run readers by their current value: the k-way merge. */
function* merge(readers: RunReader[]): Generator<bigint> {
  // Only readers with a current value stand in the heap.
  const heap = readers.filter((reader) => reader.current !== undefined);
  const less = (i: number, j: number): boolean =>
    ((heap[i] as RunReader).current as bigint) < ((heap[j] as RunReader).current as bigint);
  const down = (from: number): void => {
    for (let i = from; ;) {
      const left = 2 * i + 1;
      let least = i;
      if (left < heap.length && less(left, least)) least = left;
      if (left + 1 < heap.length && less(left + 1, least)) least = left + 1;
      if (least === i) return;
      [heap[i], heap[least]] = [heap[least] as RunReader, heap[i] as RunReader];
      i = least;
    }
  };
  for (let i = (heap.length >> 1) - 1; i >= 0; i--) down(i);
  while (heap.length > 0) {
    const top = heap[0] as RunReader;
    yield top.current as bigint;
    top.advance();
    if (top.current === undefined) {
      const last = heap.pop() as RunReader;
      if (heap.length === 0) return;
      heap[0] = last;
    }
    down(0);
  }
}

/**
 * An external merge sort of unsigned 64- or 128-bit values: runs of `runSize` on disk, merged
 * `fanIn` at once through a min-heap. One use: `add` all, read `sorted()` once, `close()`.
 */
export class ExternalSorter {
  readonly #words: 1 | 2;
  readonly #runSize: number;
  readonly #fanIn: number;
  readonly #tempDir: string;
  #dir: string | undefined;
  #ids: BigUint64Array;
  #wide: bigint[] = [];
  #length = 0;
  readonly #runs: string[] = [];
  #runsWritten = 0;
  #tempBytes = 0;

  constructor(options: ExternalSorterOptions) {
    this.#words = options.bits === 64 ? 1 : 2;
    this.#runSize = options.runSize ?? 1_000_000;
    this.#fanIn = options.fanIn ?? 64;
    for (const [name, value, min] of [
      ['runSize', this.#runSize, 1],
      ['fanIn', this.#fanIn, 2],
    ] as const) {
      if (!Number.isSafeInteger(value) || value < min) {
        throw new VestaError(
          'INVALID_OPTIONS',
          `${name} must be a whole number from ${min}, got ${value}`,
        );
      }
    }
    this.#tempDir = options.tempDir ?? tmpdir();
    this.#ids = new BigUint64Array(this.#words === 1 ? Math.min(this.#runSize, CHUNK) : 0);
  }

  add(value: bigint): void {
    if (this.#words === 1) {
      if (this.#length === this.#ids.length) this.#grow();
      this.#ids[this.#length] = value;
    } else this.#wide.push(value);
    if (++this.#length === this.#runSize) this.#spill();
  }

  /** Every value added, in ascending order (duplicates kept). */
  *sorted(): Generator<bigint> {
    if (this.#runs.length === 0) {
      if (this.#words === 1) yield* this.#ids.subarray(0, this.#length).sort();
      else yield* this.#wide.sort(compare);
      return;
    }
    this.#spill();
    this.#ids = new BigUint64Array(0);
    while (this.#runs.length > this.#fanIn) {
      const merged = this.#runs.splice(0, this.#fanIn);
      const writer = this.#newRun();
      for (const value of merge(merged.map((path) => new RunReader(path, this.#words))))
        writer.push(value);
      writer.close();
      this.#tempBytes += writer.bytes;
      for (const path of merged) rmSync(path, { force: true });
    }
    yield* merge(this.#runs.map((path) => new RunReader(path, this.#words)));
  }

  /** Run files written (merge passes included), and their bytes. */
  stats() {
    return { runs: this.#runsWritten, tempBytes: this.#tempBytes };
  }

  close(): void {
    process.removeListener('exit', this.#removeDir);
    this.#removeDir();
  }

  /** Doubles the typed array up to `runSize`: small inputs never hold a whole run's memory. */
  #grow(): void {
    const grown = new BigUint64Array(Math.min(this.#runSize, this.#ids.length * 2));
    grown.set(this.#ids);
    this.#ids = grown;
  }

  #spill(): void {
    if (this.#length === 0) return;
    const writer = this.#newRun();
    if (this.#words === 1) writer.write(this.#ids.subarray(0, this.#length).sort());
    else for (const value of this.#wide.sort(compare)) writer.push(value);
    writer.close();
    this.#tempBytes += writer.bytes;
    this.#wide = [];
    this.#length = 0;
  }

  readonly #removeDir = (): void => {
    if (this.#dir !== undefined) rmSync(this.#dir, { recursive: true, force: true });
  };

  #newRun(): RunWriter {
    if (this.#dir === undefined) {
      try {
        this.#dir = mkdtempSync(join(this.#tempDir, 'vesta-audit-'));
      } catch (error) {
        throw new VestaError(
          'INVALID_ARGUMENT',
          `cannot write the sort's run files under ${this.#tempDir} (--temp-dir): ${(error as Error).message}`,
          { cause: error },
        );
      }
      // A process that exits before `close` (process.exit on a signal) leaves no run files.
      process.once('exit', this.#removeDir);
    }
    const path = join(this.#dir, `run-${this.#runsWritten++}`);
    this.#runs.push(path);
    return new RunWriter(path, this.#words);
  }
}
