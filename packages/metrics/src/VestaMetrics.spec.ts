import { describe, expect, it } from 'vitest';
import { createIdService } from '@vesta/core';
import { createVestaMetrics } from './VestaMetrics.js';

describe('a request recorder', () => {
  it('counts its requests by status and observes their latency in the same series as observeRequest', async () => {
    const metrics = createVestaMetrics({ collectDefaults: false });
    const genid = metrics.requestRecorder('/genid');
    genid.record(200, 0.0002);
    genid.record(200, 0.002);
    genid.record(503, 0.0001);
    metrics.observeRequest('/genid', 200, 0.0003);
    const counts = (await metrics.requests.get()).values.map((v) => [v.labels, v.value]);
    expect(counts).toEqual([
      [{ route: '/genid', status: '200' }, 3],
      [{ route: '/genid', status: '503' }, 1],
    ]);
    const text = (await metrics.render()).body;
    expect(text).toContain('vesta_requests_total{route="/genid",status="200"} 3');
    expect(text).toContain('vesta_request_duration_seconds_count{route="/genid"} 4');
    expect(text).toContain('vesta_request_duration_seconds_bucket{le="0.00025",route="/genid"} 2');
  });

  it('adds what was recorded since the last read, never twice', async () => {
    const metrics = createVestaMetrics({ collectDefaults: false });
    const info = metrics.requestRecorder('/info');
    info.record(200, 0.001);
    await metrics.render();
    info.record(200, 0.001);
    expect((await metrics.requests.get()).values[0]?.value).toBe(2);
    expect((await metrics.requests.get()).values[0]?.value).toBe(2);
  });
});

describe('countIdsIssued', () => {
  it('adds the ids counted since the last read to vesta_ids_issued_total, never twice', async () => {
    const metrics = createVestaMetrics({ collectDefaults: false });
    metrics.countIdsIssued(1000);
    metrics.countIdsIssued(1);
    expect((await metrics.render()).body).toContain('vesta_ids_issued_total 1001');
    metrics.countIdsIssued(5);
    expect((await metrics.idsIssued.get()).values[0]?.value).toBe(1006);
    expect((await metrics.idsIssued.get()).values[0]?.value).toBe(1006);
  });
});

describe('the time lead', () => {
  it('counts borrowed units and reads the lead against the clock at each scrape, back at 0 once it caught up', async () => {
    let now = Date.UTC(2026, 0, 1);
    const metrics = createVestaMetrics({ collectDefaults: false, clock: () => now });
    expect((await metrics.render()).body).toContain('vesta_time_lead_seconds 0');
    metrics.observer.onTimeBorrowed?.(now + 1000);
    metrics.observer.onTimeBorrowed?.(now + 2500);
    const text = (await metrics.render()).body;
    expect(text).toContain('vesta_time_units_borrowed_total 2');
    expect(text).toContain('vesta_time_lead_seconds 2.5');
    now += 2000;
    expect((await metrics.timeLead.get()).values[0]?.value).toBe(0.5);
    now += 600;
    expect((await metrics.timeLead.get()).values[0]?.value).toBe(0);
  });
});

describe('the metrics of an id service borrowing time', () => {
  it('count the units a burst borrowed and read its lead, back at 0 once the clock caught up', async () => {
    let now = Date.UTC(2026, 0, 1);
    const clock = (): number => now;
    const metrics = createVestaMetrics({ collectDefaults: false, clock });
    // Millisecond units of 16 ids: 160 ids span units 0 .. 9.
    const service = await createIdService({
      machineId: 31,
      type: 'min-granularity',
      layout: { seqBits: 4, versionBits: 7 },
      maxLeadMs: 10,
      clock,
      observer: metrics.observer,
    });
    await service.genIds(160);
    const text = (await metrics.render()).body;
    expect(text).toContain('vesta_time_units_borrowed_total 9');
    expect(text).toContain('vesta_time_lead_seconds 0.009');
    expect(text).toContain('vesta_sequence_exhausted_total 0');
    now += 9;
    expect((await metrics.timeLead.get()).values[0]?.value).toBe(0);
    await service.close();
  });
});

