/**
 * Vesta, embedded: issue ids inside this process, decode one, make one from fields.
 * Run it with `sh scripts/pnpm.sh --filter @vesta/example-embedded start`.
 */
import { createEmbeddedIdService } from '@vesta/embedded';

// Machine ids 0-923 are for embedded services; give each running instance its own.
const ids = await createEmbeddedIdService({ machineId: 7 });
try {
  const info = ids.info();
  console.log(
    `machine ${info.machine}, type ${info.typeName}, epoch ${info.epoch}, ids run out at ${info.expiry}`,
  );

  console.log('five ids:');
  const issued = [ids.genIdSync(), await ids.genId(), ...(await ids.genIds(3))];
  for (const id of issued) console.log(`  ${id}`);

  // Ids are bigints here and decimal strings on the wire: never put one in a JSON number.
  const last = issued[issued.length - 1] ?? 0n;
  console.log(`as JSON: ${JSON.stringify({ id: last.toString() })}`);

  const fields = ids.expId(last);
  console.log(`decoded ${last}: ${JSON.stringify(fields)}`);
  console.log(`issued at ${ids.transTime(fields.time).toISOString()}`);

  // Every field of makeId is range-checked: an oversized one is an error, never spilled.
  console.log(
    `made from { time: ${fields.time}, seq: 42 }: ${ids.makeId({ time: fields.time, seq: 42 })}`,
  );
} finally {
  await ids.close();
}
