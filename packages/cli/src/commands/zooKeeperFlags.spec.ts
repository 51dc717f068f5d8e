import { codeOf } from '@vesta/testkit';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { addZooKeeperFlags, zooKeeperUrl } from './zooKeeperFlags.js';

describe('the deprecated --zk-root', () => {
  it('reads as the path of the zookeeper:// URL, or none when not given', () => {
    expect(zooKeeperUrl({ zookeeper: '127.0.0.1:2181', zkRoot: '/fleets/a' })).toBe(
      'zookeeper://127.0.0.1:2181/fleets/a',
    );
    expect(zooKeeperUrl({ zookeeper: '127.0.0.1:2181' })).toBe('zookeeper://127.0.0.1:2181');
  });

  it.each(['vesta', '/vesta/', '/a/../b', '/a b'])(
    'refuses %j as the provider refuses such a root, naming the flag',
    (zkRoot) => {
      const flags = { zookeeper: '127.0.0.1:2181', zkRoot };
      expect(codeOf(() => zooKeeperUrl(flags))).toBe('INVALID_OPTIONS');
      expect(() => zooKeeperUrl(flags)).toThrow(
        `--zk-root must be an absolute ZooKeeper path like /vesta or /fleets/a, got ${JSON.stringify(zkRoot)}`,
      );
    },
  );

  it("names the provider's default root in its help", () => {
    const help = addZooKeeperFlags(new Command('x')).helpInformation();
    expect(help).toMatch(/--zk-root <path>\s+deprecated, .*\(default\s+\/vesta\)/s);
  });
});
