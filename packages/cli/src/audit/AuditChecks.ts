import { GenMethod, type MachineIdRange, type MachineIdRanges } from '@vesta/core';
import { auditedIdText, type AuditedId } from './AuditedIdReader.js';
import type { LeaseCoverage } from './LeaseCoverage.js';

export interface AuditCheckOptions {
  /** The epoch of the ids' layout, in Unix ms: a Vesta UUIDv7 of an earlier time is a finding. */
  readonly epochMs: number;
  readonly nowMs: number;
  /** How far past `nowMs` a time may lie (clock skew between hosts) before it is a finding. */
  readonly futureToleranceMs: number;
  readonly examples: number;
  /**
   * The machine ids each genMethod issues under in the ids' layout; undefined for a layout
   * without a genMethod field, where an embedded id cannot be told from a server's.
   */
  readonly idRanges: MachineIdRanges | undefined;
  /** The coordinator's lease tenures (`--coordinator`), each id's machine id judged against them. */
  readonly leases?: LeaseCoverage;
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

/** A value issued by a machine id at a time nobody held it, by the coordinator's lease journal. */
export interface UnleasedId {
  readonly line: number;
  readonly id: string;
  readonly machine: number;
  /** Its time (ISO 8601). */
  readonly date: string;
}

/** What the lease journal said of the values (`--coordinator`). */
export interface LeaseFindings extends FindingsReport<UnleasedId> {
  /**
   * Values not judged: their time lies where the journal cannot tell (before its window, trimmed
   * or lost), or their machine id in no range the coordinator leases from (`notManaged`).
   */
  readonly notJudged: number;
  /**
   * The values (among `notJudged`) of machine ids in no range the coordinator leases from, such
   * as a fixed `--machine-id` beside leased servers: the coordinator never managed them; their
   * first `--examples` machine ids, ascending.
   */
  readonly notManaged: { readonly count: number; readonly machines: readonly number[] };
  /** The window the journal covers (ISO 8601); `from` null when it is empty. */
  readonly covered: { readonly from: string | null; readonly to: string };
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

export interface AuditCheckReport {
  readonly ids: number;
  readonly uuids: number;
  /**
   * The UUIDs that pass a Vesta UUIDv7's check, and whether their issuer fields (machine id,
   * genMethod: the before-epoch, machine-range and order findings, the issuers) are reported:
   * only when they are at least half the UUIDs. A column of other issuers' v7s has about 1 in
   * 4,096 passing by chance, whose fields are random bits.
   */
  readonly vestaUuids: { readonly count: number; readonly issuersReported: boolean };
  readonly future: FindingsReport<MisdatedId>;
  readonly beforeEpoch: FindingsReport<MisdatedId>;
  readonly machineOutOfRange: FindingsReport<MisplacedMachineId>;
  readonly unparseable: FindingsReport<UnparseableLine>;
  readonly orderBreaks: FindingsReport<OrderBreak>;
  /** With a coordinator's lease journal: the values no tenure covers, and those not judged. */
  readonly unleased?: LeaseFindings;
  /** By kind, genMethod and machine id. */
  readonly machines: readonly IssuerReport[];
}

/** The findings a value's issuer fields give: its time before the epoch, its machine id, its order. */
interface IssuerFindings {
  readonly beforeEpoch: Findings<MisdatedId>;
  readonly machine: Findings<MisplacedMachineId>;
  readonly order: Findings<OrderBreak>;
  readonly unleased: Findings<UnleasedId>;
  readonly notJudged: { count: number };
  readonly notManaged: { count: number; readonly machines: Set<number> };
}

function issuerFindings(examples: number): IssuerFindings {
  return {
    beforeEpoch: new Findings(examples),
    machine: new Findings(examples),
    order: new Findings(examples),
    unleased: new Findings(examples),
    notJudged: { count: 0 },
    notManaged: { count: 0, machines: new Set() },
  };
}

/** Two reports of one kind as one: counts added, examples in line order up to `max`. */
function merged<T extends { readonly line: number }>(
  a: Findings<T>,
  b: Findings<T> | undefined,
  max: number,
): FindingsReport<T> {
  if (b === undefined) return a.report();
  const examples = [...a.examples, ...b.examples].sort((x, y) => x.line - y.line).slice(0, max);
  return { count: a.count + b.count, examples };
}

function rangeOf(ranges: MachineIdRanges, genMethod: number): MachineIdRange | undefined {
  if (genMethod === GenMethod.EMBEDDED) return ranges.embedded;
  if (genMethod === GenMethod.CENTRAL_SERVER || genMethod === GenMethod.REST) return ranges.server;
  return undefined;
}

/** The one-pass checks of `vesta audit` (time, machine range, order per issuer); memory per issuer. */
export class AuditChecks {
  readonly #future: Findings<MisdatedId>;
  readonly #unparseable: Findings<UnparseableLine>;
  readonly #ofIds: IssuerFindings;
  /**
   * What the issuer fields of UUIDs that pass a Vesta UUIDv7's check give: reported only when
   * most UUIDs of the input pass it (a v7 of another issuer passes 1 time in 4,096, and then its
   * "machine id" is random bits).
   */
  readonly #ofUuids: IssuerFindings;
  readonly #issuers = new Map<number, IssuerState>();
  readonly #latestMs: number;
  #ids = 0;
  #uuids = 0;
  #vestaUuids = 0;

