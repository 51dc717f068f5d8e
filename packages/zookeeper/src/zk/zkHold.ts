import {
  holdingOf,
  rereadHeld,
  type HoldLoss,
  type HoldRenewal,
  type HoldTurn,
  type LeaseClaimant,
  type LeaseHold,
} from '@vesta/lease';
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
  /** The id node's version after the claim, or undefined when started from the cache. */
  readonly version: number | undefined;
}

/** The connection of each ZooKeeper hold, for the test hooks (`testing/leaseControl.ts`). */
export const zkHoldConnections = new WeakMap<LeaseHold, ZkLeaseConnection>();

/**
 * A machine id held through ZooKeeper. Each turn raises the id's mark with a version-checked
 * write under the era's token. After a session expiry (or a start from the cache) the id is
 * confirmed again by re-creating its live node, once its node is found still this key's (and,
 * from the cache, not past the cached mark). The id node's version moves with every write of
 * this hold; a write that timed out may have landed, which the next read tells. A turn whose lease
 * closed meanwhile sends no further request and keeps its version and confirmation state.
 */
export function zkHold(start: ZkHoldStart): LeaseHold {
  const { layout: L, options: o, claimant: c, machineId } = start;
  const idPath = L.idPath(machineId);
  const livePath = L.livePath(machineId);
  let version = start.version;
  let needConfirm = version === undefined;
  const conn = new ZkLeaseConnection(start.zk, o, machineId, () => {
    needConfirm = true;
  });
  const data = (markMs: number, keepOwner = true): Buffer =>
    encodeIdNode(holdingOf(c, markMs, keepOwner));
  const movedTo = (owner: string | undefined | null): HoldLoss => ({
    lost: 'moved',
    owner: owner ?? null,
  });
  // Its token is gone when ZooKeeper lost its data: the id may already be handed out again in
  // the new tree (after its fencing wait), so the lease is lost instead of writing its nodes again.
  const eraStands = async (era: string): Promise<boolean> =>
    (await conn.zk.exists(L.eraToken(era))) !== undefined;

  async function refresh(turn: HoldTurn): Promise<HoldRenewal> {
    const { era } = turn;
    if (era === undefined || version === undefined) {
      needConfirm = true;
      return 'missed';
    }
    const zk = conn.zk;
    try {
      // Checking the era's token keeps this write out of a new tree after a data loss, where
      // version numbers start again and could match ours.
      await zk.multi([
        { op: 'check', path: L.eraToken(era), version: 0 },
        { op: 'setData', path: idPath, data: data(turn.mark()), version },
      ]);
      if (turn.closed) return 'missed';
      version++;
      return 'confirmed';
    } catch (error) {
      if (!isZkError(error, ZK.BAD_VERSION, ZK.NO_NODE)) throw error;
      if (turn.closed) return 'missed';
      // A write of ours that timed out may have landed later: read again.
      return rereadHeld(
        turn,
        c,
        async () => {
          if (!(await eraStands(era))) return { eraStands: false, record: undefined };
          // A lease closed meanwhile sends nothing more (rereadHeld then answers 'missed').
          if (turn.closed) return { eraStands: true, record: undefined };
          const node = await zk.getData(idPath);
          const found = node === undefined ? undefined : decodeIdNode(node.data);
          return {
            eraStands: true,
            record:
              node === undefined || found === undefined
                ? undefined
                : { owner: found.owner, instance: found.instance, version: node.stat.version },
          };
        },
        (found) => {
          version = found;
        },
      );
    }
  }

  /** Re-takes the live node after a session expiry, or after a start from the cache. */
  async function confirm(turn: HoldTurn): Promise<HoldRenewal> {
    const zk = conn.zk;
    let { era } = turn;
    if (era === undefined) {
      // A cache that recorded no era: without an open one, the tree is new or lost its data since.
      const node = await zk.getData(L.era);
      if (turn.closed) return 'missed';
      const open = node === undefined ? undefined : decodeEraNode(node.data);
      if (open?.open !== true) {
        const why = 'ZooKeeper holds no open allocation era (it is new or lost its data)';
        return { lost: 'other', why, owner: null };
      }
      era = open.era;
    }
    if (!(await eraStands(era))) return { lost: 'era' };
    if (turn.closed) return 'missed';
    const node = await zk.getData(idPath);
    if (turn.closed) return 'missed';
    const found = node === undefined ? undefined : decodeIdNode(node.data);
    // Started from the cache and not confirmed yet: the id node must not be past the cached mark.
    const ours =
      found !== undefined &&
      found.owner === c.key &&
      (turn.everConfirmed ? found.instance === c.instance : found.markMs <= start.floorMarkMs);
    if (!ours || node === undefined) return movedTo(found?.owner);
    const live = await zk.exists(livePath);
    if (turn.closed) return 'missed';
    const mine = live !== undefined && sessionHex(live.ephemeralOwner) === zk.sessionId;
    if (live !== undefined && !mine) return 'missed'; // an earlier session of this key; it goes within its timeout
    await zk.multi([
      { op: 'check', path: L.eraToken(era), version: 0 },
      {
        op: 'setData',
        path: idPath,
        data: data(turn.mark(found.markMs)),
        version: node.stat.version,
      },
      ...(mine
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
    if (turn.closed) return 'missed';
    version = node.stat.version + 1;
    needConfirm = false;
    return { confirmedUnder: era };
  }

  const hold: LeaseHold = {
    renew: async (turn) => {
      if (!conn.connected()) {
        conn.reopenIfStuck();
        return 'missed';
      }
      return needConfirm ? confirm(turn) : refresh(turn);
    },
    // The final mark (the id node version-checked), the live node dropped.
    release: async (markMs, { era }) => {
      const zk = conn.zk;
      if (needConfirm || version === undefined || era === undefined || !zk.connected) return false;
      await zk.multi([
        { op: 'check', path: L.eraToken(era), version: 0 },
        { op: 'setData', path: idPath, data: data(markMs, c.stableKey), version },
        { op: 'remove', path: livePath, version: -1 },
      ]);
      return true;
    },
    close: () => conn.close(),
    quiet: 'ZOOKEEPER_UNAVAILABLE',
    journal: zkJournal(() => conn.zk, L, o.journalRetention),
  };
  zkHoldConnections.set(hold, conn);
  return hold;
}
