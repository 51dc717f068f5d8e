import { defineConfig } from 'vitest/config';
import { LongFirstSequencer } from './scripts/LongFirstSequencer.js';

/**
 * Specs that measure latency under a load they make themselves (a flood of greedy clients
 * beside one real client): they run in the `quiet` project, alone on the machine after the
 * others, so that another file's CPU load is not what they measure.
 */
const QUIET_SPECS = [
  'packages/server/src/server/fairAdmission.int.spec.ts',
  'packages/rest/src/http/fairBatches.int.spec.ts',
  // Fault timings of real clusters (a leader change against a fence): JVMs and etcd members
  // starved by the rest of the suite stall longer than any fence a test can afford.
  'packages/etcd/src/EtcdCluster.int.spec.ts',
  'packages/zookeeper/src/ZooKeeperEnsemble.int.spec.ts',
];

const SPECS = [
  'packages/*/src/**/*.spec.ts',
  'examples/*/src/**/*.spec.ts',
  'examples/*/*.spec.ts',
  'testkit/src/**/*.spec.ts',
  'deploy/src/**/*.spec.ts',
];

/**
 * The one vitest configuration of the workspace, with three projects: `unit` (`*.spec.ts`: no
 * server, no Java, seconds), `integration` (`*.int.spec.ts`: real sockets, processes and a
 * ZooKeeper) and `quiet` (QUIET_SPECS, one file at a time). `scripts/test.sh` runs the first two
 * together, then `quiet` alone; `--project <name>` runs one.
 */
export default defineConfig({
  test: {
    // A host-lock scope per test worker (see the file).
    setupFiles: ['scripts/vitest.setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Three integration files at a time, beside the unit project's thread, on the 2-core
    // machine: most integration tests wait on processes, sockets and clocks, not on the CPU (two
    // left a quarter of the machine idle; a fourth was slower, 442 s against 403 s; the suite
    // must hold under load anyway).
    poolOptions: {
      // `isolate: false`: a fork keeps its modules from one file to the next instead of loading
      // the workspace's sources again for each of about a hundred integration files (collecting
      // them was about 225 s of the run's time). Files stay apart where it matters, as in the
      // unit project: a host-lock scope of their own (the setup file), their own servers, ports
      // and directories. The rule this asks of a file: it leaves nothing running (timers,
      // sockets, child processes) and names what it creates in a store uniquely to itself (the
      // pid alone is the fork's, shared by the files it runs). `minForks` is `maxForks`: with
      // fewer, tinypool (1.1.1) ends a fork above the minimum as soon as it is idle, and runs
      // without isolation then left files unrun and failed on "Terminating worker thread" (seen
      // on five files here); so a run of one file starts three forks too.
      forks: { maxForks: 3, minForks: 3, isolate: false },
      // The unit project's pool (see there): one thread, beside the three forks of the
      // integration files, which `npm test` runs at the same time.
      // `isolate: false`: see the unit project. (The pool is the workspace's, so its options are
      // set here, not in the project.)
      threads: { maxThreads: 1, minThreads: 1, isolate: false },
    },
    reporters: ['default'],
    // Without vitest's cache (a fresh clone, CI), the long files that are short run first, not
    // last (see the file).
    sequence: { sequencer: LongFirstSequencer },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: SPECS,
          exclude: ['**/node_modules/**', '**/*.int.spec.ts'],
          // One worker thread runs every file, in one module registry (`isolate: false`): loading
          // the modules again for each of 116 files was most of the project's CPU (153 s of CPU
          // against 34 s without, on the loaded machine). Files stay apart where it matters: the
          // setup file gives each its own host-lock scope, under which host marks and the marks
          // of closed services are kept, and tests restore the environment in place.
          pool: 'threads',
          globalSetup: ['scripts/hostMarks.global-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: SPECS.map((glob) => glob.replace(/\.spec\.ts$/, '.int.spec.ts')),
          exclude: ['**/node_modules/**', ...QUIET_SPECS],
          // One ZooKeeper, one PostgreSQL and one etcd for the whole run (scripts/ensure-zookeeper.sh,
          // scripts/ensure-postgresql.sh and scripts/ensure-etcd.sh install them on a fresh machine).
          globalSetup: [
            // The vesta command line runs compiled (testkit's VESTA_CLI): build it first.
            'scripts/build.global-setup.ts',
            'scripts/zookeeper.global-setup.ts',
            'scripts/postgres.global-setup.ts',
            'scripts/etcd.global-setup.ts',
            'scripts/hostMarks.global-setup.ts',
          ],
        },
      },
      {
        extends: true,
        test: {
          name: 'quiet',
          include: QUIET_SPECS,
          globalSetup: ['scripts/build.global-setup.ts', 'scripts/hostMarks.global-setup.ts'],
          poolOptions: { forks: { singleFork: true } },
        },
      },
    ],
  },
});
