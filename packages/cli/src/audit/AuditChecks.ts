import {
  EMBEDDED_MACHINE_ID_RANGE,
  GenMethod,
  SERVER_MACHINE_ID_RANGE,
  type MachineIdRange,
  type MachineIdRanges,
} from '@vesta/core';
import { auditedIdText, type AuditedId } from './AuditedId.js';
import { Findings, type FindingsReport } from './Findings.js';

/** What {@link AuditChecks} checks each value against. */
export interface AuditCheckOptions {
  /** The epoch of the ids' layout, in Unix ms: a Vesta UUIDv7 of an earlier time is a finding. */
  readonly epochMs: number;
  /** Now, in Unix ms. */
  readonly nowMs: number;
  /** How far past `nowMs` a time may lie (clock skew between hosts) before it is a finding. */
  readonly futureToleranceMs: number;
  /** Examples kept per kind of finding. */
  readonly examples: number;
  /**
   * The machine ids each genMethod issues under in the ids' layout; undefined for a layout
   * without a genMethod field, where an embedded id cannot be told from a server's.
   */
  readonly idRanges: MachineIdRanges | undefined;
}

/** A line that holds no id of the layout, nor a UUID. */
export interface UnparseableLine {
  readonly line: number;
  /** The line, cut to 64 characters. */
  readonly text: string;
  readonly reason: string;
}

/** A value whose time is past now (beyond the tolerance) or before the epoch. */
export interface MisdatedId {
  readonly line: number;
  readonly id: string;
  readonly date: string;
}

/** A value whose machine id lies outside its genMethod's range. */
export interface MisplacedMachineId {
  readonly line: number;
  readonly id: string;
  readonly machine: number;
  readonly genMethod: number;
  /** The range of its genMethod (`0-923`), or `none` for genMethod 3, which no issuer uses. */
  readonly range: string;
}

/** A value lower than the one before it from the same issuer, in input order. */
export interface OrderBreak {
  readonly line: number;
  readonly id: string;
  readonly machine: number;
  readonly genMethod: number;
  readonly previousLine: number;
  readonly previous: string;
}

/** One issuer's values in the input: those of one kind, machine id and genMethod. */
export interface IssuerReport {
  readonly kind: AuditedId['kind'];
  readonly machine: number;
  readonly genMethod: number;
  readonly count: number;
  /** The earliest and the latest time among its values (ISO 8601). */
  readonly first: string;
  readonly last: string;
  /** `count` over the span from `first` to `last`, at least one second; two decimals. */
  readonly idsPerSecond: number;
  readonly orderBreaks: number;
}

interface IssuerState {
  readonly kind: AuditedId['kind'];
  readonly machine: number;
  readonly genMethod: number;
  count: number;
  firstMs: number;
  lastMs: number;
  previous: bigint;
  previousLine: number;
  orderBreaks: number;
}

/** What {@link AuditChecks} found, for the report. */
export interface AuditCheckReport {
  readonly ids: number;
  readonly uuids: number;
  readonly future: FindingsReport<MisdatedId>;
  readonly beforeEpoch: FindingsReport<MisdatedId>;
  readonly machineOutOfRange: FindingsReport<MisplacedMachineId>;
  readonly unparseable: FindingsReport<UnparseableLine>;
  readonly orderBreaks: FindingsReport<OrderBreak>;
  /** By kind, genMethod and machine id. */
  readonly machines: readonly IssuerReport[];
}

/** Vesta's split, which Vesta UUIDv7s always follow (their machine field is 16 bits wide). */
const VESTA_RANGES: MachineIdRanges = {
  embedded: EMBEDDED_MACHINE_ID_RANGE,
  server: SERVER_MACHINE_ID_RANGE,
};

function rangeOf(ranges: MachineIdRanges, genMethod: number): MachineIdRange | undefined {
  if (genMethod === GenMethod.EMBEDDED) return ranges.embedded;
  if (genMethod === GenMethod.CENTRAL_SERVER || genMethod === GenMethod.REST) return ranges.server;
  return undefined;
}

/**
 * The checks of `vesta audit` that read one value at a time, in input order: its time against
 * now and the epoch, its machine id against its genMethod's range, its order among the values
 * of its issuer; and each issuer's count and time span. Memory: one small record per issuer
 * (kind, machine id, genMethod), and the examples.
 */
