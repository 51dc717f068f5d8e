import { Counter, type Registry } from 'prom-client';

/** What an id client counts, when given a registry. */
export interface ClientMetrics {
  /** `vesta_client_fallback_ids_total`: ids issued locally because no server answered. */
  readonly fallbackIds: Counter;
  /** `vesta_client_fallbacks_total`: times the client switched to local issuing. */
  readonly fallbacks: Counter;
  /** `vesta_client_retries_total`: requests sent again to another server. */
  readonly retries: Counter;
  /** `vesta_client_server_down_total{server}`: times a server was marked down. */
  readonly serverDown: Counter<'server'>;
}

function counter<L extends string>(
  registry: Registry | undefined,
  name: string,
  help: string,
  labelNames: readonly L[] = [],
): Counter<L> {
  const existing = registry?.getSingleMetric(name);
  if (existing instanceof Counter) return existing as Counter<L>;
  return new Counter({
    name,
    help,
    labelNames,
    registers: registry === undefined ? [] : [registry],
  });
}

/** The client's counters, registered in `registry` (or kept unregistered when none is given). */
export function createClientMetrics(registry: Registry | undefined): ClientMetrics {
  return {
    fallbackIds: counter(
      registry,
      'vesta_client_fallback_ids_total',
      'Ids issued locally by the fallback because no server answered.',
    ),
    fallbacks: counter(
      registry,
      'vesta_client_fallbacks_total',
      'Times the client switched to issuing ids locally.',
    ),
    retries: counter(
      registry,
      'vesta_client_retries_total',
      'Requests sent again to another server after a failure.',
    ),
    serverDown: counter(
      registry,
      'vesta_client_server_down_total',
      'Times a server was marked down.',
      ['server'] as const,
    ),
  };
}
