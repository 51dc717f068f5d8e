import { spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { silentLogger } from '@vesta/core';
import { EtcdMachineIdProvider } from '@vesta/etcd';
import { PostgresMachineIdProvider } from '@vesta/postgres';
import { RedisMachineIdProvider } from '@vesta/redis';
import { startRestServer, type RestServer } from '@vesta/rest';
import { startIdServer, type IdServerHandle } from '@vesta/server';
import {
  compiledFixture,
  compiledFixtures,
  FIXTURE_EXEC_ARGV,
  openAllocationEraOf,
  startRedisServer,
  VESTA_CLI,
  type RedisServer,
} from '@vesta/testkit';
import { ZooKeeperMachineIdProvider } from '@vesta/zookeeper';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

/**
 * Every ```ts and ```sh block of README.md and packages/*\/README.md runs as written. A block
 * that is deliberately not run says so in its info string (```text, or ```sh no-run /
 * ```ts no-run for an install line or a command that would run the whole suite); any other info
 * string fails the test, so no block is skipped silently.
 *
 * Names the snippets use for a fleet are mapped to parts this test starts (see MAPPINGS): hosts
 * such as ids-1.internal, zk1:2181 and redis://redis:6379 become local servers, the test's
 * ZooKeeper and a Redis of its own, fixed ports
 * become port 0 (or the test's `vesta rest`), /var/lib/* a temp dir, and `vesta` on PATH this
 * workspace's CLI.
 */

const ROOT = resolve(import.meta.dirname, '../../..');
const PACKAGE = resolve(import.meta.dirname, '..');
const SNIPPET_TIMEOUT_MS = 45_000;

interface Block {
  readonly file: string;
  readonly line: number;
  readonly info: string;
  readonly code: string;
}

async function readmes(): Promise<string[]> {
  const packages = await readdir(join(ROOT, 'packages'));
  return ['README.md', ...packages.sort().map((p) => `packages/${p}/README.md`)];
}

function blocksOf(file: string, text: string): Block[] {
  const blocks: Block[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(.*)$/.exec(lines[i] ?? '');
    if (open === null) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i] !== '```'; i++) body.push(lines[i] ?? '');
    blocks.push({ file, line: start + 1, info: (open[1] ?? '').trim(), code: body.join('\n') });
  }
  return blocks;
}

function kind(info: string): 'ts' | 'sh' | 'skip' | 'unknown' {
  if (info === 'ts' || info === 'sh') return info;
  if (info === 'text' || /^(ts|sh) no-run$/.test(info)) return 'skip';
  return 'unknown';
}

let work: string;
/** The folder of the compiled snippets (see compiledSnippets), once written. */
let snippetDir: string | undefined;
let rest: RestServer;
let idServers: IdServerHandle[];
let redis: RedisServer;
const zookeeper = inject('zookeeperConnect');
const postgres = inject('postgresUrl');
const etcd = inject('etcdEndpoints');

