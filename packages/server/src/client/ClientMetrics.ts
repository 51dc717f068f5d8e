import { Counter, Gauge, type Registry } from 'prom-client';

/** What an id client counts (the help texts below say what). */
export type ClientMetrics = ReturnType<typeof createClientMetrics>;

/** The sizes behind each buffered-ids gauge, so that clients sharing a registry add up. */
const bufferSizes = new WeakMap<Gauge, Set<() => number>>();

function bufferedGauge(registry: Registry | undefined): Set<() => number> {
  const name = 'vesta_client_prefetch_buffered_ids';
  const existing = registry?.getSingleMetric(name);
  const known = existing instanceof Gauge ? bufferSizes.get(existing) : undefined;
  if (known !== undefined) return known;
  const sizes = new Set<() => number>();
  const gauge = new Gauge({
    name,
    help: 'Ids in the prefetch buffers of the clients, not yet served.',
    registers: registry === undefined ? [] : [registry],
    collect() {
      let sum = 0;
      for (const size of sizes) sum += size();
      this.set(sum);
    },
  });
  bufferSizes.set(gauge, sizes);
  return sizes;
}

/** The client's counters, registered in `registry` (unregistered without one). */
export function createClientMetrics(registry: Registry | undefined) {
  const registers = registry === undefined ? [] : [registry];
  const counter = <L extends string>(name: string, help: string, labelNames: L[] = []) => {
    const existing = registry?.getSingleMetric(name);
    if (existing instanceof Counter) return existing as Counter<L>;
    return new Counter({ name, help, labelNames, registers });
  };
  return {
    fallbackIds: counter(
      'vesta_client_fallback_ids_total',
      'Ids issued locally by the fallback because no server answered.',
    ),
    fallbacks: counter(
      'vesta_client_fallbacks_total',
      'Times the client switched to issuing ids locally.',
    ),
    retries: counter(
      'vesta_client_retries_total',
      'Requests sent again to another server after a failure.',
    ),
    serverDown: counter('vesta_client_server_down_total', 'Times a server was marked down.', [
      'server',
    ]),
    prefetchRefills: counter(
      'vesta_client_prefetch_refills_total',
      'Batches the prefetch buffer asked the servers for.',
    ),
    prefetchStaleIds: counter(
      'vesta_client_prefetch_stale_ids_total',
      'Buffered ids dropped, never served, because they were older than prefetch.maxAgeMs.',
    ),
    /** The sizes `vesta_client_prefetch_buffered_ids` sums: one per client sharing the registry. */
    prefetchBuffered: bufferedGauge(registry),
  };
}
