import { NestFactory } from '@nestjs/core';
import { AppConfig } from './AppConfig.js';
import { AppModule } from './AppModule.js';

const app = await NestFactory.create(AppModule, { logger: ['error', 'warn'] });
// SIGTERM and SIGINT close the application: VestaModule then closes the id service, which
// persists its time mark and releases its machine id (a coordinator's lease at once, not when
// it expires).
app.enableShutdownHooks([], { useProcessExit: true });
const config = app.get(AppConfig);
await app.listen(config.port, config.host);
console.log(`listening on ${await app.getUrl()}`);
