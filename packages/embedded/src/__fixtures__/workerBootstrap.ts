/**
 * For tests: the `eval` source of a worker thread that runs the TypeScript module `worker` (a
 * file URL). On Node 20, tsx registers its loader in the main thread only, so
 * `execArgv: ['--import', 'tsx']` leaves a worker unable to load `.ts`; the worker registers
 * tsx's loader itself, then imports.
 */
export function workerBootstrap(worker: string): string {
  return `import('tsx/esm/api').then(({ register }) => {
  register();
  return import(${JSON.stringify(worker)});
});`;
}
