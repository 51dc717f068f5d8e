import type { LeaseStoreInitOutcome } from '@vesta/lease';
import { encodeEraNode } from './IdNodeData.js';
import { isZkError, ZK, type ZkClient, type ZkOp } from './ZkClient.js';
import type { ZkLayout } from './ZkLayout.js';

/**
 * One attempt at declaring the tree under `layout.root` new: creates the era node OPEN with its
 * token, if and only if the tree holds no history (no era, no node in `ids`, `live` or `keys`,
 * nothing but those folders and the clock node). The root is made first when missing (an empty
 * root is no history). ZooKeeper cannot compare "has no children" in a transaction, so the
 * transaction removes and recreates each folder: a remove fails with NOT_EMPTY when a node
 * appeared in it since the read, and a create fails with NODE_EXISTS when the folder or the era
 * appeared; either way nothing is written and the attempt answers `raced`. A refusal names up
 * to `limit` nodes found.
 */
export async function initZkTree(
  zk: ZkClient,
  layout: ZkLayout,
  era: string,
  limit: number,
): Promise<LeaseStoreInitOutcome> {
  // The folders are structure while empty, history once any holds a node; the clock node is
  // written by every start's clock check, before the era: no history either.
  const folders = [layout.ids, layout.live, layout.keys];
  const structure = new Set([...folders, layout.clock]);
  await zk.mkdirp(layout.root);
  const paths = (await zk.getChildren(layout.root)).sort().map((c) => `${layout.root}/${c}`);
  const present = folders.filter((path) => paths.includes(path));
  const found = paths.filter((path) => !structure.has(path));
  try {
    for (const path of present) {
      if (found.length >= limit) break;
      const inside = (await zk.getChildren(path)).sort().slice(0, limit);
      found.push(...inside.map((child) => `${path}/${child}`));
    }
    if (found.length > 0) return { found };
    const ops: ZkOp[] = [];
    for (const path of folders) {
      if (present.includes(path)) ops.push({ op: 'remove', path, version: -1 });
      ops.push({ op: 'create', path, data: Buffer.alloc(0), ephemeral: false });
    }
    ops.push(
      { op: 'create', path: layout.era, data: encodeEraNode(era, true), ephemeral: false },
      { op: 'create', path: layout.eraToken(era), data: Buffer.alloc(0), ephemeral: false },
    );
    await zk.multi(ops);
    return { created: true };
  } catch (error) {
    if (isZkError(error, ZK.NODE_EXISTS, ZK.NOT_EMPTY, ZK.NO_NODE)) return 'raced';
    throw error;
  }
}
