import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '@vesta/core';
import { startRestServer } from '@vesta/rest';
import { startIdServer } from '@vesta/server';
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
});
