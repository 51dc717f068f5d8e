import type { MachineIdRange } from '@vesta/core';
import {
  snapshotOfRows,
  type ClaimRoundState,
  type ClaimSnapshot,
  type CoordinatorClock,
} from '@vesta/lease';
import { decodeIdNode, decodeKeyNode, type IdNodeData } from './IdNodeData.js';
import { statTimeMs, type ZkClient } from './ZkClient.js';
import type { ZkLayout } from './ZkLayout.js';

/** An id node as read: its data and the version a claim's write is checked against. */
export interface IdNode {
  readonly data: IdNodeData;
  readonly version: number;
}

/** What one claim round read: the plan's input, the id nodes, and the key node's version. */
export interface ClaimRead {
  readonly snapshot: ClaimSnapshot;
  readonly nodes: ReadonlyMap<number, IdNode>;
  /** The key node's version; undefined when it does not exist (or the key is not stable). */
  readonly keyVersion: number | undefined;
}

/** The round's question: which key, which range, what to skip, and how old is old. */
export interface ClaimQuery extends ClaimRoundState {
  readonly key: string;
  readonly stableKey: boolean;
  readonly range: MachineIdRange;
  readonly reclaimAfterMs: number;
  readonly zkClock: CoordinatorClock;
}

/**
 * Reads what {@link planLeaseClaim} decides on: the key node, the live and used ids, and (in parallel)
 * every id node in the range that is used and not live, plus the key's own id. A node that is
 * gone or holds data this package did not write is left out (a mark is never guessed).
 */
export async function readClaimSnapshot(
  zk: ZkClient,
  layout: ZkLayout,
  q: ClaimQuery,
): Promise<ClaimRead> {
  const keyNode = q.stableKey ? await zk.getData(layout.keyPath(q.key)) : undefined;
  const keyId = keyNode === undefined ? undefined : decodeKeyNode(keyNode.data);
  const [liveIds, usedIds] = await Promise.all([
    zk.getChildren(layout.live),
    zk.getChildren(layout.ids),
  ]);
  const live = new Set(liveIds.map(Number));
  const used = new Set(usedIds.map(Number));
  const toRead = new Set<number>();
  for (let id = q.range.min; id <= q.range.max; id++) {
    if (used.has(id) && !live.has(id) && !q.skip.has(id)) toRead.add(id);
  }
  if (keyId !== undefined && used.has(keyId)) toRead.add(keyId);
  const read = await Promise.all(
    [...toRead].map(async (id) => ({ id, node: await zk.getData(layout.idPath(id)) })),
  );
  const now = q.zkClock.at();
  const nodes = new Map<number, IdNode>();
  const idleMs = new Map<number, number>();
  for (const { id, node } of read) {
    const data = node === undefined ? undefined : decodeIdNode(node.data);
    if (node === undefined || data === undefined) continue;
    nodes.set(id, { data, version: node.stat.version });
    idleMs.set(id, now - statTimeMs(node.stat.mtime));
  }
  const ownId = keyId !== undefined && nodes.get(keyId)?.data.owner === q.key ? keyId : undefined;
  // A live node without an id node (removed by hand) still marks its id as held.
  const rows = [...new Set([...used, ...live])].map((id) => ({
    machineId: id,
    live: live.has(id),
    owner: nodes.get(id)?.data.owner,
    idleMs: idleMs.get(id) ?? 0,
  }));
  return {
    snapshot: snapshotOfRows(rows, { ...q, ownId }),
    nodes,
    keyVersion: keyNode?.stat.version,
  };
}
