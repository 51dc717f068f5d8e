import { type IdConverter, machineIdRanges, VestaError } from '@vesta/core';
import { wholeNumber } from '@vesta/core/kit';
import type { IdFormValues } from '../idText.js';
import { AuditChecks } from './AuditChecks.js';
import { auditedIdText, AuditedIdReader, type AuditedId } from './AuditedIdReader.js';
import type { DuplicateExample } from './AuditReport.js';
import { ExternalSorter } from './ExternalSorter.js';
import type { IdLineSource } from './idLines.js';
import type { LeaseCoverage } from './LeaseCoverage.js';

/** How `vesta audit` reads and checks its values. */
export interface AuditOptions {
  readonly codec: IdConverter;
  /** The form of the ids (UUIDs are read in any form). */
  readonly how: IdFormValues;
  readonly nowMs: number;
  /** {@link AUDIT_NUMBERS} fills these in. */
  readonly futureToleranceMs?: number;
  readonly examples?: number;
  /** 64-bit ids sorted in memory per run file (UUIDs: a quarter of it). */
  readonly runSize?: number;
  readonly tempDir?: string;
  readonly leases?: LeaseCoverage;
}

/** The audit's numbers, declared once: their flags and their defaults here. */
export const AUDIT_NUMBERS = {
  futureToleranceMs: wholeNumber(0, 999_999_999)
    .default(60_000)
    .describe('how far past now a time may lie (clock skew)'),
  examples: wholeNumber(0, 10_000).default(10).describe('examples shown per kind of finding'),
  runSize: wholeNumber(1, 100_000_000)
    .default(1_000_000)
    .describe('ids sorted in memory per run file (8 bytes each)'),
};

/** Values counted between two turns of the event loop, so that a signal stops a long merge. */
const SLICE = 1 << 20;

/** The repeats of `sorted` (ascending): `count` copies beyond the first, of `distinct` values. */
export async function countDuplicates(sorted: Iterable<bigint>, max: number) {
  let count = 0;
  let distinct = 0;
  const examples: { value: bigint; times: number }[] = [];
  let previous: bigint | undefined;
  let times = 0;
  const close = (): void => {
    if (times < 2) return;
    count += times - 1;
    distinct++;
    if (examples.length < max) examples.push({ value: previous as bigint, times });
  };
  let slice = SLICE;
  for (const value of sorted) {
    if (--slice === 0) {
      slice = SLICE;
      await new Promise(setImmediate);
    }
    if (value === previous) {
      times++;
      continue;
    }
    close();
    previous = value;
    times = 1;
  }
  close();
  return { count, distinct, examples };
}

/** Lines kept per duplicate example, on the second reading of a file. */
const MAX_LINES = 10;

/** Audits `source` in one pass of checks while an external sort finds the duplicates (memory bounded). */
export async function runAudit(source: IdLineSource, options: AuditOptions) {
  const { codec, how } = options;
  const examples = AUDIT_NUMBERS.examples.parse(options.examples);
  const runSize = AUDIT_NUMBERS.runSize.parse(options.runSize);
  const reader = new AuditedIdReader(codec, how);
  const checks = new AuditChecks({
    epochMs: codec.epochMs,
    nowMs: options.nowMs,
    futureToleranceMs: AUDIT_NUMBERS.futureToleranceMs.parse(options.futureToleranceMs),
    examples,
    idRanges: codec.layout.genMethod.bits > 0 ? machineIdRanges(codec.layout.widths) : undefined,
    ...(options.leases === undefined ? {} : { leases: options.leases }),
  });
  const where = options.tempDir === undefined ? {} : { tempDir: options.tempDir };
  const sorters = {
    id: new ExternalSorter({ bits: 64, runSize, ...where }),
    uuid: new ExternalSorter({
      bits: 128,
      runSize: Math.max(1, Math.floor(runSize / 4)),
      ...where,
    }),
  };
  try {
    await source.read((text, line) => {
      let id: AuditedId;
      try {
        id = reader.read(text);
      } catch (error) {
        if (!VestaError.is(error)) throw error;
        checks.unparseable(line, text, error.message);
        return;
      }
      checks.check(id, line);
      sorters[id.kind].add(id.value);
    });
    const found = {
      id: await countDuplicates(sorters.id.sorted(), examples),
      uuid: await countDuplicates(sorters.uuid.sorted(), examples),
    };
    const duplicates: DuplicateExample[] = (['id', 'uuid'] as const)
      .flatMap((kind) =>
        found[kind].examples.map(({ value, times }) => ({ id: auditedIdText(kind, value), times })),
      )
      .slice(0, examples);
    const { ids, uuids, ...checked } = checks.report();
    const stats = [sorters.id.stats(), sorters.uuid.stats()];
    return {
      report: {
        source: source.name,
        layout: codec.layout.name ?? 'custom',
        epoch: new Date(codec.epochMs).toISOString(),
        count: ids + uuids,
        ids,
        uuids,
        duplicates: {
          count: found.id.count + found.uuid.count,
          distinct: found.id.distinct + found.uuid.distinct,
          examples: source.rereadable ? await withLines(source, reader, duplicates) : duplicates,
        },
        ...checked,
      },
      sort: {
        runs: stats.reduce((sum, s) => sum + s.runs, 0),
        tempBytes: stats.reduce((sum, s) => sum + s.tempBytes, 0),
      },
    };
  } finally {
    sorters.id.close();
    sorters.uuid.close();
  }
}

/** The duplicate examples with the lines they stand on: `source` read once more. */
async function withLines(
  source: IdLineSource,
  reader: AuditedIdReader,
  duplicates: readonly DuplicateExample[],
): Promise<DuplicateExample[]> {
  if (duplicates.length === 0) return [];
  const lines = new Map(duplicates.map(({ id }) => [id, [] as number[]]));
  await source.read((text, line) => {
    let id: AuditedId;
    try {
      id = reader.read(text);
    } catch {
      return;
    }
    const found = lines.get(auditedIdText(id.kind, id.value));
    if (found !== undefined && found.length < MAX_LINES) found.push(line);
  });
  return duplicates.map((example) => ({ ...example, lines: lines.get(example.id) ?? [] }));
}
