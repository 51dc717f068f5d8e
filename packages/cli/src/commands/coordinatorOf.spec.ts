import { caughtAsync } from '@vesta/testkit';
import { describe, expect, it } from 'vitest';
import {
  COORDINATOR_PACKAGES,
  coordinatorHelp,
  coordinatorOf,
  coordinatorSchemes,
  loadCoordinatorHelp,
} from './coordinatorOf.js';

const context = { key: 'k', stateDir: undefined, logger: undefined };

describe('coordinatorOf', () => {
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
      const coordinator = await coordinatorOf(url);
      expect(coordinator.schemes).toContain(scheme);
      expect(coordinator.machineIdModule(url.replace(/^REDISS/, 'rediss'), context)).toBeDefined();
      expect(coordinator.admin(url.replace(/^REDISS/, 'rediss'))).toBeDefined();
    },
  );

  it('lets the URL set the key and state dir over the server’s own, and masks a password it refuses', async () => {
    const url = 'redis://127.0.0.1:6379?key=from-url&stateDir=/tmp/x';
    expect(
      (await coordinatorOf(url)).machineIdModule(url, { ...context, stateDir: '/s' }),
    ).toBeDefined();
    // A --coordinator-key that contradicts the URL's ?key= is refused, not silently overridden.
    for (const given of [
      'redis://127.0.0.1:6379?key=from-url',
      'etcd://127.0.0.1:2379?key=from-url',
    ]) {
      const contradicted = await caughtAsync(async () =>
        (await coordinatorOf(given)).machineIdModule(given, {
          ...context,
          key: 'web-3',
          keyGiven: true,
        }),
      );
      expect(contradicted.code).toBe('INVALID_OPTIONS');
      expect(contradicted.message).toMatch(/key is given as an option \("web-3"\) and in the/);
      expect(
        (await coordinatorOf(given)).machineIdModule(given, {
          ...context,
          key: 'from-url',
          keyGiven: true,
        }),
      ).toBeDefined();
    }
    const refused = (await caughtAsync(() => coordinatorOf('reddis://:S3CRET@h:1'))).message;
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
    expect(
      (await caughtAsync(async () => (await coordinatorOf(url)).machineIdModule(url, context)))
        .code,
    ).toBe('INVALID_OPTIONS');
  });

  it('lists every scheme with one example each, and every example is a URL its coordinator reads', async () => {
    await loadCoordinatorHelp();
    const examples = [...coordinatorHelp().matchAll(/e\.g\. (\S+)/g)].map((m) => m[1] ?? '');
    expect(examples.map((url) => url.split('://')[0])).toEqual([
      'zookeeper',
      'redis',
      'postgres',
      'etcd',
    ]);
    for (const url of examples) {
      expect((await coordinatorOf(url)).machineIdModule(url, context)).toBeDefined();
    }
    expect(coordinatorSchemes()).toBe(
      'zookeeper://, redis:// (rediss://, redis+sentinel://), postgres:// (postgresql://), etcd://',
    );
  });

  it("names each package by its schemes' common start, which finds it before it is imported", async () => {
    for (const [name, load] of Object.entries(COORDINATOR_PACKAGES)) {
      for (const scheme of (await load()).schemes) expect(scheme.startsWith(name)).toBe(true);
    }
  });

  it('imports only the package a URL names, and refuses a start whose package is missing with PACKAGE_MISSING, naming the npm install', async () => {
    const packages = {
      absent: () => import(String('@vesta/absent')),
      other: () => Promise.reject(new Error('never imported')),
    };
    const error = await caughtAsync(() => coordinatorOf('absent://host', packages));
    expect(error.code).toBe('PACKAGE_MISSING');
    expect(error.message).toBe(
      'absent:// coordinators need the package @vesta/absent, which is not installed: npm install @vesta/absent',
    );
    // Help names what is not installed, and lists what is.
    await loadCoordinatorHelp({ ...COORDINATOR_PACKAGES, absent: packages.absent });
    expect(coordinatorHelp()).toContain('not installed: @vesta/absent (npm install one to use it)');
    expect(coordinatorSchemes()).toContain('etcd://');
    await loadCoordinatorHelp();
  });
});
