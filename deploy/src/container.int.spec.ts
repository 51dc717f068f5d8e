import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '@vesta/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const DEPLOY = resolve(import.meta.dirname, '..');
const ROOT = resolve(DEPLOY, '..');
/** How long the container may take to answer /health 200 after it starts. */
const HEALTHY_DEADLINE_MS = 60_000;

/**
 * Opt-in: the image is built from the workspace's packed tarballs, with the third-party
 * dependencies from the npm registry (about a minute on 2 cores), so it is not part of a plain
 * test run. `VESTA_TEST_CONTAINER=1` and podman on PATH turn it on.
 */
function containerTestsWanted(): boolean {
  if (process.env['VESTA_TEST_CONTAINER'] !== '1') return false;
  try {
    execFileSync('podman', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * Where crun cannot start a container (a cgroup v1/v2 hybrid host) and podman's default
 * limits are above what this process may set (no CAP_SYS_RESOURCE), as on our CI machines:
 * runc, with limits this process can grant. Empty where a plain `podman run` works.
 */
async function podmanFlags(image: string): Promise<{ global: string[]; limits: string[] }> {
  try {
    await run('podman', ['run', '--rm', image, 'node', '-e', '0']);
    return { global: [], limits: [] };
  } catch {
    return {
      global: ['--runtime', 'runc'],
      limits: ['--ulimit', 'nofile=4096:4096', '--ulimit', 'nproc=4096:4096'],
    };
  }
}

const suffix = randomBytes(4).toString('hex');
const image = `localhost/vesta-test:${suffix}`;
const base = `localhost/vesta-offline-node:test-${suffix}`;
const volume = `vesta-test-state-${suffix}`;
const containers: string[] = [];
let context: string;
let flags: { global: string[]; limits: string[] };

async function podman(...args: string[]): Promise<string> {
  const { stdout } = await run('podman', [...flags.global, ...args], { maxBuffer: 64 << 20 });
  return stdout.trim();
}

/** Starts the image on the state volume, published on a loopback port; resolves with its URL. */
async function startContainer(): Promise<{ name: string; url: string }> {
  const name = `vesta-test-${suffix}-${String(containers.length)}`;
  const port = await freePort();
  containers.push(name);
  await podman(
    'run',
    '-d',
    '--name',
    name,
    ...flags.limits,
    '-p',
    `127.0.0.1:${String(port)}:8080`,
    '-v',
    `${volume}:/var/lib/vesta`,
    image,
  );
  const url = `http://127.0.0.1:${String(port)}`;
  const deadline = Date.now() + HEALTHY_DEADLINE_MS;
  for (let attempt = 0; attempt < 600; attempt++) {
    const status = await fetch(`${url}/health`).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 200) return { name, url };
    if (Date.now() > deadline) break;
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error(`${name} not healthy in time:\n${await podman('logs', name)}`);
}

async function genId(url: string): Promise<bigint> {
  const { id } = (await (await fetch(`${url}/genid`)).json()) as { id: string };
  return BigInt(id);
}

describe.skipIf(!containerTestsWanted())(
  'deploy/container/Containerfile (VESTA_TEST_CONTAINER=1 and podman; skipped otherwise)',
  () => {
    beforeAll(async () => {
      context = await mkdtemp(join(tmpdir(), 'vesta-image-'));
      await mkdir(join(context, 'packages'));
      for (const file of ['Containerfile', 'healthcheck.mjs']) {
        await copyFile(join(DEPLOY, 'container', file), join(context, file));
      }
      await run('sh', ['scripts/pnpm.sh', 'run', '--silent', 'build'], { cwd: ROOT });
      await run(
        'sh',
        ['scripts/pnpm.sh', '-r', '--filter', './packages/*', 'pack', '--pack-destination'].concat(
          join(context, 'packages'),
        ),
        { cwd: ROOT },
      );
      await run('sh', [join(DEPLOY, 'container/offline-base.sh'), base]);
      flags = await podmanFlags(base);
      // --layers=false: no intermediate image (the install stage's) is left behind.
      await podman(
        'build',
        '--layers=false',
        ...flags.limits,
        '--format',
        'docker',
        '--build-arg',
        `NODE_IMAGE=${base}`,
        '-t',
        image,
        '-f',
        join(context, 'Containerfile'),
        context,
      );
      await podman('volume', 'create', volume);
    }, 600_000);

    afterAll(async () => {
      for (const name of containers) await podman('rm', '--force', name).catch(() => undefined);
      await podman('volume', 'rm', '--force', volume).catch(() => undefined);
      await podman('rmi', '--force', image, base).catch(() => undefined);
      if (context !== undefined) await rm(context, { recursive: true, force: true });
    });

    it('runs vesta rest as uid 10001, healthy by its HEALTHCHECK, with no coordinator client', async () => {
      const config = JSON.parse(await podman('image', 'inspect', image)) as [
        { Config: { User: string } },
      ];
      expect(config[0].Config.User).toBe('10001:10001');
      const { name, url } = await startContainer();
      expect(await podman('exec', name, 'node', '-p', 'process.getuid()')).toBe('10001');
      await podman('healthcheck', 'run', name);
      expect(await genId(url)).toBeGreaterThan(0n);
      const installed = await podman('exec', name, 'ls', '/opt/vesta/node_modules/@vesta');
      expect(installed.split('\n')).not.toContain('etcd');
      expect(installed.split('\n')).toContain('cli');
    });

    it('stops with exit 0 on SIGTERM, its mark on the volume, from which a new container starts', async () => {
      const first = containers[0] ?? (await startContainer()).name;
      await podman('stop', '--time', '20', first);
      expect(await podman('inspect', first, '--format', '{{.State.ExitCode}}')).toBe('0');
      const listing = await podman(
        'run',
        '--rm',
        ...flags.limits,
        '-v',
        `${volume}:/var/lib/vesta`,
        '--entrypoint',
        'ls',
        image,
        '-ln',
        '/var/lib/vesta',
      );
      expect(listing).toMatch(/^-rw------- +1 10001 +10001 .* time-mark-g2-t0-m1023-/m);
      const { url } = await startContainer();
      expect(await genId(url)).toBeGreaterThan(0n);
    });
  },
);
