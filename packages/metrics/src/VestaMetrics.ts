import { createRequire } from 'node:module';
import type {
  Clock,
  IdGeneratorsObserver,
  IdService,
  IdServiceObserver,
  SegmentServiceObserver,
} from '@vesta/core';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** The attributes of an OpenTelemetry measurement. */
type OtelAttributes = Record<string, string>;

/**
 * The part of an OpenTelemetry `Meter` (`@opentelemetry/api`'s `metrics.getMeter(...)`) the
 * metrics report to: typed here, so that OpenTelemetry stays the user's dependency, not ours.
 */
export interface OtelMeter {
  createCounter(
    name: string,
    options?: { description?: string; unit?: string },
  ): { add(value: number, attributes?: OtelAttributes): void };
  createHistogram(
    name: string,
    options?: { description?: string; unit?: string },
  ): { record(value: number, attributes?: OtelAttributes): void };
}

/** Options of {@link createVestaMetrics}. */
export interface VestaMetricsOptions {
  /**
   * Also report to OpenTelemetry through this meter (give `metrics.getMeter('vesta')` of
   * `@opentelemetry/api`, installed and set up by you): `vesta.ids.issued` (counter),
   * `vesta.requests` (counter; `route`, `status`) and `vesta.request.duration` (histogram, s;
   * `route`), as they happen. @default undefined (Prometheus only)
   */
  readonly meter?: OtelMeter;
  /** The registry to register in. @default a new Registry */
  readonly registry?: Registry;
  /** Also collect Node's process metrics (CPU, memory, event loop lag). @default true */
  readonly collectDefaults?: boolean;
  /** The wall clock the id service reads, against which its time lead is measured. @default Date.now */
  readonly clock?: Clock;
}

/** Records the requests of one route on a hot path; see {@link VestaMetrics.requestRecorder}. */
export interface RequestRecorder {
  /** Counts one request of `status` and observes its latency, like `observeRequest`. */
  record(status: number, seconds: number): void;
}

/** The metrics of a Vesta server; names are the same in REST and TCP mode. */
export interface VestaMetrics {
  readonly registry: Registry;
  /** Pass to the id service's `observer` option: counts clock steps back and sequence waits. */
  readonly observer: IdServiceObserver;
  /** Pass to named generators (`IdGenerators`): counts the ids issued under each name. */
  readonly generatorsObserver: IdGeneratorsObserver;
  /**
   * Pass to a segment service's `observer` option (`createSegmentService` of `@vesta/segment`):
   * `vesta_segment_fetches_total{key,outcome}`, `vesta_segment_numbers_served_total{key}` and
   * `vesta_segment_buffered_numbers{key}`. A key is a label value once the store has given a
   * range of it; until then its failed claims count under `key=""` (a caller cannot make series
   * up with keys that do not exist).
   */
  readonly segmentObserver: SegmentServiceObserver;
  /** `vesta_ids_issued_total`. */
  readonly idsIssued: Counter;
  /** `vesta_generator_ids_issued_total{generator}`: ids issued under each name asked for by name. */
  readonly generatorIdsIssued: Counter<'generator'>;
  /** `vesta_requests_total{route,status}`. */
  readonly requests: Counter<'route' | 'status'>;
  /** `vesta_request_duration_seconds{route}`. */
  readonly requestDuration: Histogram<'route'>;
  /** `vesta_clock_rollbacks_total`: steps back of the clock that were absorbed. */
  readonly clockRollbacks: Counter;
  /** `vesta_sequence_exhausted_total`: times a unit's sequence ran out and callers waited. */
  readonly sequenceExhausted: Counter;
  /** `vesta_time_units_borrowed_total`: units opened ahead of the clock (`maxLeadMs`). */
  readonly timeUnitsBorrowed: Counter;
  /**
   * `vesta_time_lead_seconds`: how far the last borrowed unit starts ahead of the clock, read at
   * each scrape; back at 0 once the clock has caught up.
   */
  readonly timeLead: Gauge;
  /**
   * Counts issued ids on a hot path: kept in a plain number and added to
   * `vesta_ids_issued_total` whenever it is read (every scrape, every `idsIssued.get()`).
   */
  countIdsIssued(count: number): void;
  /**
   * Describes the service this server issues from, once it is built: `vesta_build_info{version,
   * mode,layout,type}` (1), `vesta_machine_info{machine_id}` (1), `vesta_healthy{machine_id}` (1
   * while it can issue; 0 once its lease is lost or fenced, its clock behind its mark...), and
   * `vesta_time_field_remaining_seconds` (until the layout's time field runs out), the last two
   * read at each scrape. A REST cluster's workers each describe their own: `/metrics` sums the
   * machine ids' series, keeps one build line and the least time left.
   */
  describeService(service: IdService, mode: 'embedded' | 'server' | 'rest'): void;
  /** Records one request. */
  observeRequest(route: string, status: number | string, seconds: number): void;
  /**
   * A recorder of `route`'s requests for a hot path, same metrics as `observeRequest` at a
   * fraction of its cost: the counts per status are kept in plain numbers and added to
   * `vesta_requests_total` whenever it is read (every scrape, every `requests.get()`), and the
   * latency goes to the route's histogram child, looked up once. Create one per route, once.
   */
  requestRecorder(route: string): RequestRecorder;
  /** The Prometheus text exposition and its content type. */
  render(): Promise<{ contentType: string; body: string }>;
}

