import type { LeaseStoreInitOutcome } from '@vesta/lease';
import { encodeEraNode } from './IdNodeData.js';
import { isZkError, ZK, type ZkClient, type ZkOp } from './ZkClient.js';
import type { ZkLayout } from './ZkLayout.js';

/** The folders under a root: structure while empty, history once any holds a node. */
const FOLDERS = ['ids', 'live', 'keys'] as const;

/** A child of the root that is no history: written by every start's clock check. */
const CLOCK = 'clock';

/** How many nodes a refused init reports (it names five, then "and more"). */
const FOUND_LIMIT = 6;

/**
 * One attempt at declaring the tree under `layout.root` new: creates the era node OPEN with its
 * token, if and only if the tree holds no history (no era, no node in `ids`, `live` or `keys`,
 * nothing but those folders and the clock node). The root is made first when missing (an empty
 * root is no history). ZooKeeper cannot compare "has no children" in a transaction, so the
 * transaction removes and recreates each folder: a remove fails with NOT_EMPTY when a node
 * appeared in it since the read, and a create fails with NODE_EXISTS when the folder or the era
 * appeared; either way nothing is written and the attempt answers `raced`.
 */
export async function initZkTree(
  zk: ZkClient,
  layout: ZkLayout,
  era: string,
): Promise<LeaseStoreInitOutcome> {
  await zk.mkdirp(layout.root);
  const children = (await zk.getChildren(layout.root)).sort();
  const folders = FOLDERS.filter((folder) => children.includes(folder));
  const found = children
    .filter((child) => child !== CLOCK && !(FOLDERS as readonly string[]).includes(child))
    .map((child) => `${layout.root}/${child}`);
  try {
    for (const folder of folders) {
      if (found.length >= FOUND_LIMIT) break;
      const path = `${layout.root}/${folder}`;
      const inside = (await zk.getChildren(path)).sort().slice(0, FOUND_LIMIT);
      found.push(...inside.map((child) => `${path}/${child}`));
    }
    if (found.length > 0) return { found };
    const ops: ZkOp[] = [];
    for (const folder of FOLDERS) {
      const path = `${layout.root}/${folder}`;
      if (folders.includes(folder)) ops.push({ op: 'remove', path, version: -1 });
      ops.push({ op: 'create', path, data: Buffer.alloc(0), ephemeral: false });
    }
    ops.push(
      { op: 'create', path: layout.era, data: encodeEraNode(era, true), ephemeral: false },
      { op: 'create', path: layout.eraToken(era), data: Buffer.alloc(0), ephemeral: false },
    );
    await zk.multi(ops);
    return { created: true };
  } catch (error) {
    if (
      isZkError(error, ZK.NODE_EXISTS) ||
      isZkError(error, ZK.NOT_EMPTY) ||
      isZkError(error, ZK.NO_NODE)
    ) {
      return 'raced';
    }
    throw error;
  }
}