describe('describeService', () => {
  it('reads health and time left at each scrape, and keeps the first service when asked twice', async () => {
    const metrics = createVestaMetrics({
      collectDefaults: false,
      clock: () => Date.parse('2059-01-01T00:00:00Z'),
    });
    const service = await createIdService({ machineId: 7 });
    metrics.describeService(service, 'embedded');
    const other = await createIdService({ machineId: 8 });
    metrics.describeService(other, 'server');
    let text = (await metrics.render()).body;
    expect(text).toContain(
      'vesta_build_info{version="0.1.0",mode="embedded",layout="vesta-max-peak",type="max-peak"} 1',
    );
    expect(text).toContain('vesta_machine_info{machine_id="7"} 1');
    expect(text).not.toContain('machine_id="8"');
    expect(text).toContain('vesta_healthy{machine_id="7"} 1');
    // 2^30 s after the 2025-01-01 epoch: 2059-01-10T13:37:04Z, 9.57 days after the clock above.
    expect(service.info().expiry).toBe('2059-01-10T13:37:04.000Z');
    const left = Number(/^vesta_time_field_remaining_seconds (\S+)$/m.exec(text)?.[1]);
    expect(left).toBe(
      (Date.parse(service.info().expiry) - Date.parse('2059-01-01T00:00:00Z')) / 1000,
    );
    expect(left).toBe(9 * 86_400 + 13 * 3600 + 37 * 60 + 4);
    await service.close();
    await other.close();
    text = (await metrics.render()).body;
    expect(text).toContain('vesta_healthy{machine_id="7"} 0');
  });
});

describe('the segment metrics', () => {
  it('count claims per key and outcome, numbers served per key, and read the numbers buffered at each scrape', async () => {
    const metrics = createVestaMetrics({ collectDefaults: false });
    const observer = metrics.segmentObserver;
    let orderBuffered = 0;
    observer.onKey?.('order', () => orderBuffered);
    observer.onKey?.('order', () => 5);
    observer.onKey?.('nobody', () => 0);
    observer.onClaim?.('order', 'fresh', 100);
    observer.onClaim?.('order', 'handed_back', 40);
    observer.onClaim?.('order', 'COORDINATOR_UNAVAILABLE', 0);
    // A key the store never gave a range of is no label value: callers cannot make series up.
    observer.onClaim?.('nobody', 'SEGMENT_KEY_UNKNOWN', 0);
    observer.onClaim?.('nobody2', 'SEGMENT_KEY_UNKNOWN', 0);
    observer.onServed?.('order', 3);
    observer.onServed?.('order', 1);
    orderBuffered = 136;
    const text = (await metrics.render()).body;
    expect(text).toContain('vesta_segment_fetches_total{key="order",outcome="fresh"} 1');
    expect(text).toContain('vesta_segment_fetches_total{key="order",outcome="handed_back"} 1');
    expect(text).toContain(
      'vesta_segment_fetches_total{key="order",outcome="COORDINATOR_UNAVAILABLE"} 1',
    );
    expect(text).toContain('vesta_segment_fetches_total{key="",outcome="SEGMENT_KEY_UNKNOWN"} 2');
    expect(text).not.toContain('nobody');
    expect(text).toContain('vesta_segment_numbers_served_total{key="order"} 4');
    // Two services of one key (a second server sharing the metrics): their sum.
    expect(text).toContain('vesta_segment_buffered_numbers{key="order"} 141');
    observer.onServed?.('order', 2);
    orderBuffered = 134;
    const later = (await metrics.render()).body;
    expect(later).toContain('vesta_segment_numbers_served_total{key="order"} 6');
    expect(later).toContain('vesta_segment_buffered_numbers{key="order"} 139');
  });
});