export class AuditChecks {
  readonly #future: Findings<MisdatedId>;
  readonly #beforeEpoch: Findings<MisdatedId>;
  readonly #machine: Findings<MisplacedMachineId>;
  readonly #unparseable: Findings<UnparseableLine>;
  readonly #order: Findings<OrderBreak>;
  readonly #issuers = new Map<number, IssuerState>();
  readonly #latestMs: number;
  #ids = 0;
  #uuids = 0;

  constructor(private readonly options: AuditCheckOptions) {
    this.#future = new Findings(options.examples);
    this.#beforeEpoch = new Findings(options.examples);
    this.#machine = new Findings(options.examples);
    this.#unparseable = new Findings(options.examples);
    this.#order = new Findings(options.examples);
    this.#latestMs = options.nowMs + options.futureToleranceMs;
  }

  /** Counts a line that holds no value, with the reason. */
  unparseable(line: number, text: string, reason: string): void {
    this.#unparseable.add(() => ({ line, text: text.slice(0, 64), reason }));
  }

  /** Checks one value, read from line `line`. */
  check(id: AuditedId, line: number): void {
    if (id.kind === 'id') this.#ids++;
    else this.#uuids++;
    const { unixMs, machine, genMethod } = id;
    if (unixMs !== undefined) this.#checkTime(id, unixMs, line);
    if (machine === undefined || genMethod === undefined || unixMs === undefined) return;
    const ranges = id.kind === 'id' ? this.options.idRanges : VESTA_RANGES;
    const range = ranges === undefined ? null : rangeOf(ranges, genMethod);
    if (range !== null && (range === undefined || machine < range.min || machine > range.max)) {
      this.#machine.add(() => ({
        line,
        id: auditedIdText(id.kind, id.value),
        machine,
        genMethod,
        range: range === undefined ? 'none' : `${range.min}-${range.max}`,
      }));
    }
    this.#countIssuer(id, machine, genMethod, unixMs, line);
  }

  /** What was found. */
  report(): AuditCheckReport {
    const machines = [...this.#issuers.values()]
      .sort((a, b) =>
        a.kind !== b.kind
          ? a.kind < b.kind
            ? -1
            : 1
          : a.genMethod - b.genMethod || a.machine - b.machine,
      )
      .map(({ kind, machine, genMethod, count, firstMs, lastMs, orderBreaks }): IssuerReport => ({
        kind,
        machine,
        genMethod,
        count,
        first: new Date(firstMs).toISOString(),
        last: new Date(lastMs).toISOString(),
        idsPerSecond: Math.round((count / Math.max(1, (lastMs - firstMs) / 1000)) * 100) / 100,
        orderBreaks,
      }));
    return {
      ids: this.#ids,
      uuids: this.#uuids,
      future: this.#future.report(),
      beforeEpoch: this.#beforeEpoch.report(),
      machineOutOfRange: this.#machine.report(),
      unparseable: this.#unparseable.report(),
      orderBreaks: this.#order.report(),
      machines,
    };
  }

  #checkTime(id: AuditedId, unixMs: number, line: number): void {
    const example = (): MisdatedId => ({
      line,
      id: auditedIdText(id.kind, id.value),
      date: new Date(unixMs).toISOString(),
    });
    if (unixMs > this.#latestMs) this.#future.add(example);
    // An id's time counts from the epoch, so only a Vesta UUIDv7 (Unix ms) can lie before it.
    else if (unixMs < this.options.epochMs && id.machine !== undefined) {
      this.#beforeEpoch.add(example);
    }
  }

  #countIssuer(
    id: AuditedId,
    machine: number,
    genMethod: number,
    unixMs: number,
    line: number,
  ): void {
    const key = (machine * 4 + genMethod) * 2 + (id.kind === 'id' ? 0 : 1);
    const issuer = this.#issuers.get(key);
    if (issuer === undefined) {
      this.#issuers.set(key, {
        ...{ kind: id.kind, machine, genMethod, count: 1, firstMs: unixMs, lastMs: unixMs },
        ...{ previous: id.value, previousLine: line, orderBreaks: 0 },
      });
      return;
    }
    issuer.count++;
    if (unixMs < issuer.firstMs) issuer.firstMs = unixMs;
    if (unixMs > issuer.lastMs) issuer.lastMs = unixMs;
    if (id.value < issuer.previous) {
      issuer.orderBreaks++;
      const { previous, previousLine } = issuer;
      this.#order.add(() => ({
        line,
        id: auditedIdText(id.kind, id.value),
        machine,
        genMethod,
        previousLine,
        previous: auditedIdText(id.kind, previous),
      }));
    }
    issuer.previous = id.value;
    issuer.previousLine = line;
  }
}