/** The version of the metrics package, released with every other Vesta package. */
const VERSION = (createRequire(import.meta.url)('../package.json') as { version: string }).version;

/**
 * Node's process metrics without the three gauges prom-client names `*_total`, which
 * `promtool check metrics` refuses (a `_total` suffix is for counters): their sums are the
 * sums of `nodejs_active_handles`, `nodejs_active_requests` and `nodejs_active_resources`.
 */
function collectNodeMetrics(registry: Registry): void {
  collectDefaultMetrics({ register: registry });
  for (const name of [
    'nodejs_active_handles_total',
    'nodejs_active_requests_total',
    'nodejs_active_resources_total',
  ]) {
    registry.removeSingleMetric(name);
  }
}

/** Creates the Vesta metrics in a registry of their own (or the one given). */
export function createVestaMetrics(options: VestaMetricsOptions = {}): VestaMetrics {
  const registry = options.registry ?? new Registry();
  if (options.collectDefaults ?? true) collectNodeMetrics(registry);
  const otel =
    options.meter === undefined
      ? undefined
      : {
          ids: options.meter.createCounter('vesta.ids.issued', { description: 'Ids issued.' }),
          requests: options.meter.createCounter('vesta.requests', {
            description: 'Requests by route and status.',
          }),
          duration: options.meter.createHistogram('vesta.request.duration', {
            description: 'Request latency by route.',
            unit: 's',
          }),
        };
  let idsPending = 0;
  const idsIssued = new Counter({
    name: 'vesta_ids_issued_total',
    help: 'Ids issued.',
    registers: [registry],
    collect() {
      if (idsPending > 0) {
        this.inc(idsPending);
        idsPending = 0;
      }
    },
  });
  // The recorders' pending counts, handed to the counter each time it is read.
  const flushes: (() => void)[] = [];
  const requests: Counter<'route' | 'status'> = new Counter({
    name: 'vesta_requests_total',
    help: 'Requests by route and status.',
    labelNames: ['route', 'status'] as const,
    registers: [registry],
    collect() {
      for (const flush of flushes) flush();
    },
  });
  const requestDuration = new Histogram({
    name: 'vesta_request_duration_seconds',
    help: 'Request latency by route.',
    labelNames: ['route'] as const,
    buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1],
    registers: [registry],
  });
  const generatorIdsIssued = new Counter({
    name: 'vesta_generator_ids_issued_total',
    help: 'Ids issued under each generator name (requests that name a generator).',
    labelNames: ['generator'] as const,
    registers: [registry],
  });
  const clockRollbacks = new Counter({
    name: 'vesta_clock_rollbacks_total',
    help: 'Steps back of the clock absorbed within the tolerance.',
    registers: [registry],
  });
  const sequenceExhausted = new Counter({
    name: 'vesta_sequence_exhausted_total',
    help: "Times a time unit's sequence ran out and callers waited for the next unit.",
    registers: [registry],
  });
  const timeUnitsBorrowed = new Counter({
    name: 'vesta_time_units_borrowed_total',
    help: 'Time units opened before the clock reached them, so that callers did not wait (maxLeadMs).',
    registers: [registry],
  });
  const segments = segmentMetrics(registry);
  const clock = options.clock ?? Date.now;
  // The start of the last unit borrowed, Unix ms: the lead is measured against it at each read.
  let borrowedUntilMs = Number.NEGATIVE_INFINITY;
  const timeLead = new Gauge({
    name: 'vesta_time_lead_seconds',
    help: 'How far ahead of the wall clock the last borrowed time unit starts (0 once caught up).',
    registers: [registry],
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
    segmentObserver: segments,
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
        registers: [registry],
        aggregator: 'max',
      }).set({ version: VERSION, mode, layout: info.preset, type: info.typeName }, 1);
      new Gauge({
        name: 'vesta_machine_info',
        help: 'The machine id this server issues under (always 1).',
        labelNames: ['machine_id'] as const,
        registers: [registry],
      }).set(machine, 1);
      new Gauge({
        name: 'vesta_healthy',
        help: 'Whether the service can issue ids now (1), or not (0: lease lost or fenced, clock behind its mark, closed...).',
        labelNames: ['machine_id'] as const,
        registers: [registry],
        collect() {
          this.set(machine, service.health().ok ? 1 : 0);
        },
      });
      const expiryMs = Date.parse(info.expiry);
      new Gauge({
        name: 'vesta_time_field_remaining_seconds',
        help: "Seconds until the layout's time field runs out and no id can be issued.",
        registers: [registry],
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
      otel?.requests.add(1, { route, status: String(status) });
      otel?.duration.record(seconds, { route });
    },
    requestRecorder(route) {
      const duration = requestDuration.labels(route);
      // Pending counts by HTTP status (100-599); anything else is counted directly.
      const pending = new Float64Array(600);
      flushes.push(() => {
        for (let status = 0; status < pending.length; status++) {
          const count = pending[status] ?? 0;
          if (count > 0) {
            pending[status] = 0;
            requests.inc({ route, status: String(status) }, count);
          }
        }
      });
      return {
        record(status, seconds) {
          if (Number.isInteger(status) && status >= 0 && status < pending.length) {
            pending[status] = (pending[status] ?? 0) + 1;
          } else {
            requests.inc({ route, status: String(status) });
          }
          duration.observe(seconds);
          if (otel !== undefined) {
            otel.requests.add(1, { route, status: String(status) });
            otel.duration.record(seconds, { route });
          }
        },
      };
    },
    async render() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}

