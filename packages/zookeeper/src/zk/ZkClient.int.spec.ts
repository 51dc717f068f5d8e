import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openZkClient, testRoot } from '../testing/zkTestKit.js';
import { unlessZk, ZK, type ZkClient } from './ZkClient.js';

const connect = inject('zookeeperConnect');
let zk: ZkClient;
beforeAll(async () => {
  zk = await openZkClient(connect, 4000);
});
afterAll(() => zk.close());

describe('ZkClient.multi', () => {
  it.each(['setData', 'check', 'remove'] as const)(
    'refuses a %s for version 0 when the node is past it',
    async (op) => {
      const path = `${testRoot()}`;
      await zk.create(path, Buffer.from('a'));
      await zk.setData(path, Buffer.from('b'), 0);
      const ops = {
        setData: { op: 'setData', path, data: Buffer.from('c'), version: 0 },
        check: { op: 'check', path, version: 0 },
        remove: { op: 'remove', path, version: 0 },
      } as const;
      expect(await unlessZk(zk.multi([ops[op]]), 'refused', ZK.BAD_VERSION)).toBe('refused');
      expect((await zk.getData(path))?.data.toString()).toBe('b');
    },
  );
});
