import { encodeJson } from './IdNodeData.js';
import { isZkError, ZK, type ZkClient, type ZkOp } from './ZkClient.js';
import type { ZkLayout } from './ZkLayout.js';

/** One claim: the id node written, the live node created, the key node pointed at the id. */
export interface IdNodeClaim {
  readonly era: string;
  readonly machineId: number;
  /** The id node's new data. */
  readonly data: Buffer;
  /** The id node's version as read; undefined: the node is created (a compare-and-set). */
  readonly version: number | undefined;
  readonly key: string;
  readonly instance: string;
  /** Point the key node at the id (stable keys only); its version, undefined to create it. */
  readonly keyNode: { readonly version: number | undefined } | undefined;
}

/**
 * Claims an id in one multi, checked against the era's token: the id node created or
 * version-checked, the ephemeral live node created, the key node updated. Returns false when the
 * multi lost to a concurrent start (or a data loss); nothing was written then.
 */
export async function claimIdNode(
  zk: ZkClient,
  layout: ZkLayout,
  c: IdNodeClaim,
): Promise<boolean> {
  const idPath = layout.idPath(c.machineId);
  const ops: ZkOp[] = [
    { op: 'check', path: layout.eraToken(c.era), version: 0 },
    c.version === undefined
      ? { op: 'create', path: idPath, data: c.data, ephemeral: false }
      : { op: 'setData', path: idPath, data: c.data, version: c.version },
    {
      op: 'create',
      path: layout.livePath(c.machineId),
      data: encodeJson({ owner: c.key, instance: c.instance }),
      ephemeral: true,
    },
  ];
  if (c.keyNode !== undefined) {
    const path = layout.keyPath(c.key);
    const data = encodeJson({ machineId: c.machineId });
    ops.push(
      c.keyNode.version === undefined
        ? { op: 'create', path, data, ephemeral: false }
        : { op: 'setData', path, data, version: c.keyNode.version },
    );
  }
  try {
    await zk.multi(ops);
    return true;
  } catch (error) {
    if (isZkError(error, ZK.NODE_EXISTS, ZK.BAD_VERSION, ZK.NO_NODE)) return false;
    throw error;
  }
}