/** The fleet names of the snippets, mapped to what this test runs. */
function mappings(stateDir: string): [RegExp | string, string][] {
  const [a, b] = idServers.map((s) => `127.0.0.1:${s.address.port}`);
  return [
    ['ids-1.internal:7070', a ?? ''],
    ['ids-2.internal:7070', b ?? ''],
    ['zk1:2181,zk2:2181', zookeeper],
    ['zk1.internal:2181', zookeeper],
    ['postgres://vesta@db:5432/app', postgres],
    ['etcd1:2379,etcd2:2379', etcd],
    ['redis://redis:6379', redis.url],
    [/\/var\/lib\/[a-z]+/g, stateDir],
    [/\bport: (8080|7070)\b/g, 'port: 0'],
    [/\bmetricsPort: 9464\b/g, 'metricsPort: 0'],
    [/\blocalhost:8080\b/g, `127.0.0.1:${rest.port}`],
    [/\bouter\.listen\(3000/g, 'outer.listen(0'],
    [/\bapp\.listen\(3000,/g, 'app.listen(0,'],
  ];
}

function mapped(code: string, stateDir: string): string {
  let out = code;
  for (const [from, to] of mappings(stateDir)) out = out.replaceAll(from, to);
  return out;
}

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a snippet to its exit, bounded. A snippet that serves until SIGTERM (it says so with a
 * `process.on('SIGTERM'` handler) gets SIGTERM once it has printed its first line.
 */
function run(command: string, args: string[], cwd: string, serves: boolean): Promise<Run> {
  const child = spawn(command, args, {
    cwd,
    env: { ...process.env, PATH: `${join(work, 'bin')}:${process.env.PATH ?? ''}` },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const lines = createInterface({ input: child.stdout });
  lines.on('line', (line) => {
    if (serves && stdout === '') child.kill('SIGTERM');
    stdout += `${line}\n`;
  });
  const limit = setTimeout(() => child.kill('SIGKILL'), SNIPPET_TIMEOUT_MS);
  return new Promise((done) =>
    child.once('close', (code, signal) => {
      clearTimeout(limit);
      done({ code, signal, stdout, stderr });
    }),
  );
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'vesta-readme-'));
  await mkdir(join(work, 'bin'));
  // `vesta` as an installed CLI would be: this workspace's, compiled (testkit's VESTA_CLI).
  await writeFile(join(work, 'bin', 'vesta'), `#!/bin/sh\nexec node ${VESTA_CLI.join(' ')} "$@"\n`);
  await chmod(join(work, 'bin', 'vesta'), 0o755);
  rest = await startRestServer({ stateDir: false, machineId: 1023, port: 0, logger: silentLogger });
  idServers = [
    await startIdServer({ port: 0, machineId: 1001, stateDir: false, logger: silentLogger }),
    await startIdServer({ port: 0, machineId: 1002, stateDir: false, logger: silentLogger }),
  ];
  redis = await startRedisServer();
  // The stores the snippets name, in the namespaces they use (each package's defaults), start
  // with their allocation era open, as after an operator's `vesta machine-ids init`: a first
  // start on a new store otherwise waits out the fencing bound (about 11 s, each snippet).
  const quiet = { eraWaitMs: 0, logger: silentLogger };
  await Promise.all([
    openAllocationEraOf(new RedisMachineIdProvider({ url: redis.url, ...quiet })),
    openAllocationEraOf(new ZooKeeperMachineIdProvider({ connect: zookeeper, ...quiet })),
    openAllocationEraOf(new PostgresMachineIdProvider({ url: postgres, ...quiet })),
    openAllocationEraOf(new EtcdMachineIdProvider({ endpoints: etcd, ...quiet })),
  ]);
});

afterAll(async () => {
  if (snippetDir !== undefined) await rm(snippetDir, { recursive: true, force: true });
  await rest?.close();
  for (const server of idServers ?? []) await server.close();
  await redis?.dispose();
  await rm(work, { recursive: true, force: true });
});

const files = await readmes();
const blocks = (
  await Promise.all(
    files.map(async (file) => blocksOf(file, await readFile(join(ROOT, file), 'utf8'))),
  )
).flat();

/**
 * A block's code with the fleet's names mapped; each snippet its own state dir (two snippets may
 * use the same machine id).
 */
function mappedBlock(block: Block): string {
  return mapped(block.code, join(work, `state-${block.file.replaceAll('/', '-')}-${block.line}`));
}

let snippets: Promise<Map<Block, string>> | undefined;

/**
 * The bundle of each ```ts block, compiled once, by the first snippet that runs. Each snippet is
 * compiled as written (esbuild, as tsx would) and run by plain Node: what it imports is the
 * compiled packages, as installed. The snippets sit inside this package, so that their imports
 * resolve to the workspace's packages, and are compiled together (compiledFixtures): the
 * packages they share are bundled once instead of once per snippet, about 0.15 CPU-s each.
 */
function compiledSnippets(): Promise<Map<Block, string>> {
  snippets ??= (async () => {
    const ts = blocks.filter((b) => b.info === 'ts');
    const dir = await mkdtemp(join(PACKAGE, '.snippet-'));
    snippetDir = dir;
    const files = ts.map((b) => join(dir, `${b.file.replaceAll('/', '-')}-${b.line}.ts`));
    await Promise.all(ts.map((b, i) => writeFile(files[i] ?? '', mappedBlock(b))));
    // NestJS snippets are bundled alone: split into shared chunks, Nest's ES modules are hoisted
    // above the CommonJS reflect-metadata their index imports first, and its decorators fail.
    const alone = ts.map((b) => /from '@nestjs\//.test(b.code));
    const together = files.filter((_, i) => !alone[i]);
    const shared = await compiledFixtures(together);
    const bundles = await Promise.all(
      files.map((file, i) =>
        alone[i] ? compiledFixture(file) : (shared[together.indexOf(file)] ?? ''),
      ),
    );
    return new Map(ts.map((b, i) => [b, bundles[i] ?? '']));
  })();
  return snippets;
}

describe('README snippets', () => {
  it('label every block: ts, sh, text, or "ts no-run" / "sh no-run"', () => {
    const unlabelled = blocks
      .filter((b) => kind(b.info) === 'unknown')
      .map((b) => `${b.file}:${b.line} \`\`\`${b.info}`);
    expect(unlabelled).toEqual([]);
  });

  it.each(
    blocks
      .filter((b) => kind(b.info) === 'ts' || kind(b.info) === 'sh')
      .map((b) => [`${b.file}:${b.line} (${b.info})`, b] as const),
  )('%s runs as written and exits 0', async (_name, block) => {
    const code = mappedBlock(block);
    const serves = /process\.(on|once)\('SIGTERM'/.test(code);
    let result: Run;
    if (block.info === 'ts') {
      const compiled = (await compiledSnippets()).get(block) ?? '';
      result = await run(
        process.execPath,
        [...FIXTURE_EXEC_ARGV, relative(PACKAGE, compiled)],
        PACKAGE,
        serves,
      );
    } else {
      result = await run('sh', ['-eu', '-c', code], ROOT, serves);
    }
    expect(result, `${block.file}:${block.line}\n${code}\n${result.stderr}`).toMatchObject({
      code: 0,
      signal: null,
    });
    // curl -s exits 0 on an error answer too: no snippet is meant to show one.
    expect(result.stdout).not.toMatch(/\{"error":\{"code"/);
  });
});
