import { codeOfAsync } from '@vesta/testkit';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { addZooKeeperFlags, describeZooKeeperRoot, zooKeeperUrl } from './zooKeeperFlags.js';

describe('the deprecated --zk-root', () => {
  it('reads as the path of the zookeeper:// URL, or none when not given', async () => {
    expect(await zooKeeperUrl({ zookeeper: '127.0.0.1:2181', zkRoot: '/fleets/a' })).toBe(
      'zookeeper://127.0.0.1:2181/fleets/a',
    );
    expect(await zooKeeperUrl({ zookeeper: '127.0.0.1:2181' })).toBe('zookeeper://127.0.0.1:2181');
  });

  it.each(['vesta', '/vesta/', '/a/../b', '/a b'])(
    'refuses %j as the provider refuses such a root, naming the flag',
    async (zkRoot) => {
      const flags = { zookeeper: '127.0.0.1:2181', zkRoot };
      expect(await codeOfAsync(() => zooKeeperUrl(flags))).toBe('INVALID_OPTIONS');
      await expect(zooKeeperUrl(flags)).rejects.toThrow(
        `--zk-root must be an absolute ZooKeeper path like /vesta or /fleets/a, got ${JSON.stringify(zkRoot)}`,
      );
    },
  );

  it("names the provider's default root in its help", async () => {
    const command = addZooKeeperFlags(new Command('x'));
    await describeZooKeeperRoot(command);
    const help = command.helpInformation();
    expect(help).toMatch(/--zk-root <path>\s+deprecated, .*\(default\s+\/vesta\)/s);
  });
});
