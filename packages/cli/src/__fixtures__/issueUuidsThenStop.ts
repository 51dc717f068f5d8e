/**
 * Test fixture: an embedded service on machine id 501 with the state dir `argv[2]` issues
 * `argv[4]` UUIDs, prints them as a JSON array, then closes, or SIGKILLs itself when `argv[3]`
 * is "crash". Run under libfaketime to step its wall clock between runs.
 */
import { silentLogger } from '@vesta/core';
import { createEmbeddedIdService } from '@vesta/embedded';

const [stateDir, ending, count] = process.argv.slice(2);
const ids = await createEmbeddedIdService({
  machineId: 501,
  stateDir,
  markWindowMs: 500,
  logger: silentLogger,
});
const uuids: string[] = [];
while (uuids.length < Number(count)) uuids.push(...(await ids.genUuids(500)));
process.stdout.write(`${JSON.stringify(uuids)}\n`, () => {
  if (ending === 'crash') process.kill(process.pid, 'SIGKILL');
  else void ids.close().then(() => process.exit(0));
});
