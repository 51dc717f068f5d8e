/**
 * `vesta audit` on 10,000,000 ids (`AUDIT_BENCH_IDS` to change it): its time and its peak
 * memory, the bound its README states. Writes the ids to a temp file (16 embedded machine ids
 * issuing in turn, 100,000 ids a second each, one duplicate of the first id planted at the end),
 * runs the built command line on it as a child process with `--stats` and reads its peak RSS
 * twice: as the command reports it (`process.resourceUsage().maxRSS`) and as the kernel does
 * (`VmHWM` in /proc/<pid>/status, polled). Prints one markdown section (about 40 s on 2 cores);
 * `pnpm bench` runs it after building (the integration tests build too).
 */
import { spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { VESTA_DIST_CLI } from '@vesta/testkit';

const COUNT = Number(process.env.AUDIT_BENCH_IDS ?? 10_000_000);
const MACHINES = 16;
const PER_SECOND = 100_000;
const EPOCH_MS = Date.UTC(2025, 0, 1);

/** Writes COUNT ids of the default Vesta layout (max-peak), plus a copy of the first one. */
async function writeIds(path: string): Promise<void> {
  const out = createWriteStream(path);
  const start = BigInt(
    Math.floor((Date.now() - EPOCH_MS) / 1000) - Math.ceil(COUNT / MACHINES / PER_SECOND) - 60,
  );
  let lines: string[] = [];
  for (let i = 0; i < COUNT; i++) {
    const k = Math.floor(i / MACHINES);
    const time = start + BigInt(Math.floor(k / PER_SECOND));
    lines.push(String((time << 30n) | (BigInt(k % PER_SECOND) << 10n) | BigInt(i % MACHINES)));
    if (lines.length === 100_000) {
      if (!out.write(`${lines.join('\n')}\n`)) await once(out, 'drain');
      lines = [];
    }
  }
  lines.push(String(start << 30n));
  out.end(`${lines.join('\n')}\n`);
  await once(out, 'finish');
}

/** The kernel's peak RSS of a live process, in bytes (0 once it is gone). */
function vmHwm(pid: number): number {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match === null ? 0 : Number(match[1]) * 1024;
  } catch {
    return 0;
  }
}

const dir = mkdtempSync(join(tmpdir(), 'vesta-audit-bench-'));
try {
  const path = join(dir, 'ids.txt');
  const written = performance.now();
  await writeIds(path);
  const writeMs = performance.now() - written;
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [...VESTA_DIST_CLI, 'audit', path, '--stats', '--temp-dir', dir],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.resume();
  let hwm = 0;
  const poll = setInterval(() => (hwm = Math.max(hwm, vmHwm(child.pid as number))), 100);
  const [code] = (await once(child, 'close')) as [number | null];
  clearInterval(poll);
  const wallMs = performance.now() - started;
  const report = JSON.parse(stdout) as {
    count: number;
    duplicates: { count: number };
    stats: { runs: number; tempBytes: number; elapsedMs: number; maxRssBytes: number };
  };
  const mb = (bytes: number): string => (bytes / 2 ** 20).toFixed(0);
  console.log(
    `ids: ${report.count.toLocaleString('en')} (file written in ${(writeMs / 1000).toFixed(1)} s), exit ${code}, duplicates found: ${report.duplicates.count}\n`,
  );
  console.log(
    '| wall | audit (own) | run files | written | peak RSS (maxRSS) | peak RSS (VmHWM, polled) |',
  );
  console.log('|---|---|---|---|---|---|');
  console.log(
    `| ${(wallMs / 1000).toFixed(1)} s | ${(report.stats.elapsedMs / 1000).toFixed(1)} s | ${report.stats.runs} | ${mb(report.stats.tempBytes)} MiB | ${mb(report.stats.maxRssBytes)} MiB | ${mb(hwm)} MiB |`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
