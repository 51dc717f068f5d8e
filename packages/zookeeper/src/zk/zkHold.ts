import { VestaError } from '@vesta/core';
import type { HoldVerbs, LeaseClaimant } from '@vesta/lease';
import type { ResolvedZooKeeperMachineIdOptions } from '../ZooKeeperMachineIdOptions.js';
import { unlessZk, ZK, ZkClient, type ZkOp } from './ZkClient.js';
import { decodeEraNode, put, stamped, type ZkTree } from './ZkTree.js';

/** The current client of each ZooKeeper hold, for the test hooks (`testing/leaseControl.ts`). */
export const zkHoldClients = new WeakMap<object, () => ZkClient>();

/**
 * A machine id held through ZooKeeper: each turn writes the mark at the version last written, under
 * the era's token (a store that lost its data fails the write). The client is replaced after a
 * session expiry and after `connectTimeoutMs` disconnected, as node-zookeeper-client can stay so
 * for good after its server restarts.
 */
export function zkHold(
  zk: ZkClient,
  T: ZkTree,
  o: ResolvedZooKeeperMachineIdOptions,
  machineId: number,
  c: LeaseClaimant,
): HoldVerbs<number> {
  let closed = false;
  let lapsed = false;
  /** Whether this session's own live node stands (read with the record). */
  let ownLive = false;
  let disconnectedSince: number | undefined;
  const warn = (message: string): void => o.logger.warn({ machineId }, message);
  const use = (client: ZkClient): void => {
    zk = client;
    client.client.on('expired', () => {
      if (client !== zk || closed) return;
      warn('ZooKeeper session expired; reconnecting to re-confirm the machine id');
      lapsed = true;
      client.close();
      use(ZkClient.open(o.connect, o).zk);
    });
  };
  use(zk);
  const connected = (): ZkClient => {
    const now = o.time.monotonic();
    if (zk.connected) disconnectedSince = undefined;
    else if (now - (disconnectedSince ??= now) >= o.connectTimeoutMs) {
      disconnectedSince = now;
      const session = zk.session();
      zk.close();
      use(ZkClient.open(o.connect, o, session).zk);
      warn('ZooKeeper client disconnected too long; reconnecting with the same session');
    }
    if (disconnectedSince === undefined) return zk;
    throw new VestaError('ZOOKEEPER_UNAVAILABLE', 'the ZooKeeper client is disconnected');
  };
  const write = (era: string, holding: object, version: number, more: ZkOp[] = [], to = zk) =>
    to.multi([T.eraCheck(era), put(T.idPath(machineId), stamped(holding), version), ...more]);
  const verbs: HoldVerbs<number> = {
    lapsed: () => lapsed,
    renew: async ({ era }, holding, version, retake) => {
      if (retake) {
        await write(era, holding, version, ownLive ? [] : [T.liveNode(machineId, c)], connected());
        lapsed = false;
        return version + 1;
      }
      const written = write(era, holding, version, [], connected()).then(() => version + 1);
      return unlessZk(written, 'conflict' as const, ZK.BAD_VERSION, ZK.NO_NODE);
    },
    read: async () => {
      const client = connected();
      const [eraNode, { node, data: found, live }] = await Promise.all([
        client.getData(T.era),
        T.readId(client, machineId),
      ]);
      const era = eraNode && decodeEraNode(eraNode.data);
      ownLive = live?.ephemeralOwner.toString('hex') === client.session().id.toString('hex');
      // The era node alone could be a new tree's: its token must stand too.
      const stands = era !== undefined && (await client.exists(T.eraToken(era.era))) !== undefined;
      const othersLive = live !== undefined && !ownLive;
      const record = node && found && { ...found, live: othersLive, version: node.stat.version };
      return { era: stands ? era : undefined, record };
    },
    release: async ({ era }, holding, version) => {
      if (lapsed || !zk.connected) return false;
      await write(era, holding, version, [{ op: 'remove', path: T.livePath(machineId) }]);
      return true;
    },
    close: () => {
      closed = true;
      zk.close();
    },
    // After a renewal that failed or hung: the server may have gone silent after the handshake,
    // which the client never notices; dropping the connection moves it to the next server.
    reconnect: () => closed || zk.dropConnection(),
    quiet: 'ZOOKEEPER_UNAVAILABLE',
    journal: T.journal(() => zk, o.journalRetention),
  };
  zkHoldClients.set(verbs, () => zk);
  return verbs;
}
