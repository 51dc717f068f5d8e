import { silentLogger, StaticMachineIdProvider, type MachineIdProvider } from '@vesta/core';
import { EtcdMachineIdProvider } from '@vesta/etcd';
import { PostgresMachineIdProvider } from '@vesta/postgres';
import { RedisMachineIdProvider } from '@vesta/redis';
import {
  startEtcdServer,
  startPostgresServer,
  startRedisServer,
  startZooKeeperServer,
} from '@vesta/testkit';
import { ZooKeeperMachineIdProvider } from '@vesta/zookeeper';

/** A machine-id source to time: its coordinator started once, a provider per instance key. */
export interface StartupProvider {
  readonly name: string;
  /** Starts what the provider needs (a private server on 127.0.0.1); resolves with the factory. */
  start(): Promise<{
    provider(key: string): MachineIdProvider;
    dispose(): Promise<void>;
  }>;
}

/**
 * The sources of the start-up benchmark. A new coordinator is one more entry.
 * Each coordinator is private to the run, so its era opens at once (`eraWaitMs` 0: no instance
 * ever held an id there); production starts on a new or wiped store wait out the fencing bound.
 */
export const STARTUP_PROVIDERS: readonly StartupProvider[] = [
  {
    name: 'static machine id',
    start: async () => ({
      provider: () => new StaticMachineIdProvider(1),
      dispose: async () => undefined,
    }),
  },
  {
    name: 'ZooKeeper',
    async start() {
      const server = await startZooKeeperServer();
      return {
        provider: (key) =>
          new ZooKeeperMachineIdProvider({
            connect: server.connect,
            root: '/bench',
            key,
            eraWaitMs: 0,
            logger: silentLogger,
          }),
        dispose: () => server.dispose(),
      };
    },
  },
  {
    name: 'Redis',
    async start() {
      const server = await startRedisServer();
      return {
        provider: (key) =>
          new RedisMachineIdProvider({
            url: server.url,
            prefix: 'bench',
            key,
            eraWaitMs: 0,
            logger: silentLogger,
          }),
        dispose: () => server.dispose(),
      };
    },
  },
  {
    name: 'PostgreSQL',
    async start() {
      const server = await startPostgresServer();
      return {
        provider: (key) =>
          new PostgresMachineIdProvider({
            url: server.url,
            schema: 'bench',
            key,
            eraWaitMs: 0,
            logger: silentLogger,
          }),
        dispose: () => server.dispose(),
      };
    },
  },
  {
    name: 'etcd',
    async start() {
      const server = await startEtcdServer();
      return {
        provider: (key) =>
          new EtcdMachineIdProvider({
            endpoints: server.address,
            root: '/bench',
            key,
            eraWaitMs: 0,
            logger: silentLogger,
          }),
        dispose: () => server.dispose(),
      };
    },
  },
];