/**
 * The segment metrics and the observer that feeds them. Served numbers are kept in plain
 * numbers per key (the hot path) and added to the counter whenever it is read; the buffered
 * numbers are read from each key's service at each scrape (a REST cluster sums its workers').
 */
function segmentMetrics(registry: Registry): SegmentServiceObserver {
  /** Keys the store has given a range of: only they become label values. */
  const known = new Set<string>();
  const servedPending = new Map<string, number>();
  const buffers = new Map<string, (() => number)[]>();
  const fetches = new Counter({
    name: 'vesta_segment_fetches_total',
    help: 'Segment claims from the store, by key and outcome (fresh, handed_back, or the error code).',
    labelNames: ['key', 'outcome'] as const,
    registers: [registry],
  });
  new Counter({
    name: 'vesta_segment_numbers_served_total',
    help: 'Segment numbers handed out, by key.',
    labelNames: ['key'] as const,
    registers: [registry],
    collect() {
      for (const [key, count] of servedPending) {
        if (count > 0) this.inc({ key }, count);
      }
      servedPending.clear();
    },
  });
  new Gauge({
    name: 'vesta_segment_buffered_numbers',
    help: 'Segment numbers claimed and not yet handed out (the rest of the current and the next segment), by key.',
    labelNames: ['key'] as const,
    registers: [registry],
    collect() {
      for (const [key, reads] of buffers) {
        if (!known.has(key)) continue;
        let n = 0;
        for (const read of reads) n += read();
        this.set({ key }, n);
      }
    },
  });
  return {
    onClaim(key, outcome) {
      if (outcome === 'fresh' || outcome === 'handed_back') known.add(key);
      fetches.inc({ key: known.has(key) ? key : '', outcome });
    },
    onServed(key, count) {
      servedPending.set(key, (servedPending.get(key) ?? 0) + count);
    },
    onKey(key, buffered) {
      const reads = buffers.get(key);
      if (reads === undefined) buffers.set(key, [buffered]);
      else reads.push(buffered);
    },
  };
}
