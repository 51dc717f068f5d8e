import { afterAll, describe, expect, inject, it } from 'vitest';
import { leaseControl } from './testing/leaseControl.js';
import { issueContinuously } from '@vesta/testkit';
import { eventually, FAST, recordingLogger, startInstance, testRoot } from './testing/zkTestKit.js';
import { startTcpProxy, type TcpProxy } from '@vesta/testkit';

const connect = inject('zookeeperConnect');
/** Long enough for the session to outlive the black hole, so the new client resumes it. */
const SESSION_TIMEOUT_MS = 20_000;
/**
 * How many renewal turns the black hole lasts (1 s): well past the fence, well short of
 * `connectTimeoutMs`.
 */
const BLACK_HOLE_TURNS = 1000 / FAST.refreshIntervalMs;
/** From the end of the black hole to issuing again (the stuck-client watchdog needs `connectTimeoutMs`). */
const RESUME_BOUND_MS = 3 * FAST.connectTimeoutMs;

let proxy: TcpProxy | undefined;
let instance: Awaited<ReturnType<typeof startInstance>> | undefined;
let closed = false;

afterAll(async () => {
  if (instance !== undefined && !closed) {
    leaseControl(instance.lease).abandon(); // no final write through a proxy that may not answer
    await instance.service.close().catch(() => undefined);
  }
  await proxy?.close();
});

describe('ZooKeeperMachineIdLease with a client stuck connecting', () => {
  it('leaves a connection that is accepted but never answered, and resumes the same session', async () => {
    const tcp = await startTcpProxy(connect);
    proxy = tcp;
    const logger = recordingLogger();
    instance = await startInstance({
      connect: tcp.address,
      root: testRoot(),
      key: 'stuck-0',
      logger,
      sessionTimeoutMs: SESSION_TIMEOUT_MS,
      reclaimAfterMs: 2 * SESSION_TIMEOUT_MS,
    });
    const { service, lease } = instance;
    const machineId = lease.machineId;
    const sessionId = leaseControl(lease).session().id.toString('hex');

    const issuing = issueContinuously([service]);
    const { seen, errors } = issuing;

    try {
      // Phase 1: the proxy forwards; the instance issues.
      expect(await eventually(() => seen.size > 0, 5000)).toBe(true);
      expect(service.health().ok).toBe(true);

      // Phase 2: every connection dropped, new ones accepted and never answered.
      tcp.blackHole();
      const fenced = await eventually(() => !service.health().ok, 20 * FAST.fenceAfterMs);
      expect(fenced).toBe(true);
      await expect(service.genId()).rejects.toMatchObject({ code: 'MACHINE_ID_LEASE_LOST' });
      // The client reconnected into the black hole: its TCP connection is up, its handshake
      // unanswered (node-zookeeper-client has no timeout for that).
      expect(await eventually(() => tcp.blackHoled > 0, 10_000)).toBe(true);
      const missedBefore = lease.stats.missedRenewals;
      const missed = (turns: number): Promise<boolean> =>
        eventually(() => lease.stats.missedRenewals >= missedBefore + turns, 10_000);
      expect(await missed(BLACK_HOLE_TURNS)).toBe(true);
      expect(leaseControl(lease).connectionState()).not.toMatch(/^SYNC_CONNECTED/);
      const frozenAt = seen.size;
      expect(await missed(BLACK_HOLE_TURNS + 2)).toBe(true);
      expect(seen.size - frozenAt).toBe(0);

      // Phase 3: new connections are forwarded again; the black-holed ones stay as they are.
      const forwardedBefore = tcp.forwarded;
      tcp.forward();
      const resumed = await eventually(() => service.health().ok, RESUME_BOUND_MS);
      expect(
        resumed,
        `still fenced ${RESUME_BOUND_MS} ms after the black hole ended: client ${leaseControl(lease).connectionState()}, ${tcp.blackHoled} black-holed connection(s), ${tcp.forwarded - forwardedBefore} new forwarded`,
      ).toBe(true);
      const atResume = seen.size;
      expect(await eventually(() => seen.size > atResume, 10_000)).toBe(true);

      // Each missed turn dropped the unanswered connection (the client went on to the next
      // server, here the proxy again), so a forwarded one came soon after the black hole ended.
      expect(tcp.forwarded).toBeGreaterThan(forwardedBefore);
      expect(leaseControl(lease).session().id.toString('hex')).toBe(sessionId);
      expect(lease.machineId).toBe(machineId);
      expect(lease.lost).toBe(false);
      expect(errors.get('MACHINE_ID_LEASE_LOST')).toBeGreaterThan(0);
      expect([...errors.keys()]).toEqual(['MACHINE_ID_LEASE_LOST']);
      expect(issuing.duplicates()).toBe(0);
    } finally {
      await issuing.stop();
    }
    await service.close();
    closed = true;
  }, 25_000);
});
