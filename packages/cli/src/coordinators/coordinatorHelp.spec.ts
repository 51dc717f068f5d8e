import { describe, expect, it } from 'vitest';
import { coordinatorFor } from './coordinatorFor.js';
import { coordinatorHelp, coordinatorSchemes } from './coordinatorHelp.js';

describe('coordinatorHelp', () => {
  it('lists every scheme with one example each, and every example is a URL its coordinator reads', async () => {
    const help = coordinatorHelp();
    const examples = [...help.matchAll(/e\.g\. (\S+)/g)].map((m) => m[1] ?? '');
    expect(examples.map((url) => url.split('://')[0])).toEqual([
      'zookeeper',
      'redis',
      'postgres',
      'etcd',
    ]);
    for (const url of examples) {
      const context = { key: 'k', stateDir: undefined, logger: undefined };
      expect(await coordinatorFor(url).machineIdModule(url, context).load()).toBeDefined();
    }
    expect(coordinatorSchemes()).toBe(
      'zookeeper://, redis:// (rediss://, redis+sentinel://), postgres:// (postgresql://), etcd://',
    );
  });
});
