/**
 * Test fixture: waits for a line on stdin, then starts an id service on machine id `argv[2]`
 * (state dir `argv[3]` when given, system clock), prints 1000 ids as a JSON array of strings,
 * and closes, or SIGKILLs itself when `argv[4]` is "crash".
 */
import { createIdService } from '../service/createIdService.js';
import { silentLogger } from '../logging/Logger.js';

const [machineId, stateDir, ending] = process.argv.slice(2);
await new Promise<void>((resolve) => process.stdin.once('data', () => resolve()));
const service = await createIdService({
  machineId: Number(machineId),
  logger: silentLogger,
  ...(stateDir === undefined || stateDir === '-' ? {} : { stateDir }),
});
const ids = await service.genIds(1000);
process.stdout.write(`${JSON.stringify(ids.map(String))}\n`, () => {
  if (ending === 'crash') process.kill(process.pid, 'SIGKILL');
  else void service.close().then(() => process.exit(0));
});
