import { createEmbeddedIdService } from '@vesta/embedded';
import { silentLogger } from '@vesta/core';
import { measureSustained } from '../sustained.js';
for (const call of ['genIds(1000)', 'genIdSync'] as const) {
  const s = await createEmbeddedIdService({ machineId: 7, type: 'min-granularity', logger: silentLogger });
  const r = await measureSustained(s, call, 3000);
  console.log(call, r.ids, (r.fraction * 100).toFixed(1) + '%', r.orderBreaks);
  await s.close();
}
