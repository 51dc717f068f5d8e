import type { MachineIdRange } from '@vesta/core';
import type { ClaimSnapshot, IdRecord } from '@vesta/core/kit';
import { decodeIdNode, decodeKeyNode, type IdNodeData } from './IdNodeData.js';
import { statTimeMs, type ZkClient } from './ZkClient.js';
import type { ZkLayout } from './ZkLayout.js';
import type { CoordinatorClock } from '@vesta/core/kit';

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
export interface ClaimQuery {
  readonly key: string;
  readonly stableKey: boolean;
  readonly range: MachineIdRange;
  readonly skip: ReadonlySet<number>;
  readonly ownerWaitOver: boolean;
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
  const records = new Map<number, IdRecord>();
  for (const { id, node } of read) {
    const data = node === undefined ? undefined : decodeIdNode(node.data);
    if (node === undefined || data === undefined) continue;
    nodes.set(id, { data, version: node.stat.version });
    if (live.has(id) || q.skip.has(id) || id < q.range.min || id > q.range.max) continue;
    records.set(id, {
      machineId: id,
      owner: data.owner,
      idleMs: now - statTimeMs(node.stat.mtime),
    });
  }
  const ownId = keyId !== undefined && nodes.get(keyId)?.data.owner === q.key ? keyId : undefined;
  return {
    snapshot: {
      range: q.range,
      live,
      used,
      skip: q.skip,
      ownId,
      ownerWaitOver: q.ownerWaitOver,
      records,
      reclaimAfterMs: q.reclaimAfterMs,
    },
    nodes,
    keyVersion: keyNode?.stat.version,
  };
}
