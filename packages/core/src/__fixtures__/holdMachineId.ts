/**
 * Test fixture: a process that starts an id service on machine id `argv[2]` (genMethod 0),
 * prints "ready" and then holds it until it is killed.
 */
import { createIdService } from '../service/createIdService.js';

const service = await createIdService({ machineId: Number(process.argv[2]) });
process.stdout.write(`ready ${String(service.info().machine)}\n`);
setInterval(() => undefined, 1 << 30);
