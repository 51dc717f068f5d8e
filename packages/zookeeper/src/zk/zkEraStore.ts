import { VestaError } from '@vesta/core';
import type { LeaseEraState, LeaseEraStore } from '@vesta/lease';
import { decodeEraNode, encodeEraNode } from './IdNodeData.js';
import { isZkError, ZK, type ZkClient } from './ZkClient.js';
import type { ZkLayout } from './ZkLayout.js';

/** The era node as read: its data and the version an opening compares. */
export interface ZkEra extends LeaseEraState {
  readonly version: number;
}

/**
 * The era of the tree under `layout.root` as enterLeaseEra reads and writes it: the era node
 * (`{root}/era`, `{ era, open }`), created closed together with the era's token node
 * (`{root}/era/{era}`) in one transaction, and opened by a versioned write. The token node
 * exists for as long as the tree does: every claim and refresh checks it, so holders of a lost
 * tree find it gone and stop for good, and nothing written under a lost era lands in a new tree.
 */
export function zkEraStore(zk: ZkClient, layout: ZkLayout): LeaseEraStore<ZkEra> {
  return {
    readEra: async () => {
      const node = await zk.getData(layout.era);
      if (node === undefined) return undefined;
      const data = decodeEraNode(node.data);
      if (data === undefined) {
        throw new VestaError(
          'ZOOKEEPER_UNAVAILABLE',
          `${layout.era} holds data this package did not write; remove it by hand to start a new allocation era`,
          { details: { path: layout.era } },
        );
      }
      return { ...data, version: node.stat.version };
    },
    createEra: async (era) => {
      try {
        await zk.multi([
          { op: 'create', path: layout.era, data: encodeEraNode(era, false), ephemeral: false },
          { op: 'create', path: layout.eraToken(era), data: Buffer.alloc(0), ephemeral: false },
        ]);
        return true;
      } catch (error) {
        if (isZkError(error, ZK.NODE_EXISTS)) return false;
        throw error;
      }
    },
    openEra: async (found) => {
      try {
        await zk.setData(layout.era, encodeEraNode(found.era, true), found.version);
      } catch (error) {
        if (!isZkError(error, ZK.BAD_VERSION, ZK.NO_NODE)) throw error;
      }
    },
  };
}
