import { VestaError } from '@vesta/core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ZooKeeperAdmin } from './ZooKeeperAdmin.js';
import { openZkClient, testRoot } from './testing/zkTestKit.js';
import type { ZkClient } from './zk/ZkClient.js';
import { decodeEraNode, ZkTree } from './zk/ZkTree.js';

const connect = inject('zookeeperConnect');
let zk: ZkClient;
beforeAll(async () => {
  zk = await openZkClient(connect, 4000);
});
afterAll(() => zk.close());

describe('ZooKeeperAdmin.init', () => {
  it('declares new a tree a start left before its era (empty folders, the clock node)', async () => {
    const layout = new ZkTree(testRoot());
    await Promise.all([zk.mkdirp(layout.ids), zk.mkdirp(layout.live), zk.mkdirp(layout.keys)]);
    await layout.writeClock(zk);
    const { era } = await new ZooKeeperAdmin({ connect, root: layout.root }).init();
    const node = await zk.getData(layout.era);
    expect(node && decodeEraNode(node.data)).toEqual({ era, open: true });
    expect(await zk.exists(layout.eraToken(era))).toBeDefined();
    expect((await zk.getChildren(layout.root)).sort()).toEqual([
      'clock',
      'era',
      'ids',
      'keys',
      'live',
    ]);
  });

  it('refuses a tree holding anything else, naming it and writing nothing', async () => {
    const layout = new ZkTree(testRoot());
    await zk.mkdirp(`${layout.keys}/orders`);
    await zk.mkdirp(`${layout.root}/other`);
    const refused = await new ZooKeeperAdmin({ connect, root: layout.root })
      .init()
      .catch((e: unknown) => e);
    expect(VestaError.is(refused, 'COORDINATOR_NOT_NEW')).toBe(true);
    expect(String(refused)).toContain(`it holds ${layout.root}/other, ${layout.keys}/orders`);
    expect((await zk.getChildren(layout.root)).sort()).toEqual(['keys', 'other']);
  });
});
