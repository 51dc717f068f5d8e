import { createRequire } from 'node:module';
import type {
  Clock,
  IdGeneratorsObserver,
  IdService,
  IdServiceObserver,
  SegmentServiceObserver,
} from '@vesta/core';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

type Attrs = Record<string, string>;
type Described = { description?: string; unit?: string };

/** The part of an OpenTelemetry `Meter` used, typed here so OpenTelemetry stays the user's dependency. */
export interface OtelMeter {
  createCounter(name: string, options?: Described): { add(n: number, attrs?: Attrs): void };
  createHistogram(name: string, options?: Described): { record(n: number, attrs?: Attrs): void };
}

/** Options of {@link createVestaMetrics}. */
export interface VestaMetricsOptions {
  /**
   * Also report `vesta.ids.issued`, `vesta.requests` and `vesta.request.duration` to this
   * OpenTelemetry meter (`metrics.getMeter('vesta')`). @default undefined (Prometheus only)
   */
  readonly meter?: OtelMeter;
  /** The registry to register in. @default a new Registry */
  readonly registry?: Registry;
  /** Also collect Node's process metrics (CPU, memory, event loop lag). @default true */
  readonly collectDefaults?: boolean;
  /** The wall clock the time lead is measured against. @default Date.now */
  readonly clock?: Clock;
}

/** Records one route's requests on a hot path; see {@link VestaMetrics.requestRecorder}. */
export interface RequestRecorder {
  record(status: number, seconds: number): void;
}

/** The metrics of a Vesta server; names are the same in REST and TCP mode. */
export interface VestaMetrics {
  readonly registry: Registry;
  /** Pass to the id service's `observer` option. */
  readonly observer: IdServiceObserver;
  /** Pass to named generators (`IdGenerators`). */
  readonly generatorsObserver: IdGeneratorsObserver;
  /**
   * Pass to a segment service's `observer` option. A key becomes a label value once the store
   * gave a range of it; until then its failed claims count under `key=""`.
   */
  readonly segmentObserver: SegmentServiceObserver;
  readonly idsIssued: Counter;
  readonly generatorIdsIssued: Counter<'generator'>;
  readonly requests: Counter<'route' | 'status'>;
  readonly requestDuration: Histogram<'route'>;
  readonly clockRollbacks: Counter;
  readonly sequenceExhausted: Counter;
  readonly timeUnitsBorrowed: Counter;
  readonly timeLead: Gauge;
  /** Counts issued ids on a hot path: a plain number, added to `idsIssued` when it is read. */
  countIdsIssued(count: number): void;
  /** `vesta_build_info`, `vesta_machine_info`, `vesta_healthy` and `vesta_time_field_remaining_seconds` of `service`. */
  describeService(service: IdService, mode: 'embedded' | 'server' | 'rest'): void;
  observeRequest(route: string, status: number | string, seconds: number): void;
  /** `observeRequest` for a hot path: counts kept in plain numbers until read. Once per route. */
  requestRecorder(route: string): RequestRecorder;
  /** The Prometheus text exposition and its content type. */
  render(): Promise<{ contentType: string; body: string }>;
}

const REQUESTS = 'Requests by route and status.';
const LATENCY = 'Request latency by route.';
const VERSION = (createRequire(import.meta.url)('../package.json') as { version: string }).version;

