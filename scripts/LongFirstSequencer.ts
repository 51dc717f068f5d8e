import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Spec files that run long but are short: each calls a suite written once in the test kit (a
 * coordinator's conformance or fleet start) or runs one kill loop. Paths from the workspace root.
 */
const LONG_BUT_SHORT = [
  'packages/postgres/src/PostgresConformance.int.spec.ts',
  'packages/zookeeper/src/ZooKeeperConformance.int.spec.ts',
  'packages/etcd/src/EtcdConformance.int.spec.ts',
  'packages/redis/src/RedisConformance.int.spec.ts',
  'packages/cli/src/crash/serverKilledUnderLoad.int.spec.ts',
  'packages/zookeeper/src/ZooKeeperFleetStart.int.spec.ts',
  'packages/postgres/src/PostgresFleetStart.int.spec.ts',
  'packages/cli/src/crash/restKilledUnderLoad.int.spec.ts',
  'packages/redis/src/RedisFleetStart.int.spec.ts',
];

/**
 * Vitest's order of spec files, with one correction for a run without vitest's cache (a fresh
 * clone, CI): vitest then runs larger files first, as a guess at which take longest, and the
 * files of {@link LONG_BUT_SHORT}, a few hundred bytes each and 15-45 s each, came last, where
 * they ran on after the other forks had finished (the run's tail). They go first instead. With
 * the cache, vitest's own order stands: failed first, then by last duration.
 */
export class LongFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const root = this.ctx.config.root;
    const known = (file: TestSpecification): boolean =>
      this.ctx.cache.getFileTestResults(`${file.project.name}:${relative(root, file.moduleId)}`) !==
      undefined;
    const rank = (file: TestSpecification): number =>
      known(file) ? -1 : LONG_BUT_SHORT.indexOf(relative(root, file.moduleId));
    const first = sorted.filter((file) => rank(file) >= 0).sort((a, b) => rank(a) - rank(b));
    return [...first, ...sorted.filter((file) => rank(file) < 0)];
  }
}
