import { VestaError } from '@vesta/core';
import { storeHold, type LeaseClaimant, type LeaseHold } from '@vesta/lease';
import type { ResolvedZooKeeperMachineIdOptions } from '../ZooKeeperMachineIdOptions.js';
import { decodeEraNode, decodeIdNode, encodeIdNode, encodeJson } from './IdNodeData.js';
import { isZkError, sessionHex, ZK, type ZkClient } from './ZkClient.js';
import type { ZkLayout } from './ZkLayout.js';
import { ZkLeaseConnection } from './ZkLeaseConnection.js';
import { zkJournal } from './zkJournal.js';

/** How a hold starts: what the provider claimed, or found in its cache. */
export interface ZkHoldStart {
  /** The start's client: the hold keeps it (and replaces it, see {@link ZkLeaseConnection}). */
  readonly zk: ZkClient;
  readonly layout: ZkLayout;
  readonly options: ResolvedZooKeeperMachineIdOptions;
  readonly claimant: LeaseClaimant;
  readonly machineId: number;
  /** The mark the id carried before this start: a cached id is taken back only at or below it. */
  readonly floorMarkMs: number;
  /** The claim: its era and the id node's version after it; undefined when started from the cache. */
  readonly claimed: { readonly era: string; readonly version: number } | undefined;
}

/** The connection of each ZooKeeper hold, for the test hooks (`testing/leaseControl.ts`). */
export const zkHoldConnections = new WeakMap<LeaseHold, ZkLeaseConnection>();

/**
 * A machine id held through ZooKeeper, over `storeHold`: each turn raises the id's mark with a
 * version-checked write under the era's token. After a session expiry (or a start from the cache)
 * the id is taken back by re-creating its live node, once its node is found still this start's
 * (from the cache: this key's, not past the cached mark) and no earlier session's live node is
 * left. A turn while the client is disconnected is missed (and a client stuck so is replaced).
 */
export function zkHold(start: ZkHoldStart): LeaseHold {
  const { layout: L, options: o, claimant: c, machineId } = start;
  const idPath = L.idPath(machineId);
  const livePath = L.livePath(machineId);
  let lapsed = false;
  const conn = new ZkLeaseConnection(start.zk, o, machineId, () => {
    lapsed = true;
  });
  /** The connected client; a turn without one is missed, quietly (see `quiet`). */
  const zk = (): ZkClient => {
    if (conn.connected()) return conn.zk;
    conn.reopenIfStuck();
    throw new VestaError('ZOOKEEPER_UNAVAILABLE', 'the ZooKeeper client is disconnected');
  };
  /** Whether this session's own live node stands (read with the record). */
  let ownLive = false;
  // Checking the era's token keeps a write out of a new tree after a data loss, where version
  // numbers start again and could match ours.
  const eraCheck = (era: string) => ({ op: 'check' as const, path: L.eraToken(era), version: 0 });
  const hold = storeHold<number>(
    {
      lapsed: () => lapsed,
      renew: async (era, holding, version) => {
        try {
          await zk().multi([
            eraCheck(era),
            { op: 'setData', path: idPath, data: encodeIdNode(holding), version },
          ]);
          return version + 1;
        } catch (error) {
          if (!isZkError(error, ZK.BAD_VERSION, ZK.NO_NODE)) throw error;
          return 'conflict';
        }
      },
      read: async () => {
        const client = zk();
        const [eraNode, node, live] = await Promise.all([
          client.getData(L.era),
          client.getData(idPath),
          client.exists(livePath),
        ]);
        const era = eraNode === undefined ? undefined : decodeEraNode(eraNode.data);
        const found = node === undefined ? undefined : decodeIdNode(node.data);
        ownLive = live !== undefined && sessionHex(live.ephemeralOwner) === client.sessionId;
        // The token stands too: the era node alone could be a new tree's.
        const stands =
          era !== undefined && (await client.exists(L.eraToken(era.era))) !== undefined;
        return {
          era: era === undefined || !stands ? undefined : era,
          record:
            node === undefined || found === undefined
              ? undefined
              : { ...found, live: live !== undefined && !ownLive, version: node.stat.version },
        };
      },
      retake: async (era, holding, version) => {
        await zk().multi([
          eraCheck(era),
          { op: 'setData', path: idPath, data: encodeIdNode(holding), version },
          ...(ownLive
            ? []
            : [
                {
                  op: 'create' as const,
                  path: livePath,
                  data: encodeJson({ owner: c.key, instance: c.instance }),
                  ephemeral: true,
                },
              ]),
        ]);
        lapsed = false;
        return version + 1;
      },
      // The final mark (the id node version-checked), the live node dropped.
      release: async (era, holding, version) => {
        if (lapsed || !conn.zk.connected) return false;
        await conn.zk.multi([
          eraCheck(era),
          { op: 'setData', path: idPath, data: encodeIdNode(holding), version },
          { op: 'remove', path: livePath, version: -1 },
        ]);
        return true;
      },
      close: () => conn.close(),
      reconnect: () => conn.leaveServer(),
      quiet: 'ZOOKEEPER_UNAVAILABLE',
      journal: zkJournal(() => conn.zk, L, o.journalRetention),
    },
    { claimant: c, floorMarkMs: start.floorMarkMs, claimed: start.claimed },
  );
  zkHoldConnections.set(hold, conn);
  return hold;
}
