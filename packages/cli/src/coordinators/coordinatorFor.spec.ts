import { caughtAsync } from '@vesta/testkit';
import { describe, expect, it } from 'vitest';
import { coordinatorFor } from './coordinatorFor.js';

const context = { key: 'k', stateDir: undefined, logger: undefined };

describe('coordinatorFor', () => {
  it.each([
    ['zookeeper://127.0.0.1:2181/vesta/prod', 'zookeeper'],
    ['zookeeper://zk1:2181,zk2:2181', 'zookeeper'],
    ['redis://127.0.0.1:6379/0?prefix=prod', 'redis'],
    ['REDISS://user:secret@redis.internal:6380', 'redis'],
    ['postgres://vesta@db:5432/app?schema=prod&table=ids', 'postgres'],
    ['postgresql://vesta:secret@db:5432/app', 'postgresql'],
    ['etcd://etcd1:2379,etcd2:2379/vesta/prod', 'etcd'],
    ['etcd://127.0.0.1:2379', 'etcd'],
    ['etcd://127.0.0.1:2379/vesta?fenceAfterMs=6000&key=k', 'etcd'],
    ['zookeeper://127.0.0.1:2181/vesta?sessionTimeoutMs=6000', 'zookeeper'],
  ])(
    'finds the coordinator of %s and builds its machine-id module and admin',
    async (url, scheme) => {
      const coordinator = coordinatorFor(url);
      expect(coordinator.schemes).toContain(scheme);
      expect(
        await coordinator.machineIdModule(url.replace(/^REDISS/, 'rediss'), context).load(),
      ).toBeDefined();
      expect(coordinator.admin(url.replace(/^REDISS/, 'rediss'))).toBeDefined();
    },
  );

  it('lets the URL set the key and state dir over the server’s own, and masks a password it refuses', async () => {
    const url = 'redis://127.0.0.1:6379?key=from-url&stateDir=/tmp/x';
    expect(
      await coordinatorFor(url)
        .machineIdModule(url, { ...context, stateDir: '/s' })
        .load(),
    ).toBeDefined();
    // A --coordinator-key that contradicts the URL's ?key= is refused, not silently overridden.
    for (const given of [
      'redis://127.0.0.1:6379?key=from-url',
      'etcd://127.0.0.1:2379?key=from-url',
    ]) {
      const contradicted = await caughtAsync(() =>
        coordinatorFor(given)
          .machineIdModule(given, { ...context, key: 'web-3', keyGiven: true })
          .load(),
      );
      expect(contradicted.code).toBe('INVALID_OPTIONS');
      expect(contradicted.message).toMatch(/key is given as an option \("web-3"\) and in the/);
      expect(
        await coordinatorFor(given)
          .machineIdModule(given, { ...context, key: 'from-url', keyGiven: true })
          .load(),
      ).toBeDefined();
    }
    const refused = (await caughtAsync(async () => coordinatorFor('reddis://:S3CRET@h:1'))).message;
    expect(refused).toContain('got "reddis://***@h:1"');
    expect(refused).not.toContain('S3CRET');
  });

  it.each([
    ['mysql://db:3306'],
    ['127.0.0.1:6379'],
    [''],
    ['zookeeper://'],
    ['zookeeper://127.0.0.1:2181/bad root'],
    ['redis://127.0.0.1:6379?prefix=has space'],
    ['redis://127.0.0.1:6379?db=1'],
    ['postgres://vesta@db:5432/app?prefix=x'],
    ['postgres://vesta@db:5432/app?schema=Bad-Name'],
    ['etcd://'],
    ['etcd://127.0.0.1:2379/bad root'],
    ['etcd://127.0.0.1:2379?bogus=1'],
    ['etcd://127.0.0.1:2379?endpoints=127.0.0.1:2380'],
    ['etcd://127.0.0.1:2379?fenceAfterMs=1'],
    ['zookeeper://127.0.0.1:2181?sessionTimeoutMs=1'],
    ['zookeeper://127.0.0.1:2181?root=/x'],
    ['zookeeper://127.0.0.1:2181?fenceAfterMs=9000&fenceAfterMs=9000'],
  ])('refuses %j with INVALID_OPTIONS', async (url) => {
    // The URL is read at once; the rest of the options once the package is loaded.
    expect(
      (await caughtAsync(() => coordinatorFor(url).machineIdModule(url, context).load())).code,
    ).toBe('INVALID_OPTIONS');
  });
});
