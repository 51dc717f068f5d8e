import { Injectable } from '@nestjs/common';

/**
 * The application's configuration, read from the environment once (a stand-in for
 * `@nestjs/config`'s ConfigService): where machine ids come from.
 */
@Injectable()
export class AppConfig {
  /** A Redis to lease the machine id from (`REDIS_URL`, its query may set `?prefix=`). */
  readonly redisUrl = process.env['REDIS_URL'];
  /** The fixed machine id when there is no Redis (`MACHINE_ID`, 0-923). */
  readonly machineId = Number(process.env['MACHINE_ID'] ?? 7);
  /** Where the HTTP server listens (`PORT`, `HOST`). */
  readonly port = Number(process.env['PORT'] ?? 3000);
  readonly host = process.env['HOST'] ?? '127.0.0.1';
}
