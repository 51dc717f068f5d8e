/*
 * A segment service in a child process, for the crash test: takes numbers of one key in batches
 * of 100 and writes each batch to stdout (one line, decimals; synchronous on a pipe on Linux)
 * before it takes the next, so a kill -9 loses at most one batch that was served but not
 * written. Stops after 100,000 batches (the test kills it long before). Argument: JSON
 * { url, schema, key, step }.
 */
import { createSegmentService } from '../createSegmentService.js';
import { PostgresSegmentStore } from '../postgres/PostgresSegmentStore.js';

const { url, schema, key, step } = JSON.parse(process.argv[2] ?? '{}') as {
  url: string;
  schema: string;
  key: string;
  step: number;
};
const store = new PostgresSegmentStore({ url, schema });
const service = createSegmentService({ store, maxStep: step });
for (let batch = 0; batch < 100_000; batch++) {
  const numbers = await service.segments(key, 100);
  process.stdout.write(`${numbers.join(' ')}\n`);
}
await service.close();
await store.close();
