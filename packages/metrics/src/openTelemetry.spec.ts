import { metrics as otelMetrics } from '@opentelemetry/api';
import { MeterProvider, MetricReader, type ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { describe, expect, it } from 'vitest';
import { createVestaMetrics } from './VestaMetrics.js';

/** A reader the test collects from on demand (the SDK's own base class). */
class OnDemandReader extends MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

/** Every data point of the collected metrics, as `name{attributes}` -> value (sum or count). */
function points(collected: ResourceMetrics): Record<string, number> {
  const out: Record<string, number> = {};
  for (const scope of collected.scopeMetrics) {
    for (const metric of scope.metrics) {
      for (const point of metric.dataPoints) {
        const attributes = Object.entries(point.attributes)
          .map(([k, v]) => `${k}=${String(v)}`)
          .join(',');
        const value = point.value as number | { count: number };
        out[`${metric.descriptor.name}{${attributes}}`] =
          typeof value === 'number' ? value : value.count;
      }
    }
  }
  return out;
}

describe('the OpenTelemetry hook', () => {
  it('reports ids issued, requests and their latency to a real OpenTelemetry SDK meter, beside Prometheus', async () => {
    const reader = new OnDemandReader();
    const provider = new MeterProvider({ readers: [reader] });
    // Through @opentelemetry/api, as an application wires it.
    otelMetrics.setGlobalMeterProvider(provider);
    try {
      const metrics = createVestaMetrics({
        collectDefaults: false,
        meter: otelMetrics.getMeter('vesta'),
      });
      metrics.countIdsIssued(5);
      metrics.countIdsIssued(2);
      const genid = metrics.requestRecorder('/genid');
      genid.record(200, 0.001);
      genid.record(503, 0.002);
      metrics.observeRequest('generate', 200, 0.0005);
      const { resourceMetrics, errors } = await reader.collect();
      expect(errors).toEqual([]);
      expect(points(resourceMetrics)).toEqual({
        'vesta.ids.issued{}': 7,
        'vesta.requests{route=/genid,status=200}': 1,
        'vesta.requests{route=/genid,status=503}': 1,
        'vesta.requests{route=generate,status=200}': 1,
        'vesta.request.duration{route=/genid}': 2,
        'vesta.request.duration{route=generate}': 1,
      });
      // Prometheus counts the same.
      expect((await metrics.render()).body).toContain('vesta_ids_issued_total 7');
    } finally {
      otelMetrics.disable();
      await provider.shutdown();
    }
  });
});
