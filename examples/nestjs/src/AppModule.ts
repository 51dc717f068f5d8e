import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { VestaModule } from '@vesta/nestjs';
import { RedisMachineIdProvider } from '@vesta/redis';
import { AppConfig } from './AppConfig.js';
import { ConfigModule } from './ConfigModule.js';
import { HealthController } from './HealthController.js';
import { IdsController } from './IdsController.js';

@Module({
  imports: [
    ConfigModule,
    // The machine id from the configuration: leased from Redis (held until shutdown), or fixed.
    VestaModule.forRootAsync({
      inject: [AppConfig],
      useFactory: (config: AppConfig) => ({
        embedded:
          config.redisUrl === undefined
            ? { machineId: config.machineId }
            : { machineIdProvider: new RedisMachineIdProvider({ url: config.redisUrl }) },
      }),
    }),
    TerminusModule,
  ],
  controllers: [IdsController, HealthController],
})
export class AppModule {}
