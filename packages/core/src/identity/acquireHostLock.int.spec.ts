import 'reflect-metadata';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { createIdService } from '../service/createIdService.js';
import type { IdService } from '../service/IdService.js';
import { caughtAsync, compiledFixture, FIXTURE_EXEC_ARGV, runToExit } from '@vesta/testkit';

const HOLDER = new URL('../__fixtures__/holdMachineId.ts', import.meta.url);
const CLUSTER = new URL('../__fixtures__/clusterOnOneMachineId.ts', import.meta.url);

const open: IdService[] = [];
const children: ChildProcess[] = [];

afterEach(async () => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  await Promise.all(open.splice(0).map((service) => service.close()));
});

async function service(options: Parameters<typeof createIdService>[0]): Promise<IdService> {
  const created = await createIdService(options);
  open.push(created);
  return created;
}

/** Starts a process holding `machineId`; resolves once it issues. */
async function holder(machineId: number): Promise<ChildProcess> {
  const script = await compiledFixture(HOLDER);
  const child = spawn(process.execPath, [...FIXTURE_EXEC_ARGV, script, String(machineId)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  let out = '';
  child.stdout?.setEncoding('utf8');
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: string) => {
      out += chunk;
      if (out.includes('ready')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`holder exited with ${String(code)}`)));
  });
  return child;
}

describe('the host-wide machine-id lock', () => {
  it('refuses a second live service on the same machine id in one process, and frees the id at close', async () => {
    const first = await service({ machineId: 41 });
    expect((await caughtAsync(() => createIdService({ machineId: 41 }))).code).toBe(
      'MACHINE_ID_IN_USE',
    );
    await first.close();
    await service({ machineId: 41 });
  });

  it('lets modes share a machine id number (their genMethods set their ids apart)', async () => {
    await service({ machineId: 42 });
    await service({ machineId: 42, genMethod: 1, machineIdRange: { min: 0, max: 1023 } });
  });

  it.each([
    ['another type', { type: 'min-granularity' as const }],
    ['a layout without a type bit', { layout: { typeBits: 0 } }],
    ['a layout without genMethod bits', { layout: { genMethodBits: 0 } }],
    ['wider machine bits', { layout: { machineBits: 11, seqBits: 19 } }],
  ])('refuses a second service of one mode on one machine id with %s', async (_name, change) => {
    await service({ machineId: 44 });
    expect((await caughtAsync(() => createIdService({ machineId: 44, ...change }))).code).toBe(
      'MACHINE_ID_IN_USE',
    );
  });

  it('refuses a machine id a live process on this host holds, and frees it when that process is SIGKILLed', async () => {
    const child = await holder(43);
    const error = await caughtAsync(() => createIdService({ machineId: 43 }));
    expect(error.code).toBe('MACHINE_ID_IN_USE');
    expect(error.message).toContain('machine id 43');
    child.kill('SIGKILL');
    await once(child, 'exit');
    await service({ machineId: 43 });
  });

  it('refuses a second node:cluster worker of one primary on the same machine id (the lock is not shared through the primary)', async () => {
    const cluster = await compiledFixture(CLUSTER);
    const run = await runToExit(process.execPath, [...FIXTURE_EXEC_ARGV, cluster], process.cwd());
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe(JSON.stringify(['MACHINE_ID_IN_USE', 'issuing']));
  });
});