/** Creates the Vesta metrics in a registry of their own (or the one given). */
export function createVestaMetrics(options: VestaMetricsOptions = {}): VestaMetrics {
  const registry = options.registry ?? new Registry();
  const registers = [registry];
  if (options.collectDefaults ?? true) {
    collectDefaultMetrics({ register: registry });
    // Gauges named `*_total`, which `promtool check metrics` refuses.
    for (const kind of ['handles', 'requests', 'resources'])
      registry.removeSingleMetric(`nodejs_active_${kind}_total`);
  }
  const meter = options.meter;
  const otel = meter && {
    ids: meter.createCounter('vesta.ids.issued', { description: 'Ids issued.' }),
    requests: meter.createCounter('vesta.requests', { description: REQUESTS }),
    duration: meter.createHistogram('vesta.request.duration', { description: LATENCY, unit: 's' }),
  };
  const otelRequest = (route: string, status: number | string, seconds: number): void => {
    otel?.requests.add(1, { route, status: String(status) });
    otel?.duration.record(seconds, { route });
  };
  let idsPending = 0;
  const idsIssued = new Counter({
    name: 'vesta_ids_issued_total',
    help: 'Ids issued.',
    registers,
    collect() {
      if (idsPending > 0) this.inc(idsPending);
      idsPending = 0;
    },
  });
  // The recorders' pending counts, handed to the counter each time it is read.
  const flushes: (() => void)[] = [];
  const requests: Counter<'route' | 'status'> = new Counter({
    name: 'vesta_requests_total',
    help: REQUESTS,
    labelNames: ['route', 'status'] as const,
    registers,
    collect: () => flushes.forEach((flush) => flush()),
  });
  const requestDuration = new Histogram({
    name: 'vesta_request_duration_seconds',
    help: LATENCY,
    labelNames: ['route'] as const,
    buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1],
    registers,
  });
  const generatorIdsIssued = new Counter({
    name: 'vesta_generator_ids_issued_total',
    help: 'Ids issued under each generator name (requests that name a generator).',
    labelNames: ['generator'] as const,
    registers,
  });
  const counter = (name: string, help: string): Counter => new Counter({ name, help, registers });
  const clockRollbacks = counter(
    'vesta_clock_rollbacks_total',
    'Steps back of the clock absorbed within the tolerance.',
  );
  const sequenceExhausted = counter(
    'vesta_sequence_exhausted_total',
    "Times a time unit's sequence ran out and callers waited for the next unit.",
  );
  const timeUnitsBorrowed = counter(
    'vesta_time_units_borrowed_total',
    'Time units opened before the clock reached them, so that callers did not wait (maxLeadMs).',
  );
  const clock = options.clock ?? Date.now;
  let borrowedUntilMs = Number.NEGATIVE_INFINITY;
  const timeLead = new Gauge({
    name: 'vesta_time_lead_seconds',
    help: 'How far ahead of the wall clock the last borrowed time unit starts (0 once caught up).',
    registers,
    aggregator: 'max',
    collect() {
      this.set(Math.max(0, borrowedUntilMs - clock()) / 1000);
    },
  });
  return {
    registry,
    observer: {
      onClockRollback: () => clockRollbacks.inc(),
      onSequenceExhausted: () => sequenceExhausted.inc(),
      onTimeBorrowed: (unitStartMs) => {
        timeUnitsBorrowed.inc();
        borrowedUntilMs = unitStartMs;
      },
    },
    generatorsObserver: {
      onIssued: (generator, count) => generatorIdsIssued.inc({ generator }, count),
    },
    segmentObserver: segmentMetrics(registers),
    idsIssued,
    generatorIdsIssued,
    requests,
    requestDuration,
    clockRollbacks,
    sequenceExhausted,
    timeUnitsBorrowed,
    timeLead,
    describeService(service, mode) {
      // One service per set of metrics: a second server sharing them keeps the first's lines.
      if (registry.getSingleMetric('vesta_build_info') !== undefined) return;
      const info = service.info();
      const machine = { machine_id: String(info.machine) };
      new Gauge({
        name: 'vesta_build_info',
        help: 'The Vesta version, mode, layout and id type this server runs (always 1).',
        labelNames: ['version', 'mode', 'layout', 'type'] as const,
        registers,
        aggregator: 'max',
      }).set({ version: VERSION, mode, layout: info.preset, type: info.typeName }, 1);
      new Gauge({
        name: 'vesta_machine_info',
        help: 'The machine id this server issues under (always 1).',
        labelNames: ['machine_id'] as const,
        registers,
      }).set(machine, 1);
      new Gauge({
        name: 'vesta_healthy',
        help: 'Whether the service can issue ids now (1), or not (0: lease lost or fenced, clock behind its mark, closed...).',
        labelNames: ['machine_id'] as const,
        registers,
        collect() {
          this.set(machine, service.health().ok ? 1 : 0);
        },
      });
      const expiryMs = Date.parse(info.expiry);
      new Gauge({
        name: 'vesta_time_field_remaining_seconds',
        help: "Seconds until the layout's time field runs out and no id can be issued.",
        registers,
        aggregator: 'min',
        collect() {
          this.set((expiryMs - clock()) / 1000);
        },
      });
    },
    countIdsIssued(count) {
      idsPending += count;
      otel?.ids.add(count);
    },
    observeRequest(route, status, seconds) {
      requests.inc({ route, status: String(status) });
      requestDuration.observe({ route }, seconds);
      otelRequest(route, status, seconds);
    },
    requestRecorder(route) {
      const duration = requestDuration.labels(route);
      // Pending counts by HTTP status (100-599); anything else is counted directly.
      const pending = new Float64Array(600);
      flushes.push(() =>
        pending.forEach((count, status) => {
          if (count > 0) requests.inc({ route, status: String(status) }, count);
          pending[status] = 0;
        }),
      );
      return {
        record(status, seconds) {
          if (Number.isInteger(status) && status >= 0 && status < pending.length) {
            pending[status] = (pending[status] ?? 0) + 1;
          } else requests.inc({ route, status: String(status) });
          duration.observe(seconds);
          otelRequest(route, status, seconds);
        },
      };
    },
    async render() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}

const sum = (reads: (() => number)[]): number => reads.reduce((n, read) => n + read(), 0);

/** The segment metrics and their observer; served counts are plain numbers until read. */
function segmentMetrics(registers: Registry[]): SegmentServiceObserver {
  const known = new Set<string>();
  const servedPending = new Map<string, number>();
  const buffers = new Map<string, (() => number)[]>();
  const fetches = new Counter({
    name: 'vesta_segment_fetches_total',
    help: 'Segment claims from the store, by key and outcome (fresh, handed_back, or the error code).',
    labelNames: ['key', 'outcome'] as const,
    registers,
  });
  new Counter({
    name: 'vesta_segment_numbers_served_total',
    help: 'Segment numbers handed out, by key.',
    labelNames: ['key'] as const,
    registers,
    collect() {
      for (const [key, count] of servedPending) if (count > 0) this.inc({ key }, count);
      servedPending.clear();
    },
  });
  new Gauge({
    name: 'vesta_segment_buffered_numbers',
    help: 'Segment numbers claimed and not yet handed out (the rest of the current and the next segment), by key.',
    labelNames: ['key'] as const,
    registers,
    collect() {
      for (const [key, reads] of buffers) {
        if (known.has(key)) this.set({ key }, sum(reads));
      }
    },
  });
  return {
    onClaim(key, outcome) {
      if (outcome === 'fresh' || outcome === 'handed_back') known.add(key);
      fetches.inc({ key: known.has(key) ? key : '', outcome });
    },
    onServed: (key, count) => servedPending.set(key, (servedPending.get(key) ?? 0) + count),
    onKey: (key, buffered) => buffers.set(key, [...(buffers.get(key) ?? []), buffered]),
  };
}
