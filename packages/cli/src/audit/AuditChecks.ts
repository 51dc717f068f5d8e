import { GenMethod, type MachineIdRange, type MachineIdRanges } from '@vesta/core';
import { auditedIdText, type AuditedId } from './AuditedIdReader.js';
import type { LeaseCoverage } from './LeaseCoverage.js';

export interface AuditCheckOptions {
  readonly epochMs: number;
  readonly nowMs: number;
  /** How far past `nowMs` a time may lie (clock skew between hosts). */
  readonly futureToleranceMs: number;
  readonly examples: number;
  /** Undefined for a layout without a genMethod field: no range is checked. */
  readonly idRanges: MachineIdRanges | undefined;
  readonly leases?: LeaseCoverage;
}

export interface Example {
  readonly line: number;
  readonly id: string;
}
export type MisdatedId = Example & { readonly date: string };
export type UnleasedId = MisdatedId & { readonly machine: number };
export type IssuerExample = Example & { readonly machine: number; readonly genMethod: number };
/** `range`: `0-923`, or `none` for genMethod 3. */
export type MisplacedMachineId = IssuerExample & { readonly range: string };
export type OrderBreak = IssuerExample & {
  readonly previousLine: number;
  readonly previous: string;
};

export interface IssuerState {
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

function issuerFindings(examples: number) {
  return {
    beforeEpoch: new Findings<MisdatedId>(examples),
    machine: new Findings<MisplacedMachineId>(examples),
    order: new Findings<OrderBreak>(examples),
    unleased: new Findings<UnleasedId>(examples),
    notJudged: { count: 0 },
    notManaged: { count: 0, machines: new Set<number>() },
  };
}
type IssuerFindings = ReturnType<typeof issuerFindings>;

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
  readonly #unparseable: Findings<{ line: number; text: string; reason: string }>;
  readonly #ofIds: IssuerFindings;
  /** Reported only when most UUIDs pass Vesta's check: another issuer's v7 passes 1 in 4,096. */
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

  report() {
    const trusted = this.#vestaUuids * 2 >= this.#uuids;
    const uuidSide = trusted ? this.#ofUuids : undefined;
    const max = this.options.examples;
    const sides = uuidSide === undefined ? [this.#ofIds] : [this.#ofIds, uuidSide];
    const sum = (of: (side: IssuerFindings) => number): number =>
      sides.reduce((total, side) => total + of(side), 0);
    const machines = [...this.#issuers.values()]
      .filter((issuer) => trusted || issuer.kind === 'id')
      .sort(
        (a, b) =>
          a.kind.localeCompare(b.kind) || a.genMethod - b.genMethod || a.machine - b.machine,
      )
      .map(({ kind, machine, genMethod, count, firstMs, lastMs, orderBreaks }) => ({
        kind,
        machine,
        genMethod,
        count,
        first: new Date(firstMs).toISOString(),
        last: new Date(lastMs).toISOString(),
        // Over a span of at least one second.
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
              notJudged: sum((side) => side.notJudged.count),
              notManaged: {
                count: sum((side) => side.notManaged.count),
                machines: [...new Set(sides.flatMap((side) => [...side.notManaged.machines]))]
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

export interface FindingsReport<T> {
  readonly count: number;
  readonly examples: readonly T[];
}

/** Counts findings of one kind, building an example only for the first `max`. */
export class Findings<T> {
  count = 0;
  readonly examples: T[] = [];

  constructor(private readonly max: number) {}

  add(example: () => T): void {
    this.count++;
    if (this.examples.length < this.max) this.examples.push(example());
  }

  report(): FindingsReport<T> {
    return { count: this.count, examples: [...this.examples] };
  }
}

/** The findings of {@link AuditChecks}, as the report shows them (the README's `vesta audit` table). */
export type AuditCheckReport = ReturnType<AuditChecks['report']>;
