import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '@vesta/core';
import { startRestServer } from '@vesta/rest';
import { createVestaMetrics } from '@vesta/metrics';
import { createSegmentService, MemorySegmentStore } from '@vesta/segment';
import { createIdClient, startIdServer } from '@vesta/server';
import { runToExit } from '@vesta/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vesta-promtool-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** `promtool check metrics` (Prometheus's linter; scripts/ensure-promtool.sh) on `text`. */
async function promtoolCheck(text: string): ReturnType<typeof runToExit> {
  const file = join(dir, `metrics-${Math.random().toString(36).slice(2)}.txt`);
  await writeFile(file, text);
  return runToExit('sh', ['-c', 'promtool check metrics < "$0"', file], dir);
}

async function scrape(url: string): Promise<string> {
  const answer = await fetch(url);
  expect(answer.status).toBe(200);
  return answer.text();
}

describe("every server's /metrics", () => {
  it('passes promtool check metrics and describes the service: build, machine id, health, time left', async () => {
    const rest = await startRestServer({
      port: 0,
      machineId: 1001,
      stateDir: false,
      logger: silentLogger,
    });
    const tcp = await startIdServer({
      port: 0,
      metricsPort: 0,
      machineId: 1002,
      stateDir: false,
      logger: silentLogger,
    });
    try {
      await fetch(`${rest.url}/genid`);
      const texts = [
        ['rest', 1001, await scrape(`${rest.url}/metrics`)],
        ['server', 1002, await scrape(`http://127.0.0.1:${tcp.metricsAddress?.port ?? 0}/metrics`)],
      ] as const;
      for (const [mode, machineId, text] of texts) {
        expect(await promtoolCheck(text), mode).toMatchObject({ code: 0, stdout: '', stderr: '' });
        expect(text).toMatch(
          new RegExp(
            `^vesta_build_info\\{version="\\d+\\.\\d+\\.\\d+",mode="${mode}",layout="vesta-max-peak",type="max-peak"\\} 1$`,
            'm',
          ),
        );
        expect(text).toMatch(
          new RegExp(`^vesta_machine_info\\{machine_id="${machineId}"\\} 1$`, 'm'),
        );
        expect(text).toMatch(new RegExp(`^vesta_healthy\\{machine_id="${machineId}"\\} 1$`, 'm'));
        // Vesta's max-peak time field (30 bits of seconds from 2025) runs out in 2059.
        const left = Number(/^vesta_time_field_remaining_seconds (\S+)$/m.exec(text)?.[1]);
        const years = left / (365.25 * 24 * 3600);
        expect(years).toBeGreaterThan(2059 - new Date().getUTCFullYear() - 1);
        expect(years).toBeLessThan(2059 - new Date().getUTCFullYear() + 1);
      }
      // Before the fix prom-client's *_total gauges failed the check; prove the check can fail.
      const bad = await promtoolCheck('# HELP x_total a gauge\n# TYPE x_total gauge\nx_total 1\n');
      expect(bad.code).not.toBe(0);
    } finally {
      await rest.close();
      await tcp.close();
    }
  });

  it('passes promtool check with segment metrics: fetches per key and outcome, numbers served, numbers buffered', async () => {
    const store = new MemorySegmentStore();
    await store.createKey('order', { step: 100, start: 1n });
    const restMetrics = createVestaMetrics();
    const tcpMetrics = createVestaMetrics();
    const restSegments = createSegmentService({ store, observer: restMetrics.segmentObserver });
    const tcpSegments = createSegmentService({ store, observer: tcpMetrics.segmentObserver });
    const rest = await startRestServer({
      port: 0,
      machineId: 1001,
      stateDir: false,
      logger: silentLogger,
      metrics: restMetrics,
      segments: restSegments,
    });
    const tcp = await startIdServer({
      port: 0,
      metricsPort: 0,
      machineId: 1002,
      stateDir: false,
      logger: silentLogger,
      metrics: tcpMetrics,
      segments: tcpSegments,
    });
    const client = await createIdClient({ servers: [tcp.url], logger: silentLogger });
    try {
      for (let i = 0; i < 3; i++)
        expect((await fetch(`${rest.url}/segment/order`)).status).toBe(200);
      expect((await fetch(`${rest.url}/segment/nobody`)).status).toBe(404);
      expect(await client.segments('order', 5)).toHaveLength(5);
      const texts = [
        ['rest', 3, await scrape(`${rest.url}/metrics`)],
        ['server', 5, await scrape(`http://127.0.0.1:${tcp.metricsAddress?.port ?? 0}/metrics`)],
      ] as const;
      for (const [mode, served, text] of texts) {
        expect(await promtoolCheck(text), mode).toMatchObject({ code: 0, stdout: '', stderr: '' });
        expect(text, mode).toMatch(
          /^vesta_segment_fetches_total\{key="order",outcome="fresh"\} [12]$/m,
        );
        expect(text, mode).toContain(`vesta_segment_numbers_served_total{key="order"} ${served}`);
        // The first segment (100) less what was served, plus the next when it was claimed.
        const buffered = Number(
          /^vesta_segment_buffered_numbers\{key="order"\} (\d+)$/m.exec(text)?.[1],
        );
        expect([100 - served, 100 - served + 200], mode).toContain(buffered);
      }
      expect(texts[0][2]).toContain(
        'vesta_segment_fetches_total{key="",outcome="SEGMENT_KEY_UNKNOWN"} 1',
      );
    } finally {
      await client.close();
      await rest.close();
      await tcp.close();
      await restSegments.close();
      await tcpSegments.close();
    }
  });
});