  constructor(private readonly options: AuditCheckOptions) {
    this.#future = new Findings(options.examples);
    this.#unparseable = new Findings(options.examples);
    this.#ofIds = issuerFindings(options.examples);
    this.#ofUuids = issuerFindings(options.examples);
    this.#latestMs = options.nowMs + options.futureToleranceMs;
  }

  unparseable(line: number, text: string, reason: string): void {
    this.#unparseable.add(() => ({ line, text: text.slice(0, 64), reason }));
  }

  check(id: AuditedId, line: number): void {
    if (id.kind === 'id') this.#ids++;
    else this.#uuids++;
    const { unixMs, machine, genMethod } = id;
    const found = id.kind === 'id' ? this.#ofIds : this.#ofUuids;
    if (id.kind === 'uuid' && machine !== undefined) this.#vestaUuids++;
    if (unixMs !== undefined) this.#checkTime(id, unixMs, line, found);
    if (machine === undefined || genMethod === undefined || unixMs === undefined) return;
    // A Vesta UUIDv7 carries the machine id and genMethod of a service of the audited layout.
    const ranges = this.options.idRanges;
    const range = ranges === undefined ? null : rangeOf(ranges, genMethod);
    if (range !== null && (range === undefined || machine < range.min || machine > range.max)) {
      found.machine.add(() => ({
        line,
        id: auditedIdText(id.kind, id.value),
        machine,
        genMethod,
        range: range === undefined ? 'none' : `${range.min}-${range.max}`,
      }));
    }
    this.#countIssuer(id, machine, genMethod, unixMs, line, found);
    const verdict = this.options.leases?.judge(machine, unixMs, id.unitMs ?? 1);
    if (verdict === 'notJudged') found.notJudged.count++;
    else if (verdict === 'notManaged') {
      found.notJudged.count++;
      found.notManaged.count++;
      if (found.notManaged.machines.size < this.options.examples) {
        found.notManaged.machines.add(machine);
      }
    } else if (verdict === 'unleased') {
      found.unleased.add(() => ({
        line,
        id: auditedIdText(id.kind, id.value),
        machine,
        date: new Date(unixMs).toISOString(),
      }));
    }
  }

  /** Whether the UUIDs' issuer fields are read as such: most UUIDs pass Vesta's check. */
  get #uuidIssuersTrusted(): boolean {
    return this.#vestaUuids * 2 >= this.#uuids;
  }

  report(): AuditCheckReport {
    const trusted = this.#uuidIssuersTrusted;
    const uuidSide = trusted ? this.#ofUuids : undefined;
    const max = this.options.examples;
    const machines = [...this.#issuers.values()]
      .filter((issuer) => trusted || issuer.kind === 'id')
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
      vestaUuids: { count: this.#vestaUuids, issuersReported: trusted },
      future: this.#future.report(),
      beforeEpoch: merged(this.#ofIds.beforeEpoch, uuidSide?.beforeEpoch, max),
      machineOutOfRange: merged(this.#ofIds.machine, uuidSide?.machine, max),
      unparseable: this.#unparseable.report(),
      orderBreaks: merged(this.#ofIds.order, uuidSide?.order, max),
      ...(this.options.leases === undefined
        ? {}
        : {
            unleased: {
              ...merged(this.#ofIds.unleased, uuidSide?.unleased, max),
              notJudged: this.#ofIds.notJudged.count + (uuidSide?.notJudged.count ?? 0),
              notManaged: {
                count: this.#ofIds.notManaged.count + (uuidSide?.notManaged.count ?? 0),
                machines: [
                  ...new Set([
                    ...this.#ofIds.notManaged.machines,
                    ...(uuidSide?.notManaged.machines ?? []),
                  ]),
                ]
                  .sort((a, b) => a - b)
                  .slice(0, max),
              },
              covered: this.options.leases.covered,
            },
          }),
      machines,
    };
  }

  #checkTime(id: AuditedId, unixMs: number, line: number, found: IssuerFindings): void {
    const example = (): MisdatedId => ({
      line,
      id: auditedIdText(id.kind, id.value),
      date: new Date(unixMs).toISOString(),
    });
    if (unixMs > this.#latestMs) this.#future.add(example);
    // An id's time counts from the epoch, so only a Vesta UUIDv7 (Unix ms) can lie before it.
    else if (unixMs < this.options.epochMs && id.machine !== undefined) {
      found.beforeEpoch.add(example);
    }
  }

  #countIssuer(
    id: AuditedId,
    machine: number,
    genMethod: number,
    unixMs: number,
    line: number,
    found: IssuerFindings,
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
      found.order.add(() => ({
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

/** Findings of one kind, as the report shows them: how many, and the first few. */
export interface FindingsReport<T> {
  readonly count: number;
  readonly examples: readonly T[];
}

/**
 * Counts findings of one kind and keeps the first `max` as examples (built only while there
 * is room, so a million findings cost a counter, not a million objects).
 */
export class Findings<T> {
  count = 0;
  readonly examples: T[] = [];

  constructor(private readonly max: number) {}

  /** Counts one finding; `example` builds its example when one is still kept. */
  add(example: () => T): void {
    this.count++;
    if (this.examples.length < this.max) this.examples.push(example());
  }

  report(): FindingsReport<T> {
    return { count: this.count, examples: [...this.examples] };
  }
}
