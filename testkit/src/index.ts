export { ManualTimeSource } from './ManualTimeSource.js';
export {
  startZooKeeperServer,
  type ZooKeeperServer,
  type ZooKeeperServerOptions,
} from './startZooKeeperServer.js';
export { startTcpProxy, type TcpProxy } from './startTcpProxy.js';
export { caught } from './caught.js';
export { caughtAsync } from './caughtAsync.js';
export { rejection } from './rejection.js';
export { codeOf } from './codeOf.js';
export { codeOfAsync } from './codeOfAsync.js';
export { capturingLogger, type CapturedWarning } from './capturingLogger.js';
export { runToExit, type ProcessResult } from './runToExit.js';
export {
  issuableInstant,
  ORIGINAL_ID_FORMULAS,
  type OriginalIdFormula,
} from './originalIdFormulas.js';
export { presetServerOptions } from './presetServerOptions.js';
export { eventually } from './eventually.js';
export { seeded } from './seeded.js';
export { watchHealth, type HealthWatch } from './watchHealth.js';
export { startFaultFleet, type FaultFleet } from './startFaultFleet.js';
export { issueContinuously, type IssueLoops } from './issueContinuously.js';
export { startRedisServer, type RedisServer } from './startRedisServer.js';
export { startRedisSentinel, type RedisSentinel } from './startRedisSentinel.js';
export { startEtcdCluster, type EtcdCluster } from './startEtcdCluster.js';
export { startPgBouncer, type PgBouncer } from './startPgBouncer.js';
export { startZooKeeperEnsemble, type ZooKeeperEnsemble } from './startZooKeeperEnsemble.js';
export { startReplicatedRedis, type ReplicatedRedis } from './startReplicatedRedis.js';
export { freePort } from './freePort.js';
export {
  startPostgresServer,
  type PostgresServer,
  type PostgresServerOptions,
} from './startPostgresServer.js';
export { startEtcdServer, type EtcdServer, type EtcdServerOptions } from './startEtcdServer.js';
export type { TestServer } from './process/TestServer.js';
export { tempDir } from './process/tempDir.js';
export { signalServerTree } from './process/signalServerTree.js';
export { machineIdRequest } from './machineIdRequest.js';
export { openAllocationEraOf } from './openAllocationEraOf.js';
export { optionsTableMismatches } from './optionsTableMismatches.js';
export { TestResources } from './TestResources.js';
export { VESTA_CLI, VESTA_DIST_CLI } from './process/vestaCli.js';
export { bundleVestaCli } from './process/bundleVestaCli.js';
export {
  runtimeCommand,
  type OtherRuntime,
  type RuntimeCommand,
} from './process/runtimeCommand.js';
export {
  compiledFixture,
  compiledFixtures,
  FIXTURE_EXEC_ARGV,
  pruneFixtureChunks,
} from './process/compiledFixture.js';
export {
  runWorker,
  sharedClock,
  startFixtureWorker,
  startRequestWorker,
  type RequestWorker,
  type RequestWorkerResult,
  type SharedClock,
} from './process/workerThreads.js';
