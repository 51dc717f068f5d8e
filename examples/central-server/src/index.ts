/**
 * Two central id servers and a client: the client spreads requests over both, keeps issuing
 * when one shuts down, and decodes ids locally with the layout learned in the handshake.
 * Run: sh scripts/pnpm.sh --filter @vesta/example-central-server start
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '@vesta/core';
import { createIdClient, startIdServer } from '@vesta/server';

const stateDir = mkdtempSync(join(tmpdir(), 'vesta-example-'));
const a = await startIdServer({ port: 0, machineId: 1001, stateDir, logger: silentLogger });
const b = await startIdServer({ port: 0, machineId: 1002, stateDir, logger: silentLogger });
console.log(`servers: ${a.url} (machine 1001), ${b.url} (machine 1002)`);

const ids = await createIdClient({
  servers: [a.url, b.url],
  fallback: { machineId: 17 },
  logger: silentLogger,
});
ids.on('serverDown', ({ server }) => console.log(`server down: ${server}`));
ids.on('fallback', () => console.log('no server answers: issuing locally'));

const id = await ids.genId();
console.log(`genId: ${id}`);
console.log(`expId: ${JSON.stringify(ids.expId(id))}`);
const batch = await ids.genIds(4);
console.log(`genIds(4): ${batch.join(', ')}`);
// Calls are spread round-robin over the servers that are up.
const spread = await Promise.all([ids.genId(), ids.genId(), ids.genId(), ids.genId()]);
console.log(`machines: ${[...new Set(spread.map((x) => ids.expId(x).machine))].sort().join(', ')}`);

await a.close();
const afterA = await ids.genIds(3);
console.log(
  `after closing ${a.url}: machines ${[...new Set(afterA.map((x) => ids.expId(x).machine))].join(', ')}`,
);

await b.close();
const local = await ids.genId();
console.log(
  `both closed: genMethod ${ids.expId(local).genMethod}, machine ${ids.expId(local).machine}`,
);

await ids.close();
rmSync(stateDir, { recursive: true, force: true });
console.log('done');
